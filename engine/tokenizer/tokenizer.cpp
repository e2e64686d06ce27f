// engine/tokenizer/tokenizer.cpp - text to token ids and back.
#include "engine/tokenizer/tokenizer.h"

#include "engine/error.h"
#include "engine/tokenizer/added_tokens.h"
#include "engine/tokenizer/bpe.h"
#include "engine/tokenizer/byte_level.h"
#include "engine/tokenizer/piece_cache.h"
#include "engine/tokenizer/pre_tokenizer.h"
#include "engine/tokenizer/token_index.h"
#include "engine/tokenizer/tokenizer_json.h"
#include "engine/tokenizer/utf8.h"

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

namespace engine {

struct Tokenizer::Impl {
  Impl() = default;
  Impl(const Impl &) = delete; // the indexes point into this object
  Impl &operator=(const Impl &) = delete;

  std::string name;
  uint64_t cache_owner = PieceCache::new_owner();
  bool nfc = false;
  PreTokenizer pre_tokenizer;
  BpeMerges merges;
  bool ignore_merges = false;
  int32_t unk_id = -1;
  bool fuse_unk = false;
  std::array<int32_t, 256> byte_id{}; ///< -1: not in the vocabulary

  // Per id, in one arena each: the vocabulary spelling and the bytes.
  std::string text_arena, bytes_arena;
  std::vector<uint32_t> text_end, bytes_end; ///< ends; begin = previous end
  enum : uint8_t { kPresent = 1, kSpecial = 2 };
  std::vector<uint8_t> flags;
  TokenIndex model_ids; ///< the model's vocabulary
  TokenIndex added_ids;
  AddedTokenMatcher raw_added, normalized_added;

  std::string_view text(int32_t id) const {
    uint32_t begin = id == 0 ? 0 : text_end[size_t(id) - 1];
    return std::string_view(text_arena).substr(begin, text_end[id] - begin);
  }
  std::string_view bytes(int32_t id) const {
    uint32_t begin = id == 0 ? 0 : bytes_end[size_t(id) - 1];
    return std::string_view(bytes_arena).substr(begin, bytes_end[id] - begin);
  }
  bool contains(int32_t id) const {
    return id >= 0 && size_t(id) < flags.size() && (flags[id] & kPresent);
  }
  void check(int32_t id) const {
    if (!contains(id))
      throw Error("token id " + std::to_string(id) +
                  " is not in the vocabulary (" + std::to_string(flags.size()) +
                  " ids)");
  }

  void build(TokenizerSpec &spec);
  void encode(std::string_view text, bool parse_special,
              std::vector<int32_t> &out) const;

private:
  struct Scratch {
    std::vector<Span> pieces;
    std::vector<int32_t> symbols;
    PieceCache *cache = &PieceCache::local();
  };
  void encode_normalized(std::string_view text, bool parse_special,
                         Scratch &scratch, std::vector<int32_t> &out) const;
  void encode_piece(std::string_view piece, Scratch &scratch,
                    std::vector<int32_t> &out) const;
};

void Tokenizer::Impl::build(TokenizerSpec &spec) {
  auto fail = [&](const std::string &what) { throw Error(name + ": " + what); };
  nfc = spec.nfc;
  if (nfc)
    prepare_nfc();
  for (const auto &s : spec.splits)
    pre_tokenizer.add_split(s.pattern, s.literal, s.source);
  ignore_merges = spec.ignore_merges;
  fuse_unk = spec.fuse_unk;

  // Ids must be dense enough for per-id arrays: real vocabularies are
  // contiguous, and a stray huge id would otherwise allocate gigabytes.
  size_t count = spec.vocab.size() + spec.added_tokens.size();
  int64_t max_id = -1;
  for (const auto &[token, id] : spec.vocab)
    max_id = std::max<int64_t>(max_id, id);
  for (const auto &a : spec.added_tokens)
    max_id = std::max<int64_t>(max_id, a.id);
  if (max_id >= int64_t(2 * count + 1024))
    fail("token id " + std::to_string(max_id) + " is far beyond the " +
         std::to_string(count) + " tokens listed (ids must be dense)");
  size_t n = size_t(max_id + 1);
  flags.assign(n, 0);

  // Spellings per id, gathered before the arena is laid out.
  std::vector<const std::string *> spelling(n, nullptr);
  for (const auto &[token, id] : spec.vocab) {
    if (spelling[id])
      fail("model.vocab gives id " + std::to_string(id) + " to two tokens");
    spelling[id] = &token;
    flags[id] = kPresent;
  }
  std::vector<bool> added(n, false);
  for (const auto &a : spec.added_tokens) {
    if (spelling[a.id] && *spelling[a.id] != a.content)
      fail("added token id " + std::to_string(a.id) +
           " is already another token in model.vocab");
    if (added[a.id])
      fail("added_tokens lists id " + std::to_string(a.id) + " twice");
    spelling[a.id] = &a.content;
    added[a.id] = true;
    flags[a.id] = kPresent | (a.special ? kSpecial : 0);
  }
  text_end.resize(n);
  bytes_end.resize(n);
  for (size_t id = 0; id < n; ++id) {
    if (spelling[id]) {
      text_arena += *spelling[id];
      // Added tokens stand for their content as written; vocabulary
      // tokens are spelled in the byte alphabet.
      if (added[id])
        bytes_arena += *spelling[id];
      else
        bytes_arena += byte_level_decode(*spelling[id]);
    }
    if (text_arena.size() > UINT32_MAX || bytes_arena.size() > UINT32_MAX)
      fail("vocabulary too large");
    text_end[id] = uint32_t(text_arena.size());
    bytes_end[id] = uint32_t(bytes_arena.size());
  }
  auto spell = [this](int32_t id) { return text(id); };
  model_ids = TokenIndex(spec.vocab.size(), spell);
  for (const auto &[token, id] : spec.vocab)
    if (!model_ids.insert(id))
      fail("model.vocab lists '" + printable(token) + "' twice");
  added_ids = TokenIndex(spec.added_tokens.size(), spell);
  for (const auto &a : spec.added_tokens) {
    if (!added_ids.insert(a.id))
      fail("added_tokens lists '" + printable(text(a.id)) + "' twice");
    std::string content = a.content;
    if (a.normalized && nfc)
      content = engine::nfc(content);
    (a.normalized ? normalized_added : raw_added)
        .add(std::move(content), a.id, a.special);
  }

  if (spec.unk_token) {
    unk_id = model_ids.find(*spec.unk_token);
    if (unk_id < 0)
      fail("model.unk_token '" + printable(*spec.unk_token) +
           "' is not in model.vocab");
  }
  for (int b = 0; b < 256; ++b) {
    byte_id[b] = model_ids.find(byte_level_char(uint8_t(b)));
    if (byte_id[b] < 0 && unk_id < 0) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", b);
      fail(std::string("model.vocab lacks byte ") + hex + " ('" +
           std::string(byte_level_char(uint8_t(b))) +
           "'), which byte-level BPE needs without an unk_token");
    }
  }

  std::vector<BpeMerges::Merge> table;
  table.reserve(spec.merges.size());
  std::string joined;
  for (size_t i = 0; i < spec.merges.size(); ++i) {
    const auto &[left, right] = spec.merges[i];
    auto find = [&](const std::string &token) {
      int32_t id = model_ids.find(token);
      if (id < 0)
        fail("model.merges[" + std::to_string(i) + "]: '" + printable(token) +
             "' is not in model.vocab");
      return id;
    };
    joined = left;
    joined += right;
    table.push_back({find(left), find(right), find(joined)});
  }
  merges = BpeMerges(table);
}

void Tokenizer::Impl::encode(std::string_view text, bool parse_special,
                             std::vector<int32_t> &out) const {
  size_t bad = find_invalid_utf8(text);
  if (bad != std::string_view::npos)
    throw Error("input is not valid UTF-8 at byte " + std::to_string(bad));
  Scratch scratch;
  std::string normalized;
  size_t pos = 0;
  while (pos < text.size()) {
    auto m = raw_added.find(text, pos, parse_special);
    size_t end = m.id < 0 ? text.size() : m.begin;
    if (end > pos) {
      std::string_view segment = text.substr(pos, end - pos);
      if (nfc) {
        normalized = engine::nfc(segment);
        segment = normalized;
      }
      encode_normalized(segment, parse_special, scratch, out);
    }
    if (m.id < 0)
      break;
    out.push_back(m.id);
    pos = m.begin + m.length;
  }
}

void Tokenizer::Impl::encode_normalized(std::string_view text,
                                        bool parse_special, Scratch &scratch,
                                        std::vector<int32_t> &out) const {
  size_t pos = 0;
  while (pos < text.size()) {
    // Added tokens marked "normalized" are looked for only after the
    // normalizer ran, on its output, as Hugging Face does.
    auto m = normalized_added.find(text, pos, parse_special);
    size_t end = m.id < 0 ? text.size() : m.begin;
    std::string_view plain = text.substr(pos, end - pos);
    scratch.pieces.clear();
    pre_tokenizer.split(plain, scratch.pieces);
    for (const Span &piece : scratch.pieces)
      encode_piece(plain.substr(piece.first, piece.second), scratch, out);
    if (m.id < 0)
      break;
    out.push_back(m.id);
    pos = m.begin + m.length;
  }
}

void Tokenizer::Impl::encode_piece(std::string_view piece, Scratch &scratch,
                                   std::vector<int32_t> &out) const {
  if (ignore_merges) {
    int32_t id = model_ids.find(byte_level_encode(piece));
    if (id >= 0) {
      out.push_back(id);
      return;
    }
  }
  bool cacheable = piece.size() <= PieceCache::kMaxBytes;
  uint64_t hash = 0;
  if (cacheable) {
    hash = TokenIndex::hash(piece);
    if (scratch.cache->find(cache_owner, piece, hash, out))
      return;
  }
  auto &symbols = scratch.symbols;
  symbols.clear();
  for (char c : piece) {
    int32_t id = byte_id[uint8_t(c)];
    if (id < 0) {
      if (fuse_unk && !symbols.empty() && symbols.back() == unk_id)
        continue;
      id = unk_id;
    }
    symbols.push_back(id);
  }
  merges.apply(symbols);
  out.insert(out.end(), symbols.begin(), symbols.end());
  if (cacheable)
    scratch.cache->store(cache_owner, piece, hash, symbols.data(),
                         symbols.size());
}

Tokenizer::Tokenizer(std::shared_ptr<const Impl> impl)
    : impl_(std::move(impl)) {}

Tokenizer Tokenizer::from_json(std::string_view json, const std::string &name) {
  TokenizerSpec spec = parse_tokenizer_json(json, name);
  auto impl = std::make_shared<Impl>();
  impl->name = name;
  impl->build(spec);
  return Tokenizer(std::move(impl));
}

Tokenizer Tokenizer::load(const std::string &folder_or_file) {
  std::string path = folder_or_file;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    path += (path.empty() || path.back() == '/') ? "tokenizer.json"
                                                 : "/tokenizer.json";
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    throw Error(path + ": cannot open (" + std::strerror(errno) + ")");
  std::string text;
  char buffer[1 << 16];
  size_t got;
  while ((got = std::fread(buffer, 1, sizeof buffer, f)) > 0)
    text.append(buffer, got);
  bool failed = std::ferror(f);
  std::fclose(f);
  if (failed)
    throw Error(path + ": read failed");
  return from_json(text, path);
}

std::vector<int32_t> Tokenizer::encode(std::string_view text,
                                       bool parse_special) const {
  std::vector<int32_t> ids;
  ids.reserve(text.size() / 3 + 4);
  impl_->encode(text, parse_special, ids);
  return ids;
}

std::string Tokenizer::decode(const std::vector<int32_t> &ids,
                              bool skip_special_tokens) const {
  std::string bytes;
  for (int32_t id : ids) {
    impl_->check(id);
    if (skip_special_tokens && (impl_->flags[id] & Impl::kSpecial))
      continue;
    bytes += impl_->bytes(id);
  }
  std::string text;
  text.reserve(bytes.size());
  append_utf8_lossy(text, bytes, true);
  return text;
}

std::string Tokenizer::token_text(int32_t id) const {
  impl_->check(id);
  return std::string(impl_->text(id));
}

std::string_view Tokenizer::token_bytes(int32_t id) const {
  impl_->check(id);
  return impl_->bytes(id);
}

std::optional<int32_t> Tokenizer::token_id(std::string_view token) const {
  if (int32_t id = impl_->added_ids.find(token); id >= 0)
    return id;
  if (int32_t id = impl_->model_ids.find(token); id >= 0)
    return id;
  return std::nullopt;
}

int32_t Tokenizer::vocab_size() const { return int32_t(impl_->flags.size()); }

bool Tokenizer::is_special(int32_t id) const {
  return impl_->contains(id) && (impl_->flags[id] & Impl::kSpecial);
}

bool Tokenizer::contains(int32_t id) const { return impl_->contains(id); }

} // namespace engine
