// test/engine/tokenizer/utf8_test.cpp - UTF-8 validation, lossy decoding
// (Unicode's "maximal subpart" rule, as Python and TextDecoder apply it)
// and NFC.
#include "engine/tokenizer/utf8.h"

#include <gtest/gtest.h>

namespace engine {
namespace {

const std::string kFffd = "\xef\xbf\xbd";

TEST(Utf8, FindsTheFirstIllFormedByte) {
  EXPECT_EQ(find_invalid_utf8(""), std::string_view::npos);
  EXPECT_EQ(find_invalid_utf8("plain ascii text, long enough for 8"),
            std::string_view::npos);
  EXPECT_EQ(find_invalid_utf8("\xe4\xb8\xad\xf0\x9f\x98\x80"),
            std::string_view::npos);
  EXPECT_EQ(find_invalid_utf8("abc\x80"), 3u);             // lone continuation
  EXPECT_EQ(find_invalid_utf8("abcdefghij\xc0\x80"), 10u); // overlong NUL
  EXPECT_EQ(find_invalid_utf8("\xe0\x80\xaf"), 0u);        // overlong
  EXPECT_EQ(find_invalid_utf8("x\xed\xa0\x80"), 1u);       // surrogate
  EXPECT_EQ(find_invalid_utf8("\xf4\x90\x80\x80"), 0u);    // > U+10FFFF
  EXPECT_EQ(find_invalid_utf8("ok\xe4\xb8"), 2u);          // cut short
  EXPECT_EQ(find_invalid_utf8("\xff"), 0u);
}

TEST(Utf8, ReplacesEachMaximalSubpartWithOneReplacementCharacter) {
  // The example of the Unicode Standard, section 3.9 (U+FFFD substitution).
  std::string out;
  std::string in = "\x61\xf1\x80\x80\xe1\x80\xc2\x62\x80\x63\x80\xbf\x64";
  EXPECT_EQ(append_utf8_lossy(out, in, true), in.size());
  EXPECT_EQ(out, "a" + kFffd + kFffd + kFffd + "b" + kFffd + "c" + kFffd +
                     kFffd + "d");
}

TEST(Utf8, HoldsBackAnIncompleteCharacterUnlessFinal) {
  std::string out;
  EXPECT_EQ(append_utf8_lossy(out, "ab\xe4\xb8", false), 2u);
  EXPECT_EQ(out, "ab");
  out.clear();
  EXPECT_EQ(append_utf8_lossy(out, "ab\xe4\xb8", true), 4u);
  EXPECT_EQ(out, "ab" + kFffd);
  // A prefix that can no longer complete is replaced at once.
  out.clear();
  EXPECT_EQ(append_utf8_lossy(out, "\xe4x", false), 2u);
  EXPECT_EQ(out, kFffd + "x");
}

TEST(Utf8, NfcComposesCombiningMarksAndKeepsComposedText) {
  EXPECT_EQ(nfc("cafe\xcc\x81"), "caf\xc3\xa9");              // e + U+0301
  EXPECT_EQ(nfc("\xe1\x84\x80\xe1\x85\xa1"), "\xea\xb0\x80"); // jamo -> 가
  EXPECT_EQ(nfc("caf\xc3\xa9 \xe4\xb8\xad"), "caf\xc3\xa9 \xe4\xb8\xad");
  EXPECT_EQ(nfc(""), "");
}

TEST(Utf8, PrintableEscapesControlsAndCutsLongText) {
  EXPECT_EQ(printable("a\nb"), "a\\x0ab");
  std::string long_text(100, 'x');
  EXPECT_EQ(printable(long_text), std::string(80, 'x') + "...");
}

} // namespace
} // namespace engine
