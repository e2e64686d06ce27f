// engine/io/messages.h - reading untrusted input and naming it in errors.
//
// Every engine::Error names the input and the problem on one line. Tensor
// names, JSON strings and file names come from files we do not control, so
// they pass through printable() before they reach a message: a name holding a
// newline or a terminal escape must not break the line or the terminal.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace engine {

/// `text` with printable ASCII kept and every other byte written as \xNN,
/// cut to `max_bytes` input bytes (with "..." appended when cut).
std::string printable(std::string_view text, size_t max_bytes = 200);

/// `text` quoted for a message: 'name', through printable().
std::string quote(std::string_view text);

/// `x` in the shortest form that reads back the same ("0.6", "1e-06").
std::string format_number(double x);

/// "[4, 8]"; "[]" for a scalar.
std::string format_shape(const std::vector<int64_t> &shape);

/// The JSON type of `value` in words ("a string", "an integer", "null", ...).
const char *json_type_name(const nlohmann::json &value);

/// `folder` + "/" + `file`, without doubling a trailing slash.
std::string join_path(const std::string &folder, std::string_view file);

/// The whole file at `path`. Throws engine::Error "<path>: cannot open
/// (reason)" or "<path>: read failed (reason)".
std::string read_file(const std::string &path);

/// The JSON document in the file at `path`. Throws engine::Error as
/// read_file does, or "<path>: not valid JSON (line L, column C)".
nlohmann::json read_json_file(const std::string &path);

} // namespace engine
