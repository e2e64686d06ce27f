// engine/tokenizer/byte_level.cpp - GPT-2's byte-to-character table.
#include "engine/tokenizer/byte_level.h"

#include <array>

namespace engine {
namespace {

struct Table {
  std::array<uint16_t, 256> code_point{}; ///< byte -> character
  std::array<int16_t, 512> byte{};        ///< character -> byte, or -1
  std::array<char[3], 256> utf8{};        ///< byte -> UTF-8 (1 or 2 bytes)
  std::array<uint8_t, 256> utf8_len{};

  Table() {
    byte.fill(-1);
    int next = 256;
    for (int b = 0; b < 256; ++b) {
      bool printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) ||
                       (b >= 0xae && b <= 0xff);
      int cp = printable ? b : next++;
      code_point[b] = uint16_t(cp);
      byte[cp] = int16_t(b);
      if (cp < 0x80) {
        utf8[b][0] = char(cp);
        utf8_len[b] = 1;
      } else { // all code points here are below U+0800
        utf8[b][0] = char(0xc0 | (cp >> 6));
        utf8[b][1] = char(0x80 | (cp & 0x3f));
        utf8_len[b] = 2;
      }
    }
  }
};

const Table &table() {
  static const Table t;
  return t;
}

} // namespace

std::string_view byte_level_char(uint8_t b) {
  const Table &t = table();
  return std::string_view(t.utf8[b], t.utf8_len[b]);
}

std::string byte_level_decode(std::string_view token) {
  const Table &t = table();
  std::string out;
  out.reserve(token.size());
  for (size_t i = 0; i < token.size();) {
    auto c = uint8_t(token[i]);
    int cp = -1, len = 1;
    if (c < 0x80) {
      cp = c;
    } else if ((c & 0xe0) == 0xc0 && i + 1 < token.size() &&
               (uint8_t(token[i + 1]) & 0xc0) == 0x80) {
      cp = ((c & 0x1f) << 6) | (uint8_t(token[i + 1]) & 0x3f);
      len = 2;
    }
    if (cp < 0 || cp >= 512 || t.byte[cp] < 0)
      return std::string(token); // not a byte-level spelling
    out.push_back(char(t.byte[cp]));
    i += len;
  }
  return out;
}

std::string byte_level_encode(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes)
    out.append(byte_level_char(uint8_t(c)));
  return out;
}

} // namespace engine
