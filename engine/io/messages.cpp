// engine/io/messages.cpp - formatting untrusted input for one-line errors.
#include "engine/io/messages.h"

#include <nlohmann/json.hpp>

namespace engine {

std::string printable(std::string_view text, size_t max_bytes) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  size_t n = std::min(text.size(), max_bytes);
  out.reserve(n + 8);
  for (size_t i = 0; i < n; ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (n < text.size())
    out += "...";
  return out;
}

std::string quoted(std::string_view text) {
  return "'" + printable(text) + "'";
}

std::string format_shape(const std::vector<int64_t> &shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

const char *json_type_name(const nlohmann::json &value) {
  switch (value.type()) {
  case nlohmann::json::value_t::null: return "null";
  case nlohmann::json::value_t::object: return "an object";
  case nlohmann::json::value_t::array: return "an array";
  case nlohmann::json::value_t::string: return "a string";
  case nlohmann::json::value_t::boolean: return "a boolean";
  case nlohmann::json::value_t::number_integer:
  case nlohmann::json::value_t::number_unsigned: return "an integer";
  case nlohmann::json::value_t::number_float: return "a number";
  case nlohmann::json::value_t::binary: return "binary data";
  case nlohmann::json::value_t::discarded: return "nothing";
  }
  return "something else";
}

std::string join_path(const std::string &folder, std::string_view file) {
  if (folder.empty())
    return std::string(file);
  std::string out = folder;
  if (out.back() != '/')
    out += '/';
  out += file;
  return out;
}

} // namespace engine
