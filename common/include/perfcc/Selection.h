//===- Selection.h - the targets-file selection language --------*- C++ -*-===//
//
// One grammar picks functions at build time (which get probes) and at run time
// (which probes record, which get delays). Two syntaxes are accepted:
//
//  * perfcc's own: one pattern per line, `FUNC` or `FILE:FUNC`, `!` excludes,
//    `#` starts a comment, the last matching line decides
//    (docs/selecting-functions.md);
//  * Score-P filter files (SCOREP_REGION_NAMES_BEGIN / SCOREP_FILE_NAMES_BEGIN
//    blocks of INCLUDE / EXCLUDE rules), so users can reuse their filters.
//
// Plain C++17 and libc only: it is linked into the LLVM plugin and into the
// runtime alike, and must not depend on either side.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_SELECTION_H
#define PERFCC_SELECTION_H

#include "perfcc/Glob.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfcc {

/// What a selection says about one function.
enum class Verdict {
  NoMatch, ///< no rule matched; the caller applies its default
  Include, ///< the last matching rule selects it
  Exclude, ///< the last matching rule rejects it
};

/// The names a function is matched by.
struct SymbolRef {
  std::string_view qualifiedName; ///< demangled, without parameter list
  std::string_view mangledName;   ///< linkage name (equal to the above for C)
  std::string_view file;          ///< source path as the compiler saw it
};

/// One parsed rule, kept for diagnostics and the "matched nothing" warning.
struct Rule {
  bool exclude = false;
  bool fileOnly = false;     ///< Score-P file block: decides before names
  bool matchMangled = false; ///< Score-P MANGLED: FUNC glob is over the
                             ///< mangled name
  std::string fileGlob;      ///< empty: any file
  std::string funcGlob;      ///< empty: any function (file-only rules)
  std::string text;          ///< the pattern as written, for messages
  unsigned line = 0, column = 0;
};

class Selection {
public:
  /// Parses \p text; \p sourceName names it in diagnostics. On a malformed
  /// line returns nullopt and sets \p error to "NAME:LINE:COL: error: ...".
  static std::optional<Selection>
  parse(std::string_view text, std::string sourceName, std::string &error);

  /// Reads and parses the file at \p path. A file that cannot be read gives
  /// "PATH: error: cannot read targets file: REASON".
  static std::optional<Selection> parseFile(const std::string &path,
                                            std::string &error);

  /// Matches one function. FUNC globs are tried against the qualified name
  /// and the mangled name; FILE globs against the whole path and against each
  /// suffix that starts at a path component. `*` matches any run of
  /// characters, `::` and `/` included; `?` and `[...]` work as in fnmatch.
  /// Score-P files evaluate their file rules first; a function a file rule
  /// excludes cannot be re-included by name. Thread-safe (const, no state).
  Verdict match(const SymbolRef &symbol) const;

  /// Like match(), also returning the index of the deciding rule (or -1), so
  /// callers can count which rules ever matched.
  Verdict match(const SymbolRef &symbol, int &decidingRule) const;

  /// True for a Score-P filter file, where functions no rule names are
  /// included (Score-P's default); in perfcc's syntax they are not.
  bool isScoreP() const { return scoreP; }

  const std::vector<Rule> &rules() const { return ruleList; }
  const std::string &sourceName() const { return source; }

  /// "NAME:LINE:COL: warning: pattern 'P' matches no function" for each rule
  /// whose index is not in \p usedRules (a bitmap indexed by rule).
  std::vector<std::string>
  unusedRuleWarnings(const std::vector<bool> &usedRules) const;

private:
  std::vector<Rule> ruleList;
  std::string source;
  bool scoreP = false;
};

} // namespace perfcc

#endif // PERFCC_SELECTION_H
