// engine/tokenizer/byte_level.h - GPT-2's byte-to-character table.
//
// Byte-level BPE vocabularies spell every byte as a printable character so
// that tokens are valid strings: printable Latin-1 bytes stand for
// themselves, the other 68 bytes (controls, space, 0x7F-0xA0, 0xAD) map to
// U+0100 onwards in byte order, so a space is "Ġ" (U+0120).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace engine {

/// The UTF-8 spelling of byte `b` in a byte-level vocabulary.
std::string_view byte_level_char(uint8_t b);

/// Maps the byte-level spelling of a token back to its bytes. A token that
/// contains a character outside the table (added tokens, hand-made
/// vocabularies) is returned as its own UTF-8, as Hugging Face's ByteLevel
/// decoder does.
std::string byte_level_decode(std::string_view token);

/// The byte-level spelling of raw `bytes` (each byte as byte_level_char).
std::string byte_level_encode(std::string_view bytes);

} // namespace engine
