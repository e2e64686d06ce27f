// engine/tokenizer/utf8.h - UTF-8 checks, lossy decoding and NFC.
//
// The tokenizer accepts only well-formed UTF-8 (the regex engine and the
// normalizer are run without their own checks), but token ids can decode to
// any bytes: a token may end in the middle of a character. Lossy decoding
// replaces each maximal ill-formed subsequence with one U+FFFD, the rule
// Python's errors="replace", Rust's from_utf8_lossy and WHATWG's TextDecoder
// share; because that rule looks at most four bytes ahead, the same function
// serves whole-text decoding and the streaming decoder.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace engine {

/// Offset of the first byte that is not part of well-formed UTF-8 (overlong
/// forms, surrogates and code points above U+10FFFF are ill-formed), or
/// std::string_view::npos when all of `text` is well-formed.
size_t find_invalid_utf8(std::string_view text);

/// Appends `bytes` to `out` as well-formed UTF-8, each maximal ill-formed
/// subsequence replaced by U+FFFD. When `final` is false, a trailing
/// sequence that is still a valid prefix of a character is left unconsumed
/// (at most three bytes). Returns the number of bytes consumed.
size_t append_utf8_lossy(std::string &out, std::string_view bytes, bool final);

/// Unicode NFC of well-formed UTF-8 `text` (the caller checks it first).
/// Text made only of code points NFC cannot change in any context (all of
/// ASCII and Latin-1, nearly all letters of other scripts) is returned as
/// it is without running utf8proc's normalizer.
std::string nfc(std::string_view text);

/// Builds the table nfc() consults (a few milliseconds, once per process)
/// so that the first text to need it does not pay for it.
void prepare_nfc();

/// `s` made fit for a one-line error message: control characters written
/// as \xNN, anything past 80 bytes cut to "...".
std::string printable(std::string_view s);

} // namespace engine
