// engine/io/model_config.cpp - a Qwen3 model's config.json and
// generation_config.json.
//
// Every field is read through Fields, which names the file and the field in
// each error, and treats null like an absent optional field (transformers
// writes None as null).
#include "engine/io/model_config.h"

#include "engine/error.h"
#include "engine/io/messages.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cmath>
#include <limits>
#include <sys/stat.h>

namespace engine {

using nlohmann::json;

namespace {

class Fields {
public:
  Fields(const json &object, const std::string &path)
      : obj_(object), path_(path) {}

  // The field, or nullptr when absent or null.
  const json *find(const char *name) const {
    auto it = obj_.find(name);
    if (it == obj_.end() || it->is_null())
      return nullptr;
    return &*it;
  }

  const json &require(const char *name) const {
    const json *v = find(name);
    if (!v) {
      if (obj_.contains(name))
        throw error(name, "must not be null");
      throw Error(path_ + ": missing field '" + name + "'");
    }
    return *v;
  }

  Error error(const char *name, const std::string &problem) const {
    return Error(path_ + ": field '" + name + "' " + problem);
  }

  Error wrong_type(const char *name, const char *want, const json &v) const {
    return error(name,
                 std::string("must be ") + want + ", not " + json_type_name(v));
  }

  int64_t integer(const json &v, const char *name) const {
    if (v.is_number_unsigned() &&
        v.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()))
      throw error(name, "is too large");
    if (!v.is_number_integer())
      throw wrong_type(name, "an integer", v);
    return v.get<int64_t>();
  }

  int64_t integer(const char *name) const {
    return integer(require(name), name);
  }

  int64_t integer_or(const char *name, int64_t fallback) const {
    const json *v = find(name);
    return v ? integer(*v, name) : fallback;
  }

  double number_or(const char *name, double fallback) const {
    const json *v = find(name);
    if (!v)
      return fallback;
    if (!v->is_number())
      throw wrong_type(name, "a number", *v);
    return v->get<double>();
  }

  bool boolean_or(const char *name, bool fallback) const {
    const json *v = find(name);
    if (!v)
      return fallback;
    if (!v->is_boolean())
      throw wrong_type(name, "true or false", *v);
    return v->get<bool>();
  }

  std::string string_or(const char *name, const std::string &fallback) const {
    const json *v = find(name);
    if (!v)
      return fallback;
    if (!v->is_string())
      throw wrong_type(name, "a string", *v);
    return v->get<std::string>();
  }

  // A token id: a non-negative integer that fits the engine's int32 ids.
  int32_t id(const json &v, const char *name) const {
    int64_t x = integer(v, name);
    if (x < 0 || x > std::numeric_limits<int32_t>::max())
      throw error(name,
                  "holds " + std::to_string(x) + ", which is not a token id");
    return static_cast<int32_t>(x);
  }

  std::optional<int32_t> id_or_none(const char *name) const {
    const json *v = find(name);
    if (!v)
      return std::nullopt;
    return id(*v, name);
  }

  // A token id or a list of them; empty when absent.
  std::vector<int32_t> ids(const char *name) const {
    const json *v = find(name);
    if (!v)
      return {};
    if (v->is_number())
      return {id(*v, name)};
    if (!v->is_array())
      throw wrong_type(name, "an integer or a list of integers", *v);
    std::vector<int32_t> out;
    for (const json &x : *v) {
      if (!x.is_number_integer())
        throw wrong_type(name, "an integer or a list of integers", *v);
      out.push_back(id(x, name));
    }
    return out;
  }

private:
  const json &obj_;
  const std::string &path_;
};

json read_object(const std::string &path) {
  json j = read_json_file(path);
  if (!j.is_object())
    throw Error(path + ": not a JSON object (it is " + json_type_name(j) + ")");
  return j;
}

// Accept Qwen3ForCausalLM only: the same model_type also covers heads with
// other weights (sequence classification), which would load wrongly.
void check_architecture(const Fields &f, const std::string &path) {
  const json *arch = f.find("architectures");
  const std::string model_type = f.string_or("model_type", "");
  bool arch_ok = false;
  std::string found;
  if (arch) {
    if (!arch->is_array())
      throw f.wrong_type("architectures", "a list of strings", *arch);
    for (const json &a : *arch) {
      if (!a.is_string())
        throw f.wrong_type("architectures", "a list of strings", *arch);
      arch_ok |= a.get_ref<const std::string &>() == "Qwen3ForCausalLM";
    }
    found = "architectures " + printable(arch->dump());
  }
  if (!model_type.empty())
    found += (found.empty() ? "" : ", ") + std::string("model_type ") +
             quote(model_type);
  bool type_ok = model_type == "qwen3";
  if ((arch && !arch_ok) || (!model_type.empty() && !type_ok) ||
      (!arch && model_type.empty()))
    throw Error(path + ": not a Qwen3 model (" +
                (found.empty() ? "no architectures or model_type" : found) +
                "); the engine runs Qwen3ForCausalLM");
}

void check_unsupported(const Fields &f, const std::string &path) {
  if (f.boolean_or("attention_bias", false))
    throw Error(path + ": attention_bias true is unsupported");
  if (const json *rs = f.find("rope_scaling"))
    throw Error(path + ": rope_scaling is unsupported (got " +
                printable(rs->dump(), 80) + ")");
  if (f.boolean_or("use_sliding_window", false))
    throw Error(path + ": use_sliding_window true is unsupported");
  const std::string act = f.string_or("hidden_act", "silu");
  if (act != "silu")
    throw Error(path + ": hidden_act " + quote(act) +
                " is unsupported (only silu)");
  if (const json *lt = f.find("layer_types")) {
    if (!lt->is_array())
      throw f.wrong_type("layer_types", "a list of strings", *lt);
    for (const json &t : *lt)
      if (!t.is_string() ||
          t.get_ref<const std::string &>() != "full_attention")
        throw Error(path +
                    ": layer_types other than full_attention are "
                    "unsupported (got " +
                    printable(t.dump(), 80) + ")");
  }
}

json ids_json(const std::vector<int32_t> &ids) {
  if (ids.empty())
    return nullptr;
  if (ids.size() == 1)
    return ids[0];
  return ids;
}

// 1000000.0 is written 1000000, as in the official files.
json number_json(double x) {
  if (std::floor(x) == x && std::fabs(x) < 9e15)
    return static_cast<int64_t>(x);
  return x;
}

// RoPE's base: rope_theta, or rope_parameters {"rope_type": "default",
// "rope_theta": ...}, where transformers 5 keeps RoPE's settings (a file
// with only that must not silently get the default 10000).
double read_rope_theta(const Fields &f, const std::string &path) {
  const double theta = f.number_or("rope_theta", 10000.0);
  const json *rp = f.find("rope_parameters");
  if (!rp)
    return theta;
  if (!rp->is_object())
    throw f.wrong_type("rope_parameters", "an object", *rp);
  const std::string where = path + ": rope_parameters"; // outlives p
  const Fields p(*rp, where);
  const std::string type = p.string_or("rope_type", "default");
  if (type != "default")
    throw Error(path + ": rope_parameters: rope_type " + quote(type) +
                " is unsupported (only default)");
  if (!p.find("rope_theta"))
    return theta;
  const double inner = p.number_or("rope_theta", theta);
  if (f.find("rope_theta") && inner != theta)
    throw Error(path + ": rope_theta " + number_json(theta).dump() +
                " and rope_parameters' rope_theta " +
                number_json(inner).dump() + " disagree");
  return inner;
}

} // namespace

int64_t ModelConfig::num_parameters() const {
  const int64_t h = hidden_size, d = head_dim;
  const int64_t attention =
      h * num_attention_heads * d * 2 + h * num_key_value_heads * d * 2 + 2 * d;
  const int64_t mlp = 3 * h * intermediate_size;
  const int64_t layer = attention + mlp + 2 * h;
  const int64_t embedding = vocab_size * h;
  return embedding + num_hidden_layers * layer + h +
         (tie_word_embeddings ? 0 : embedding);
}

void validate_model_config(const ModelConfig &c, const std::string &source) {
  auto positive = [&](const char *name, int64_t v) {
    if (v <= 0)
      throw Error(source + ": " + name + " must be positive, got " +
                  std::to_string(v));
  };
  positive("vocab_size", c.vocab_size);
  positive("hidden_size", c.hidden_size);
  positive("intermediate_size", c.intermediate_size);
  positive("num_hidden_layers", c.num_hidden_layers);
  positive("num_attention_heads", c.num_attention_heads);
  positive("num_key_value_heads", c.num_key_value_heads);
  positive("head_dim", c.head_dim);
  positive("max_position_embeddings", c.max_position_embeddings);
  if (c.num_attention_heads % c.num_key_value_heads != 0)
    throw Error(source + ": num_attention_heads (" +
                std::to_string(c.num_attention_heads) +
                ") is not a multiple of num_key_value_heads (" +
                std::to_string(c.num_key_value_heads) + ")");
  if (c.head_dim % 2 != 0)
    throw Error(source + ": head_dim must be even for RoPE, got " +
                std::to_string(c.head_dim));
  // Beyond 2^31 elements per matrix the kernels' int indexing is not
  // promised; no real Qwen3 comes near.
  const int64_t limit = int64_t(1) << 31;
  for (auto [name, v] : {std::pair{"hidden_size", c.hidden_size},
                         {"intermediate_size", c.intermediate_size},
                         {"vocab_size", c.vocab_size},
                         {"num_hidden_layers", c.num_hidden_layers},
                         {"head_dim", c.head_dim},
                         {"num_attention_heads", c.num_attention_heads}})
    if (v >= limit)
      throw Error(source + ": " + name + " is too large (" + std::to_string(v) +
                  ")");
  if (!(c.rms_norm_eps > 0) || !std::isfinite(c.rms_norm_eps))
    throw Error(source + ": rms_norm_eps must be positive, got " +
                format_number(c.rms_norm_eps));
  if (!(c.rope_theta > 0) || !std::isfinite(c.rope_theta))
    throw Error(source + ": rope_theta must be positive, got " +
                format_number(c.rope_theta));
  for (auto [name, ids] : {std::pair{"bos_token_id", &c.bos_token_ids},
                           {"eos_token_id", &c.eos_token_ids}})
    for (int32_t id : *ids)
      if (id < 0 || id >= c.vocab_size)
        throw Error(source + ": " + name + " " + std::to_string(id) +
                    " is outside the vocabulary (" +
                    std::to_string(c.vocab_size) + " tokens)");
}

ModelConfig load_model_config(const std::string &folder) {
  const std::string path = join_path(folder, "config.json");
  const json j = read_object(path);
  const Fields f(j, path);
  check_architecture(f, path);
  check_unsupported(f, path);

  ModelConfig c;
  c.vocab_size = f.integer("vocab_size");
  c.hidden_size = f.integer("hidden_size");
  c.intermediate_size = f.integer("intermediate_size");
  c.num_hidden_layers = f.integer("num_hidden_layers");
  c.num_attention_heads = f.integer("num_attention_heads");
  c.num_key_value_heads =
      f.integer_or("num_key_value_heads", c.num_attention_heads);
  if (f.find("head_dim")) {
    c.head_dim = f.integer("head_dim");
  } else {
    if (c.num_attention_heads <= 0 ||
        c.hidden_size % c.num_attention_heads != 0)
      throw Error(path + ": missing field 'head_dim' (hidden_size " +
                  std::to_string(c.hidden_size) +
                  " is not a multiple of num_attention_heads " +
                  std::to_string(c.num_attention_heads) + ")");
    c.head_dim = c.hidden_size / c.num_attention_heads;
  }
  c.rms_norm_eps = f.number_or("rms_norm_eps", 1e-6);
  c.rope_theta = read_rope_theta(f, path);
  c.max_position_embeddings = f.integer_or("max_position_embeddings", 32768);
  c.tie_word_embeddings = f.boolean_or("tie_word_embeddings", false);
  // transformers 5 renamed torch_dtype to dtype.
  c.torch_dtype = f.string_or("torch_dtype", f.string_or("dtype", ""));
  c.bos_token_ids = f.ids("bos_token_id");
  c.eos_token_ids = f.ids("eos_token_id");
  validate_model_config(c, path);
  return c;
}

std::string torch_dtype_name(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "float32";
  case DType::F16:
    return "float16";
  case DType::BF16:
    return "bfloat16";
  }
  return "";
}

std::string model_config_json(const ModelConfig &c) {
  // ordered_json keeps transformers' (alphabetical) order readable and
  // stable, so two runs write identical files.
  nlohmann::ordered_json j;
  j["architectures"] = {"Qwen3ForCausalLM"};
  j["attention_bias"] = false;
  j["attention_dropout"] = 0.0;
  j["bos_token_id"] = ids_json(c.bos_token_ids);
  j["eos_token_id"] = ids_json(c.eos_token_ids);
  j["head_dim"] = c.head_dim;
  j["hidden_act"] = "silu";
  j["hidden_size"] = c.hidden_size;
  j["initializer_range"] = 0.02;
  j["intermediate_size"] = c.intermediate_size;
  j["max_position_embeddings"] = c.max_position_embeddings;
  j["max_window_layers"] = c.num_hidden_layers;
  j["model_type"] = "qwen3";
  j["num_attention_heads"] = c.num_attention_heads;
  j["num_hidden_layers"] = c.num_hidden_layers;
  j["num_key_value_heads"] = c.num_key_value_heads;
  j["rms_norm_eps"] = c.rms_norm_eps;
  j["rope_scaling"] = nullptr;
  j["rope_theta"] = number_json(c.rope_theta);
  j["sliding_window"] = nullptr;
  j["tie_word_embeddings"] = c.tie_word_embeddings;
  if (!c.torch_dtype.empty())
    j["torch_dtype"] = c.torch_dtype;
  j["transformers_version"] = "4.51.0";
  j["use_cache"] = true;
  j["use_sliding_window"] = false;
  j["vocab_size"] = c.vocab_size;
  return j.dump(2) + "\n";
}

GenerationConfig load_generation_config(const std::string &folder) {
  const std::string path = join_path(folder, "generation_config.json");
  GenerationConfig g;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 && errno == ENOENT)
    return g; // optional file: transformers' defaults
  const json j = read_object(path);
  const Fields f(j, path);
  g.eos_token_ids = f.ids("eos_token_id");
  g.bos_token_id = f.id_or_none("bos_token_id");
  g.pad_token_id = f.id_or_none("pad_token_id");
  g.temperature = f.number_or("temperature", g.temperature);
  g.top_k = f.integer_or("top_k", g.top_k);
  g.top_p = f.number_or("top_p", g.top_p);
  g.do_sample = f.boolean_or("do_sample", g.do_sample);
  if (!(g.temperature >= 0) || !std::isfinite(g.temperature))
    throw f.error("temperature",
                  "must be >= 0, got " + format_number(g.temperature));
  if (g.top_k < 0)
    throw f.error("top_k", "must be >= 0, got " + std::to_string(g.top_k));
  if (!(g.top_p > 0 && g.top_p <= 1))
    throw f.error("top_p", "must be in (0, 1], got " + format_number(g.top_p));
  return g;
}

std::string generation_config_json(const GenerationConfig &g) {
  nlohmann::ordered_json j;
  if (g.bos_token_id)
    j["bos_token_id"] = *g.bos_token_id;
  j["do_sample"] = g.do_sample;
  if (!g.eos_token_ids.empty())
    j["eos_token_id"] = ids_json(g.eos_token_ids);
  if (g.pad_token_id)
    j["pad_token_id"] = *g.pad_token_id;
  j["temperature"] = g.temperature;
  j["top_k"] = g.top_k;
  j["top_p"] = g.top_p;
  j["transformers_version"] = "4.51.0";
  return j.dump(2) + "\n";
}

} // namespace engine
