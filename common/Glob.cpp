//===- Glob.cpp - fnmatch-compatible globs over string_views -------------===//
//
// A small fnmatch(3)-compatible matcher (flags 0, so `*` crosses '/' and
// "::") that works on string_views, because matching runs once per function
// at build time and once per probe at start-up and must not allocate.
//
//===----------------------------------------------------------------------===//

#include "perfcc/Glob.h"

#include <cctype>

namespace perfcc {
namespace {

constexpr std::size_t npos = std::string_view::npos;

bool classMatches(std::string_view name, unsigned char c, bool &known) {
  known = true;
  if (name == "alpha")
    return std::isalpha(c);
  if (name == "digit")
    return std::isdigit(c);
  if (name == "alnum")
    return std::isalnum(c);
  if (name == "upper")
    return std::isupper(c);
  if (name == "lower")
    return std::islower(c);
  if (name == "space")
    return std::isspace(c);
  if (name == "blank")
    return c == ' ' || c == '\t';
  if (name == "punct")
    return std::ispunct(c);
  if (name == "xdigit")
    return std::isxdigit(c);
  if (name == "cntrl")
    return std::iscntrl(c);
  if (name == "graph")
    return std::isgraph(c);
  if (name == "print")
    return std::isprint(c);
  known = false;
  return false;
}

/// Reads one possibly backslash-escaped character of a bracket expression.
std::size_t readBracketChar(std::string_view glob, std::size_t at,
                            unsigned char &out) {
  if (glob[at] == '\\' && at + 1 < glob.size()) {
    out = static_cast<unsigned char>(glob[at + 1]);
    return at + 2;
  }
  out = static_cast<unsigned char>(glob[at]);
  return at + 1;
}

/// Walks the bracket expression opening at \p glob[open]. Returns the offset
/// of its closing ']', or npos when it has none (then '[' is a literal). When
/// \p c is a character (not -1), \p matched tells whether the set holds it.
std::size_t scanBracket(std::string_view glob, std::size_t open, int c,
                        bool &matched) {
  std::size_t n = glob.size(), j = open + 1;
  bool negate = false;
  if (j < n && (glob[j] == '!' || glob[j] == '^')) {
    negate = true;
    ++j;
  }
  bool hit = false;
  bool first = true;
  while (j < n) {
    if (glob[j] == ']' && !first) {
      matched = hit != negate;
      return j;
    }
    first = false;
    if (glob[j] == '[' && j + 1 < n && glob[j + 1] == ':') {
      std::size_t close = glob.find(":]", j + 2);
      if (close != npos) {
        bool known = false;
        bool in = classMatches(glob.substr(j + 2, close - j - 2),
                               static_cast<unsigned char>(c), known);
        if (known) {
          hit = hit || (c >= 0 && in);
          j = close + 2;
          continue;
        }
      }
    }
    unsigned char lo = 0, hi = 0;
    j = readBracketChar(glob, j, lo);
    hi = lo;
    if (j + 1 < n && glob[j] == '-' && glob[j + 1] != ']')
      j = readBracketChar(glob, j + 1, hi);
    if (c >= lo && c <= hi)
      hit = true;
  }
  return npos;
}

/// Matches the one-character element of \p glob at \p at against \p c and
/// sets \p next to the offset after the element.
bool elementMatches(std::string_view glob, std::size_t at, unsigned char c,
                    std::size_t &next) {
  switch (glob[at]) {
  case '?':
    next = at + 1;
    return true;
  case '[': {
    bool matched = false;
    std::size_t close = scanBracket(glob, at, c, matched);
    if (close != npos) {
      next = close + 1;
      return matched;
    }
    next = at + 1;
    return c == '[';
  }
  case '\\':
    if (at + 1 < glob.size()) {
      next = at + 2;
      return c == static_cast<unsigned char>(glob[at + 1]);
    }
    next = at + 1;
    return c == '\\';
  default:
    next = at + 1;
    return c == static_cast<unsigned char>(glob[at]);
  }
}

} // namespace

/// Finds what fnmatch would silently read differently from what was meant:
/// an unterminated '[' and a backslash that escapes nothing.
std::optional<GlobIssue> checkGlob(std::string_view glob) {
  for (std::size_t i = 0; i < glob.size(); ++i) {
    if (glob[i] == '\\') {
      if (i + 1 == glob.size())
        return GlobIssue{i, "'\\' at the end of a pattern escapes nothing"};
      ++i;
    } else if (glob[i] == '[') {
      bool unused = false;
      std::size_t close = scanBracket(glob, i, -1, unused);
      if (close == npos)
        return GlobIssue{i, "unbalanced '[' in pattern (write '\\[' for a "
                            "literal '[')"};
      i = close;
    }
  }
  return std::nullopt;
}

bool globMatch(std::string_view pattern, std::string_view text) {
  // Greedy matching with one backtrack point: every element other than '*'
  // consumes exactly one character, so retrying only the latest '*' with one
  // more character is complete.
  std::size_t p = 0, t = 0, starP = npos, starT = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      while (p < pattern.size() && pattern[p] == '*')
        ++p;
      if (p == pattern.size())
        return true;
      starP = p;
      starT = t;
      continue;
    }
    std::size_t next = 0;
    if (p < pattern.size() &&
        elementMatches(pattern, p, static_cast<unsigned char>(text[t]), next)) {
      p = next;
      ++t;
      continue;
    }
    if (starP == npos)
      return false;
    p = starP;
    t = ++starT;
  }
  while (p < pattern.size() && pattern[p] == '*')
    ++p;
  return p == pattern.size();
}

bool fileGlobMatch(std::string_view fileGlob, std::string_view path) {
  if (globMatch(fileGlob, path))
    return true;
  for (std::size_t i = 0; i < path.size(); ++i)
    if (path[i] == '/' && i + 1 < path.size() &&
        globMatch(fileGlob, path.substr(i + 1)))
      return true;
  return false;
}

} // namespace perfcc
