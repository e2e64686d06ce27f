// engine/tokenizer/utf8.cpp - UTF-8 checks, lossy decoding and NFC.
#include "engine/tokenizer/utf8.h"

#include "engine/error.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utf8proc.h>
#include <vector>

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

namespace {

/// Code points that NFC leaves as they are whatever surrounds them:
/// combining class 0, no canonical decomposition, and never the second
/// half of a canonical composition. A text made only of them is already
/// NFC, which spares utf8proc's decompose-reorder-compose pass (and its
/// allocation) for nearly all CJK, Cyrillic, Arabic, emoji... text. Built
/// once, from utf8proc's own tables, so both agree by construction.
class NfcStable {
public:
  NfcStable() : bits_(0x110000 / 64, 0) {
    std::vector<bool> second(0x110000, false);
    std::vector<bool> decomposes(0x110000, false);
    for (int32_t cp = 0; cp < 0x110000; ++cp) {
      if (cp >= 0xd800 && cp <= 0xdfff)
        continue;
      const utf8proc_property_t *p = utf8proc_get_property(cp);
      bool hangul = cp >= 0xac00 && cp <= 0xd7a3; // decomposed by formula
      bool canonical = p->decomp_seqindex != UINT16_MAX && p->decomp_type == 0;
      if (!hangul && !canonical)
        continue;
      decomposes[cp] = !hangul; // a lone syllable is its own NFC
      utf8proc_int32_t parts[32];
      int boundclass = 0;
      utf8proc_ssize_t n = utf8proc_decompose_char(
          cp, parts, 32, UTF8PROC_DECOMPOSE, &boundclass);
      for (utf8proc_ssize_t i = 1; i < n && i < 32; ++i)
        if (parts[i] >= 0 && parts[i] < 0x110000)
          second[size_t(parts[i])] = true;
    }
    for (int32_t cp = 0; cp < 0x110000; ++cp) {
      if (cp >= 0xd800 && cp <= 0xdfff)
        continue;
      if (utf8proc_get_property(cp)->combining_class == 0 && !decomposes[cp] &&
          !second[cp])
        bits_[size_t(cp) >> 6] |= uint64_t(1) << (cp & 63);
    }
  }
  bool operator()(uint32_t cp) const {
    return (bits_[cp >> 6] >> (cp & 63)) & 1;
  }

private:
  std::vector<uint64_t> bits_;
};

const NfcStable &nfc_stable() {
  static const NfcStable table;
  return table;
}

utf8proc_int32_t decode_one(const uint8_t *p, int *length) {
  uint32_t c = p[0];
  if (c < 0x80) {
    *length = 1;
    return utf8proc_int32_t(c);
  }
  if (c < 0xe0) {
    *length = 2;
    return utf8proc_int32_t(((c & 0x1f) << 6) | (p[1] & 0x3f));
  }
  if (c < 0xf0) {
    *length = 3;
    return utf8proc_int32_t(((c & 0x0f) << 12) | ((p[1] & 0x3f) << 6) |
                            (p[2] & 0x3f));
  }
  *length = 4;
  return utf8proc_int32_t(((c & 0x07) << 18) | ((p[1] & 0x3f) << 12) |
                          ((p[2] & 0x3f) << 6) | (p[3] & 0x3f));
}

void append_utf8proc_nfc(std::string &out, std::string_view text) {
  utf8proc_uint8_t *mapped = nullptr;
  utf8proc_ssize_t n =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t *>(text.data()),
                   utf8proc_ssize_t(text.size()), &mapped,
                   utf8proc_option_t(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  if (n < 0)
    throw Error(std::string("NFC normalization failed: ") + utf8proc_errmsg(n));
  out.append(reinterpret_cast<char *>(mapped), size_t(n));
  std::free(mapped);
}

} // namespace

void prepare_nfc() { nfc_stable(); }

std::string nfc(std::string_view text) {
  bool below_u0300 = true;
  for (unsigned char c : text)
    if (c >= 0xcc) { // lead bytes of U+0300 and above
      below_u0300 = false;
      break;
    }
  if (below_u0300)
    return std::string(text);
  // A stable code point is a boundary NFC never acts across (nothing
  // composes with it from the left, and with class 0 it blocks reordering
  // and composition past it), so only the stretches from the stable code
  // point before an unstable one to the next stable one go to utf8proc.
  const NfcStable &stable = nfc_stable();
  std::string out;
  auto *begin = reinterpret_cast<const uint8_t *>(text.data());
  size_t copied = 0, last_stable = 0, region = std::string::npos;
  for (size_t i = 0; i < text.size();) {
    int length;
    utf8proc_int32_t cp = decode_one(begin + i, &length);
    if (stable(uint32_t(cp))) {
      if (region != std::string::npos) {
        out.append(text.substr(copied, region - copied));
        append_utf8proc_nfc(out, text.substr(region, i - region));
        copied = i;
        region = std::string::npos;
      }
      last_stable = i;
    } else if (region == std::string::npos) {
      region = last_stable;
    }
    i += size_t(length);
  }
  if (region != std::string::npos) {
    out.append(text.substr(copied, region - copied));
    append_utf8proc_nfc(out, text.substr(region));
    copied = text.size();
  }
  out.append(text.substr(copied));
  return out;
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
