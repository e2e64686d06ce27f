// test/engine/tokenizer/utf8_test.cpp - UTF-8 validation, lossy decoding
// (Unicode's "maximal subpart" rule, as Python and TextDecoder apply it)
// and NFC.
#include "engine/tokenizer/utf8.h"

#include <gtest/gtest.h>
#include <utf8proc.h>

#include <cstdlib>

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

std::string utf8(int32_t cp) {
  utf8proc_uint8_t buf[4];
  return std::string(reinterpret_cast<char *>(buf),
                     size_t(utf8proc_encode_char(cp, buf)));
}

std::string utf8proc_nfc(const std::string &s) {
  utf8proc_uint8_t *out = nullptr;
  utf8proc_ssize_t n =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t *>(s.data()),
                   utf8proc_ssize_t(s.size()), &out,
                   utf8proc_option_t(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  std::string r(reinterpret_cast<char *>(out), size_t(n));
  std::free(out);
  return r;
}

TEST(Utf8, NfcFastPathAgreesWithUtf8procOnEveryCodePoint) {
  // Each code point alone and after a starter that composes with many
  // marks or vowel signs (Latin, Hangul L and LV, Oriya, Sinhala, Tamil).
  const int32_t starters[] = {'e',    0x1100, 0xac00, 0x0b47,
                              0x0dd9, 0x0bc6, 'A',    0x0915};
  for (int32_t cp = 0; cp < 0x110000; ++cp) {
    if (cp >= 0xd800 && cp <= 0xdfff)
      continue;
    std::string alone = utf8(cp);
    std::string after = utf8(starters[cp % 8]) + alone;
    ASSERT_EQ(nfc(alone), utf8proc_nfc(alone)) << "U+" << std::hex << cp;
    ASSERT_EQ(nfc(after), utf8proc_nfc(after)) << "U+" << std::hex << cp;
  }
}

TEST(Utf8, NfcOfMixedTextAgreesWithUtf8proc) {
  // Random strings of starters, marks of several classes and Hangul jamo:
  // only the stretches around unstable code points are normalized, and the
  // result must be that of normalizing the whole text.
  const int32_t pool[] = {'a',    'e',    ' ',    0x4e2d, 0x0301, 0x0323,
                          0x0302, 0x0308, 0x1100, 0x1161, 0x11a8, 0xac00,
                          0x0b47, 0x0b3e, 0x212b, 0x0958, 0x0344, 0x1f600};
  uint32_t seed = 12345;
  for (int round = 0; round < 20000; ++round) {
    std::string s;
    int n = 1 + round % 12;
    for (int i = 0; i < n; ++i) {
      seed = seed * 1664525u + 1013904223u;
      s += utf8(pool[(seed >> 16) % (sizeof pool / sizeof pool[0])]);
    }
    ASSERT_EQ(nfc(s), utf8proc_nfc(s)) << printable(s);
  }
}

TEST(Utf8, PrintableEscapesControlsAndCutsLongText) {
  EXPECT_EQ(printable("a\nb"), "a\\x0ab");
  std::string long_text(100, 'x');
  EXPECT_EQ(printable(long_text), std::string(80, 'x') + "...");
}

} // namespace
} // namespace engine
