// engine/tokenizer/tokenizer_json.cpp - reads a Hugging Face tokenizer.json.
#include "engine/tokenizer/tokenizer_json.h"

#include "engine/error.h"
#include "engine/tokenizer/utf8.h"

#include <nlohmann/json.hpp>

namespace engine {

const char *const kGpt2Pattern =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|"
    "\\s+(?!\\S)|\\s+";

namespace {

using Json = nlohmann::json;

/// Field access that reports the file and the field path on every mistake.
class Reader {
public:
  explicit Reader(const std::string &name) : name_(name) {}

  [[noreturn]] void fail(const std::string &what) const {
    throw Error(name_ + ": " + what);
  }

  /// The member `key` of object `j` (`where` is its path), or nullptr.
  const Json *find(const Json &j, const char *key) const {
    auto it = j.find(key);
    return it == j.end() ? nullptr : &*it;
  }
  const Json &require(const Json &j, const char *key,
                      const std::string &where) const {
    const Json *v = find(j, key);
    if (!v)
      fail("missing field '" + where + key + "'");
    return *v;
  }
  const std::string &string(const Json &j, const std::string &where) const {
    if (!j.is_string())
      fail("'" + where + "' is not a string");
    return j.get_ref<const std::string &>();
  }
  /// An optional boolean member; null counts as absent.
  bool flag(const Json &j, const char *key, bool fallback,
            const std::string &where) const {
    const Json *v = find(j, key);
    if (!v || v->is_null())
      return fallback;
    if (!v->is_boolean())
      fail("'" + where + key + "' is not a boolean");
    return v->get<bool>();
  }
  /// The "type" of a component, "null" for a JSON null.
  std::string type(const Json &j, const std::string &where) const {
    if (j.is_null())
      return "null";
    if (!j.is_object())
      fail("'" + where + "' is not an object");
    return string(require(j, "type", where + "."), where + ".type");
  }
  [[noreturn]] void unsupported(const std::string &component,
                                const std::string &what) const {
    fail("unsupported " + component + " " + what);
  }
  int32_t id(const Json &j, const std::string &where) const {
    if (!j.is_number_integer())
      fail("'" + where + "' is not an integer id");
    int64_t v = j.is_number_unsigned()
                    ? int64_t(std::min<uint64_t>(j.get<uint64_t>(), INT64_MAX))
                    : j.get<int64_t>();
    if (v < 0 || v > INT32_MAX)
      fail("'" + where + "' id " + std::to_string(v) + " is out of range");
    return int32_t(v);
  }

private:
  const std::string &name_;
};

void read_normalizer(const Reader &r, const Json &root, TokenizerSpec &spec) {
  const Json *n = r.find(root, "normalizer");
  if (!n)
    return;
  std::string type = r.type(*n, "normalizer");
  if (type == "null")
    return;
  if (type != "NFC")
    r.unsupported("normalizer", "type '" + printable(type) + "'");
  spec.nfc = true;
}

void read_split(const Reader &r, const Json &split, const std::string &where,
                const std::string &name, TokenizerSpec &spec) {
  const Json &pattern = r.require(split, "pattern", where + ".");
  if (!pattern.is_object())
    r.fail("'" + where + ".pattern' is not an object");
  TokenizerSpec::Split s;
  s.source = name + ": " + where + ".pattern";
  if (const Json *regex = r.find(pattern, "Regex")) {
    s.pattern = r.string(*regex, where + ".pattern.Regex");
    s.literal = false;
  } else if (const Json *literal = r.find(pattern, "String")) {
    s.pattern = r.string(*literal, where + ".pattern.String");
    s.literal = true;
  } else {
    r.unsupported("pre_tokenizer", "Split pattern in '" + where +
                                       "' (neither Regex nor String)");
  }
  std::string behavior =
      r.string(r.require(split, "behavior", where + "."), where + ".behavior");
  if (behavior != "Isolated")
    r.unsupported("pre_tokenizer",
                  "Split behavior '" + printable(behavior) + "'");
  if (r.flag(split, "invert", false, where + "."))
    r.unsupported("pre_tokenizer", "Split with invert true");
  spec.splits.push_back(std::move(s));
}

void read_byte_level(const Reader &r, const Json &b, const std::string &where,
                     const std::string &name, TokenizerSpec &spec) {
  if (r.flag(b, "add_prefix_space", true, where + "."))
    r.unsupported("pre_tokenizer", "ByteLevel with add_prefix_space true");
  if (r.flag(b, "use_regex", true, where + "."))
    spec.splits.push_back({kGpt2Pattern, false, name + ": " + where});
}

void read_pre_tokenizer(const Reader &r, const Json &root,
                        const std::string &name, TokenizerSpec &spec) {
  const Json *p = r.find(root, "pre_tokenizer");
  std::string type = p ? r.type(*p, "pre_tokenizer") : "null";
  if (type == "ByteLevel") {
    read_byte_level(r, *p, "pre_tokenizer", name, spec);
    return;
  }
  if (type != "Sequence")
    r.unsupported("pre_tokenizer", "type '" + printable(type) + "'");
  const Json &list = r.require(*p, "pretokenizers", "pre_tokenizer.");
  if (!list.is_array())
    r.fail("'pre_tokenizer.pretokenizers' is not an array");
  bool byte_level = false;
  for (size_t i = 0; i < list.size(); ++i) {
    std::string where =
        "pre_tokenizer.pretokenizers[" + std::to_string(i) + "]";
    std::string t = r.type(list[i], where);
    if (byte_level) // bytes cannot be split by a character regex
      r.unsupported("pre_tokenizer",
                    "type '" + printable(t) + "' after ByteLevel");
    if (t == "Split") {
      read_split(r, list[i], where, name, spec);
    } else if (t == "ByteLevel") {
      read_byte_level(r, list[i], where, name, spec);
      byte_level = true;
    } else {
      r.unsupported("pre_tokenizer", "type '" + printable(t) + "'");
    }
  }
  if (!byte_level)
    r.unsupported("pre_tokenizer",
                  "Sequence without ByteLevel (byte-level BPE needs it)");
}

void add_vocab_entry(const Reader &r, const std::string &token, const Json &id,
                     TokenizerSpec &spec) {
  // The message is built only on failure: this runs 150,000 times.
  if (!id.is_number_integer() ||
      (id.is_number_unsigned()
           ? id.get<uint64_t>() > INT32_MAX
           : (id.get<int64_t>() < 0 || id.get<int64_t>() > INT32_MAX)))
    r.id(id, "model.vocab." + printable(token)); // throws the right error
  spec.vocab.emplace_back(token, int32_t(id.get<int64_t>()));
}

void add_merge(const Reader &r, const Json &m, TokenizerSpec &spec) {
  size_t i = spec.merges.size();
  if (m.is_string()) {
    const std::string &s = m.get_ref<const std::string &>();
    size_t space = s.find(' ');
    if (space == std::string::npos || s.find(' ', space + 1) != s.npos)
      r.fail("model.merges[" + std::to_string(i) + "] '" + printable(s) +
             "' is not two tokens separated by one space");
    spec.merges.emplace_back(s.substr(0, space), s.substr(space + 1));
  } else if (m.is_array() && m.size() == 2 && m[0].is_string() &&
             m[1].is_string()) {
    spec.merges.emplace_back(m[0].get_ref<const std::string &>(),
                             m[1].get_ref<const std::string &>());
  } else {
    r.fail("model.merges[" + std::to_string(i) +
           "] is neither \"a b\" nor [\"a\", \"b\"]");
  }
}

/// A parser callback that moves model.vocab and model.merges entries
/// straight into the spec instead of the document: a DOM of 150,000 map
/// nodes and 150,000 small arrays would cost more than the rest of loading.
/// The emptied containers stay in the document to be type-checked there.
class VocabCapture {
public:
  VocabCapture(const Reader &r, TokenizerSpec &spec) : r_(r), spec_(spec) {}

  bool operator()(int depth, nlohmann::json::parse_event_t event,
                  Json &parsed) {
    using E = nlohmann::json::parse_event_t;
    if (depth < 0 || depth > 3)
      return true;
    size_t d = size_t(depth);
    switch (event) {
    case E::key:
      keys_[d] = parsed.get<std::string>();
      fresh_[d] = true;
      // Refusing the key drops the whole member; refusing only its value
      // would leave the key with a "discarded" value.
      return !(d == 3 && inside_ == Vocab);
    case E::object_start:
    case E::array_start:
      // An id that is an object or array: its member was refused at the
      // key, so no later event would report it.
      if (d == 3 && inside_ == Vocab)
        add_vocab_entry(r_, keys_[3], Json::object(), spec_); // throws
      // The value of model.vocab or model.merges (a key just read at depth
      // 2 inside the root's "model" member).
      if (d == 2 && fresh_[2] && keys_[1] == "model") {
        if (keys_[2] == "vocab" && event == E::object_start) {
          inside_ = Vocab;
          spec_.vocab.clear();
        } else if (keys_[2] == "merges" && event == E::array_start) {
          inside_ = Merges;
          spec_.merges.clear();
        }
      }
      fresh_[d] = false;
      return true;
    case E::object_end:
    case E::array_end:
      if (d == 2)
        inside_ = None;
      if (d == 3 && inside_ == Merges) {
        add_merge(r_, parsed, spec_);
        return false;
      }
      return true;
    case E::value:
      fresh_[d] = false;
      if (d == 3 && inside_ == Vocab) {
        add_vocab_entry(r_, keys_[3], parsed, spec_);
        return false;
      }
      if (d == 3 && inside_ == Merges) {
        add_merge(r_, parsed, spec_);
        return false;
      }
      return true;
    }
    return true;
  }

private:
  const Reader &r_;
  TokenizerSpec &spec_;
  std::string keys_[4];
  bool fresh_[4] = {};
  enum { None, Vocab, Merges } inside_ = None;
};

void read_model(const Reader &r, const Json &root, TokenizerSpec &spec) {
  const Json &model = r.require(root, "model", "");
  if (!model.is_object())
    r.fail("'model' is not an object");
  if (const Json *t = r.find(model, "type")) {
    const std::string &type = r.string(*t, "model.type");
    if (type != "BPE")
      r.unsupported("model", "type '" + printable(type) + "'");
  }
  if (const Json *d = r.find(model, "dropout"); d && !d->is_null()) {
    if (!d->is_number())
      r.fail("'model.dropout' is not a number");
    if (d->get<double>() != 0.0)
      r.unsupported("model", "BPE dropout (encoding would be random)");
  }
  for (const char *key : {"continuing_subword_prefix", "end_of_word_suffix"})
    if (const Json *v = r.find(model, key); v && !v->is_null())
      if (!r.string(*v, std::string("model.") + key).empty())
        r.unsupported("model", std::string("BPE ") + key);
  if (r.flag(model, "byte_fallback", false, "model."))
    r.unsupported("model", "BPE byte_fallback");
  spec.fuse_unk = r.flag(model, "fuse_unk", false, "model.");
  spec.ignore_merges = r.flag(model, "ignore_merges", false, "model.");
  if (const Json *u = r.find(model, "unk_token"); u && !u->is_null())
    spec.unk_token = r.string(*u, "model.unk_token");

  // The entries themselves were taken out while parsing (VocabCapture);
  // what is left in the document says whether the fields were there.
  const Json &vocab = r.require(model, "vocab", "model.");
  if (!vocab.is_object())
    r.fail("'model.vocab' is not an object of token: id");
  for (auto it = vocab.begin(); it != vocab.end(); ++it)
    add_vocab_entry(r, it.key(), it.value(), spec);
  const Json &merges = r.require(model, "merges", "model.");
  if (!merges.is_array())
    r.fail("'model.merges' is not an array");
  for (const Json &m : merges)
    add_merge(r, m, spec);
}

void read_added_tokens(const Reader &r, const Json &root, TokenizerSpec &spec) {
  const Json *list = r.find(root, "added_tokens");
  if (!list || list->is_null())
    return;
  if (!list->is_array())
    r.fail("'added_tokens' is not an array");
  for (size_t i = 0; i < list->size(); ++i) {
    const Json &t = (*list)[i];
    std::string where = "added_tokens[" + std::to_string(i) + "]";
    if (!t.is_object())
      r.fail("'" + where + "' is not an object");
    TokenizerSpec::AddedToken a;
    a.id = r.id(r.require(t, "id", where + "."), where + ".id");
    a.content =
        r.string(r.require(t, "content", where + "."), where + ".content");
    a.special = r.flag(t, "special", false, where + ".");
    a.normalized = r.flag(t, "normalized", !a.special, where + ".");
    for (const char *key : {"lstrip", "rstrip", "single_word"})
      if (r.flag(t, key, false, where + "."))
        r.unsupported("added_tokens", std::string("option ") + key + " (on '" +
                                          printable(a.content) + "')");
    spec.added_tokens.push_back(std::move(a));
  }
}

} // namespace

TokenizerSpec parse_tokenizer_json(std::string_view text,
                                   const std::string &name) {
  Reader r(name);
  TokenizerSpec spec;
  Json root;
  try {
    root =
        Json::parse(text.begin(), text.end(),
                    nlohmann::json::parser_callback_t(VocabCapture(r, spec)));
  } catch (const Json::exception &e) {
    // parse_error, or out_of_range for a number too large for a double.
    // Drop nlohmann's "[json.exception.parse_error.101] " prefix.
    std::string what = e.what();
    if (size_t end = what.find("] "); end != std::string::npos)
      what = what.substr(end + 2);
    throw Error(name + ": not valid JSON (" + what + ")");
  }
  if (!root.is_object())
    r.fail("not a tokenizer (the top level is not a JSON object)");
  if (const Json *t = r.find(root, "truncation"); t && !t->is_null())
    r.unsupported("truncation", "(set it to null)");

  read_normalizer(r, root, spec);
  read_pre_tokenizer(r, root, name, spec);
  read_model(r, root, spec);
  read_added_tokens(r, root, spec);

  if (const Json *p = r.find(root, "post_processor")) {
    std::string type = r.type(*p, "post_processor");
    if (type != "null" && type != "ByteLevel")
      r.unsupported("post_processor", "type '" + printable(type) + "'");
  }
  const Json *d = r.find(root, "decoder");
  std::string decoder = d ? r.type(*d, "decoder") : "null";
  if (decoder != "ByteLevel")
    r.unsupported("decoder", "type '" + printable(decoder) + "'");
  return spec;
}

} // namespace engine
