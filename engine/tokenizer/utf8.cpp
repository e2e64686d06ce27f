// engine/tokenizer/utf8.cpp - UTF-8 checks, lossy decoding and NFC.
#include "engine/tokenizer/utf8.h"

#include "engine/error.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utf8proc.h>

namespace engine {
namespace {

/// Length of the well-formed sequence starting at `p` (1..4), or 0 with
/// `*valid_prefix` set to how many leading bytes form a valid prefix of a
/// character (the maximal subpart to replace, at least 1) when the sequence
/// is ill-formed or cut off by `end`. `*truncated` tells the latter apart.
int sequence_length(const uint8_t *p, const uint8_t *end, int *valid_prefix,
                    bool *truncated) {
  uint8_t b0 = p[0];
  *truncated = false;
  *valid_prefix = 1;
  if (b0 < 0x80)
    return 1;
  int need;
  uint8_t lo = 0x80, hi = 0xbf; // the range allowed for the second byte
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    need = 1;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    need = 2;
    if (b0 == 0xe0)
      lo = 0xa0; // overlong
    else if (b0 == 0xed)
      hi = 0x9f; // surrogates
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    need = 3;
    if (b0 == 0xf0)
      lo = 0x90; // overlong
    else if (b0 == 0xf4)
      hi = 0x8f; // above U+10FFFF
  } else {
    return 0; // a continuation byte, C0, C1 or F5..FF cannot start anything
  }
  for (int i = 1; i <= need; ++i) {
    if (p + i >= end) {
      *valid_prefix = i;
      *truncated = true;
      return 0;
    }
    uint8_t b = p[i];
    bool ok = i == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xbf);
    if (!ok) {
      *valid_prefix = i;
      return 0;
    }
  }
  return need + 1;
}

bool has_eight_bytes_ascii(const uint8_t *p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return (w & 0x8080808080808080ull) == 0;
}

} // namespace

size_t find_invalid_utf8(std::string_view text) {
  auto *begin = reinterpret_cast<const uint8_t *>(text.data());
  const uint8_t *p = begin, *end = begin + text.size();
  while (p < end) {
    if (end - p >= 8 && has_eight_bytes_ascii(p)) {
      p += 8;
      continue;
    }
    int prefix;
    bool truncated;
    int n = sequence_length(p, end, &prefix, &truncated);
    if (n == 0)
      return size_t(p - begin);
    p += n;
  }
  return std::string_view::npos;
}

size_t append_utf8_lossy(std::string &out, std::string_view bytes, bool final) {
  static constexpr char kReplacement[] = "\xef\xbf\xbd";
  auto *begin = reinterpret_cast<const uint8_t *>(bytes.data());
  const uint8_t *p = begin, *end = begin + bytes.size();
  const uint8_t *run = p; // start of the well-formed bytes not yet appended
  while (p < end) {
    if (end - p >= 8 && has_eight_bytes_ascii(p)) {
      p += 8;
      continue;
    }
    int prefix;
    bool truncated;
    int n = sequence_length(p, end, &prefix, &truncated);
    if (n > 0) {
      p += n;
      continue;
    }
    out.append(reinterpret_cast<const char *>(run), size_t(p - run));
    if (truncated && !final)
      return size_t(p - begin); // may still be completed by later bytes
    out.append(kReplacement, 3);
    p += prefix;
    run = p;
  }
  out.append(reinterpret_cast<const char *>(run), size_t(p - run));
  return bytes.size();
}

std::string nfc(std::string_view text) {
  bool below_u0300 = true;
  for (unsigned char c : text)
    if (c >= 0xcc) { // lead bytes of U+0300 and above
      below_u0300 = false;
      break;
    }
  if (below_u0300)
    return std::string(text);
  utf8proc_uint8_t *mapped = nullptr;
  utf8proc_ssize_t n =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t *>(text.data()),
                   utf8proc_ssize_t(text.size()), &mapped,
                   utf8proc_option_t(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  if (n < 0)
    throw Error(std::string("NFC normalization failed: ") + utf8proc_errmsg(n));
  std::string result(reinterpret_cast<char *>(mapped), size_t(n));
  std::free(mapped);
  return result;
}

std::string printable(std::string_view s) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  size_t n = std::min<size_t>(s.size(), 80);
  while (n < s.size() && n > 0 && (uint8_t(s[n]) & 0xc0) == 0x80)
    --n; // do not cut a character in two
  for (size_t i = 0; i < n; ++i) {
    auto c = uint8_t(s[i]);
    if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += char(c);
    }
  }
  if (n < s.size())
    out += "...";
  return out;
}

} // namespace engine
