//===- Glob.h - fnmatch-compatible globs over string_views ------*- C++ -*-===//
//
// The globs of the selection language: `*` matches any run of characters,
// '/' and "::" included; `?`, `[...]` (ranges, negation, [:class:]) and `\`
// escapes work as in fnmatch(3) with flags 0.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_GLOB_H
#define PERFCC_GLOB_H

#include <cstddef>
#include <optional>
#include <string_view>

namespace perfcc {

/// fnmatch-style glob where `*` also matches '/' and ':'.
bool globMatch(std::string_view pattern, std::string_view text);

/// True when \p fileGlob matches \p path as a whole or on a suffix starting at
/// a path component ("engine/kv/*.cpp" matches "/src/engine/kv/block.cpp").
bool fileGlobMatch(std::string_view fileGlob, std::string_view path);

/// A problem in a glob: where (offset into the glob) and what.
struct GlobIssue {
  std::size_t offset;
  const char *message;
};

/// Finds what fnmatch would silently read differently from what was meant:
/// an unterminated '[' and a backslash that escapes nothing.
std::optional<GlobIssue> checkGlob(std::string_view glob);

} // namespace perfcc

#endif // PERFCC_GLOB_H
