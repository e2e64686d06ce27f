// engine/io/messages.cpp - reading untrusted input and naming it in errors.
#include "engine/io/messages.h"

#include "engine/error.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

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

std::string quote(std::string_view text) { return "'" + printable(text) + "'"; }

std::string format_number(double x) {
  char buf[32];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, x);
    if (std::strtod(buf, nullptr) == x)
      break;
  }
  return buf;
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
  case nlohmann::json::value_t::null:
    return "null";
  case nlohmann::json::value_t::object:
    return "an object";
  case nlohmann::json::value_t::array:
    return "an array";
  case nlohmann::json::value_t::string:
    return "a string";
  case nlohmann::json::value_t::boolean:
    return "a boolean";
  case nlohmann::json::value_t::number_integer:
  case nlohmann::json::value_t::number_unsigned:
    return "an integer";
  case nlohmann::json::value_t::number_float:
    return "a number";
  case nlohmann::json::value_t::binary:
    return "binary data";
  case nlohmann::json::value_t::discarded:
    return "nothing";
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

std::string read_file(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw Error(path + ": cannot open (" + std::strerror(errno) + ")");
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      int err = errno;
      ::close(fd);
      throw Error(path + ": read failed (" + std::strerror(err) + ")");
    }
    if (n == 0)
      break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

nlohmann::json read_json_file(const std::string &path) {
  std::string text = read_file(path);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error &e) {
    // Line and column of the byte the parser stopped at, as editors count.
    size_t end = std::min<size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
    size_t line = 1, column = 1;
    for (size_t i = 0; i < end; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw Error(path + ": not valid JSON (line " + std::to_string(line) +
                ", column " + std::to_string(column) + ")");
  } catch (const nlohmann::json::exception &) {
    throw Error(path + ": not valid JSON (a number is out of range)");
  }
}

} // namespace engine
