//===- Selection.cpp - the targets-file selection language ----------------===//
//
// Parses targets files, in perfcc's line syntax or as Score-P filter files,
// into an ordered list of rules, and decides for one function which rule (if
// any) selects it; globs are matched by perfcc/Glob.h. Diagnostics are
// "NAME:LINE:COL: error: ..." with 1-based byte columns into the line as
// written.
//
//===----------------------------------------------------------------------===//

#include "perfcc/Selection.h"

#include "perfcc/Glob.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace perfcc {
namespace {

constexpr std::size_t npos = std::string_view::npos;

constexpr std::string_view FileBegin = "SCOREP_FILE_NAMES_BEGIN";
constexpr std::string_view FileEnd = "SCOREP_FILE_NAMES_END";
constexpr std::string_view RegionBegin = "SCOREP_REGION_NAMES_BEGIN";
constexpr std::string_view RegionEnd = "SCOREP_REGION_NAMES_END";

bool isBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/// True when \p text[pos] is escaped by an odd run of backslashes before it.
bool isEscaped(std::string_view text, std::size_t pos) {
  std::size_t run = 0;
  while (run < pos && text[pos - run - 1] == '\\')
    ++run;
  return run % 2 == 1;
}

/// Offset of the first unescaped '#' in \p line, or its length.
std::size_t commentStart(std::string_view line) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\')
      ++i;
    else if (line[i] == '#')
      return i;
  }
  return line.size();
}

/// Narrows [begin, end) of \p line to drop blanks at both ends, keeping a
/// trailing blank that is escaped.
void trim(std::string_view line, std::size_t &begin, std::size_t &end) {
  while (begin < end && isBlank(line[begin]))
    ++begin;
  while (end > begin && isBlank(line[end - 1]) && !isEscaped(line, end - 1))
    --end;
}

/// Splits \p text into lines, dropping the '\r' of CRLF endings.
std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  for (;;) {
    std::size_t newline = text.find('\n', start);
    std::string_view line =
        text.substr(start, newline == npos ? npos : newline - start);
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    lines.push_back(line);
    if (newline == npos)
      return lines;
    start = newline + 1;
  }
}

std::string quoted(std::string_view s) {
  std::string out = "'";
  out.append(s.data(), s.size());
  out += "'";
  return out;
}

/// True for a token written like a keyword: an upper-case identifier.
bool looksLikeKeyword(std::string_view token) {
  if (token.empty())
    return false;
  for (char c : token)
    if (!(std::isupper(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  return true;
}

bool equalsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::toupper(static_cast<unsigned char>(a[i])) !=
        std::toupper(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

/// Parses both syntaxes into rules; on the first problem fills \p error.
class Parser {
public:
  Parser(std::string_view text, const std::string &source, std::string &error)
      : lines(splitLines(text)), source(source), error(error) {}

  /// True when the first line with content opens a Score-P block.
  bool isScoreP() const {
    for (std::string_view line : lines) {
      std::size_t begin = 0, end = commentStart(line);
      trim(line, begin, end);
      if (begin == end)
        continue;
      std::size_t stop = begin;
      while (stop < end && !isBlank(line[stop]))
        ++stop;
      std::string_view first = line.substr(begin, stop - begin);
      return first == RegionBegin || first == FileBegin;
    }
    return false;
  }

  bool parsePerfcc(std::vector<Rule> &rules) {
    for (std::size_t i = 0; i < lines.size(); ++i)
      if (!parsePerfccLine(lines[i], static_cast<unsigned>(i + 1), rules))
        return false;
    return true;
  }

  bool parseScoreP(std::vector<Rule> &rules);

private:
  struct Token {
    std::string_view text;
    unsigned line = 0, column = 0;
  };

  bool fail(unsigned line, std::size_t offset, const std::string &message) {
    error = source + ":" + std::to_string(line) + ":" +
            std::to_string(offset + 1) + ": error: " + message;
    return false;
  }
  bool fail(const Token &at, const std::string &message) {
    return fail(at.line, at.column - 1, message);
  }

  bool parsePerfccLine(std::string_view line, unsigned lineNo,
                       std::vector<Rule> &rules);
  bool checkPart(std::string_view line, unsigned lineNo, std::size_t begin,
                 std::size_t end);
  std::vector<Token> tokenize() const;

  std::vector<std::string_view> lines;
  const std::string &source;
  std::string &error;
};

bool Parser::checkPart(std::string_view line, unsigned lineNo,
                       std::size_t begin, std::size_t end) {
  if (line[begin] == '!')
    return fail(lineNo, begin,
                "'!' is only allowed at the start of a line, before the whole "
                "pattern");
  if (auto issue = checkGlob(line.substr(begin, end - begin)))
    return fail(lineNo, begin + issue->offset, issue->message);
  return true;
}

bool Parser::parsePerfccLine(std::string_view line, unsigned lineNo,
                             std::vector<Rule> &rules) {
  std::size_t begin = 0, end = commentStart(line);
  trim(line, begin, end);
  if (begin == end)
    return true;

  Rule rule;
  rule.text = std::string(line.substr(begin, end - begin));
  rule.line = lineNo;
  rule.column = static_cast<unsigned>(begin + 1);

  std::size_t start = begin;
  if (line[start] == '!') {
    rule.exclude = true;
    ++start;
    while (start < end && isBlank(line[start]))
      ++start;
    if (start == end)
      return fail(lineNo, begin, "'!' must be followed by a pattern");
  }

  // The separator is a ':' with no ':' beside it; "::" is part of a name.
  std::size_t sep = npos;
  for (std::size_t i = start; i < end; ++i) {
    if (line[i] == '\\') {
      ++i;
      continue;
    }
    if (line[i] != ':')
      continue;
    bool colonBefore = i > start && line[i - 1] == ':';
    bool colonAfter = i + 1 < end && line[i + 1] == ':';
    if (colonBefore || colonAfter)
      continue;
    if (sep != npos)
      return fail(lineNo, i,
                  "second ':' separator: a pattern is FUNC or FILE:FUNC "
                  "(a scope is written '::')");
    sep = i;
  }

  std::size_t funcBegin = start, funcEnd = end;
  if (sep != npos) {
    std::size_t fileBegin = start, fileEnd = sep;
    trim(line, fileBegin, fileEnd);
    if (fileBegin == fileEnd)
      return fail(lineNo, sep, "empty file pattern before ':'");
    funcBegin = sep + 1;
    trim(line, funcBegin, funcEnd);
    if (funcBegin == funcEnd)
      return fail(lineNo, sep, "empty function pattern after ':'");
    if (!checkPart(line, lineNo, fileBegin, fileEnd))
      return false;
    rule.fileGlob = std::string(line.substr(fileBegin, fileEnd - fileBegin));
  }
  if (!checkPart(line, lineNo, funcBegin, funcEnd))
    return false;
  rule.funcGlob = std::string(line.substr(funcBegin, funcEnd - funcBegin));
  rules.push_back(std::move(rule));
  return true;
}

std::vector<Parser::Token> Parser::tokenize() const {
  std::vector<Token> tokens;
  for (std::size_t n = 0; n < lines.size(); ++n) {
    std::string_view line = lines[n];
    std::size_t end = commentStart(line);
    std::size_t i = 0;
    while (i < end) {
      if (isBlank(line[i])) {
        ++i;
        continue;
      }
      std::size_t start = i;
      while (i < end && !isBlank(line[i]))
        i = line[i] == '\\' ? std::min(i + 2, end) : i + 1;
      tokens.push_back({line.substr(start, i - start),
                        static_cast<unsigned>(n + 1),
                        static_cast<unsigned>(start + 1)});
    }
  }
  return tokens;
}

bool Parser::parseScoreP(std::vector<Rule> &rules) {
  enum class Block { None, Files, Regions };
  enum class Mode { None, Include, Exclude };
  Block block = Block::None;
  Mode mode = Mode::None;
  bool mangled = false;
  Token opened;

  auto blockName = [](Block b) {
    return std::string(b == Block::Files ? "SCOREP_FILE_NAMES"
                                         : "SCOREP_REGION_NAMES");
  };

  for (const Token &token : tokenize()) {
    std::string_view t = token.text;
    if (t == FileBegin || t == RegionBegin) {
      if (block != Block::None)
        return fail(token, quoted(t) + " inside the " + blockName(block) +
                               " block opened on line " +
                               std::to_string(opened.line) +
                               "; close it with " +
                               quoted(blockName(block) + "_END") + " first");
      block = t == FileBegin ? Block::Files : Block::Regions;
      opened = token;
      mode = Mode::None;
      mangled = false;
      continue;
    }
    if (t == FileEnd || t == RegionEnd) {
      Block closes = t == FileEnd ? Block::Files : Block::Regions;
      if (block == Block::None)
        return fail(token, quoted(t) + " without a matching " +
                               quoted(blockName(closes) + "_BEGIN"));
      if (block != closes)
        return fail(token, quoted(t) + " inside the " + blockName(block) +
                               " block opened on line " +
                               std::to_string(opened.line) + "; expected " +
                               quoted(blockName(block) + "_END"));
      block = Block::None;
      continue;
    }
    if (t == "INCLUDE" || t == "EXCLUDE") {
      if (block == Block::None)
        return fail(token, quoted(t) + " rule outside a SCOREP_REGION_NAMES or "
                                       "SCOREP_FILE_NAMES block");
      mode = t == "INCLUDE" ? Mode::Include : Mode::Exclude;
      mangled = false;
      continue;
    }
    if (t == "MANGLED" || t == "DEMANGLED") {
      if (block != Block::Regions)
        return fail(token, quoted(t) + " is only allowed in a rule of a "
                                       "SCOREP_REGION_NAMES block");
      if (mode == Mode::None)
        return fail(token, quoted(t) + " must follow INCLUDE or EXCLUDE");
      mangled = t == "MANGLED";
      continue;
    }
    bool keywordPlace = block == Block::None || mode == Mode::None;
    if (looksLikeKeyword(t) && (keywordPlace || t.substr(0, 7) == "SCOREP_"))
      return fail(token, "unknown keyword " + quoted(t));
    if (block == Block::None)
      return fail(token, "expected 'SCOREP_REGION_NAMES_BEGIN' or "
                         "'SCOREP_FILE_NAMES_BEGIN', found " +
                             quoted(t));
    if (mode == Mode::None) {
      std::string hint;
      for (std::string_view keyword : {"INCLUDE", "EXCLUDE"})
        if (equalsIgnoringCase(t, keyword))
          hint =
              " (keywords are case-sensitive: write " + quoted(keyword) + ")";
      return fail(token, "pattern " + quoted(t) +
                             " before any INCLUDE or EXCLUDE" + hint);
    }
    if (auto issue = checkGlob(t))
      return fail(token.line, token.column - 1 + issue->offset, issue->message);

    Rule rule;
    rule.exclude = mode == Mode::Exclude;
    rule.fileOnly = block == Block::Files;
    rule.matchMangled = mangled;
    (rule.fileOnly ? rule.fileGlob : rule.funcGlob) = std::string(t);
    rule.text = std::string(t);
    rule.line = token.line;
    rule.column = token.column;
    rules.push_back(std::move(rule));
  }
  if (block != Block::None)
    return fail(opened, quoted(opened.text) + " without a matching " +
                            quoted(blockName(block) + "_END"));
  return true;
}

bool funcMatches(const std::string &glob, const SymbolRef &symbol) {
  if (globMatch(glob, symbol.qualifiedName))
    return true;
  return symbol.mangledName != symbol.qualifiedName &&
         !symbol.mangledName.empty() && globMatch(glob, symbol.mangledName);
}

} // namespace

std::optional<Selection> Selection::parse(std::string_view text,
                                          std::string sourceName,
                                          std::string &error) {
  Selection selection;
  selection.source = std::move(sourceName);
  Parser parser(text, selection.source, error);
  selection.scoreP = parser.isScoreP();
  bool ok = selection.scoreP ? parser.parseScoreP(selection.ruleList)
                             : parser.parsePerfcc(selection.ruleList);
  if (!ok)
    return std::nullopt;
  return selection;
}

std::optional<Selection> Selection::parseFile(const std::string &path,
                                              std::string &error) {
  auto cannotRead = [&](int err) {
    error = path + ": error: cannot read targets file: " + std::strerror(err);
  };
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file) {
    cannotRead(errno);
    return std::nullopt;
  }
  std::string text;
  char buffer[4096];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, file)) > 0)
    text.append(buffer, got);
  int readError = std::ferror(file) ? errno : 0;
  std::fclose(file);
  if (readError) {
    cannotRead(readError);
    return std::nullopt;
  }
  return parse(text, path, error);
}

Verdict Selection::match(const SymbolRef &symbol) const {
  int decidingRule = -1;
  return match(symbol, decidingRule);
}

Verdict Selection::match(const SymbolRef &symbol, int &decidingRule) const {
  decidingRule = -1;
  auto decide = [&](std::size_t index) {
    decidingRule = static_cast<int>(index);
    return ruleList[index].exclude ? Verdict::Exclude : Verdict::Include;
  };

  if (!scoreP) {
    for (std::size_t i = ruleList.size(); i-- > 0;) {
      const Rule &rule = ruleList[i];
      if ((rule.fileGlob.empty() ||
           fileGlobMatch(rule.fileGlob, symbol.file)) &&
          (rule.funcGlob.empty() || funcMatches(rule.funcGlob, symbol)))
        return decide(i);
    }
    return Verdict::NoMatch;
  }

  // Score-P: the last matching file rule is looked at first; a file it
  // excludes stays excluded. A function whose file is unknown skips them.
  std::size_t fileRule = npos;
  if (!symbol.file.empty())
    for (std::size_t i = ruleList.size(); i-- > 0;)
      if (ruleList[i].fileOnly &&
          globMatch(ruleList[i].fileGlob, symbol.file)) {
        fileRule = i;
        break;
      }
  if (fileRule != npos && ruleList[fileRule].exclude)
    return decide(fileRule);
  for (std::size_t i = ruleList.size(); i-- > 0;) {
    const Rule &rule = ruleList[i];
    if (rule.fileOnly)
      continue;
    std::string_view name = rule.matchMangled && !symbol.mangledName.empty()
                                ? symbol.mangledName
                                : symbol.qualifiedName;
    if (globMatch(rule.funcGlob, name))
      return decide(i);
  }
  if (fileRule != npos)
    return decide(fileRule);
  return Verdict::NoMatch;
}

std::vector<std::string>
Selection::unusedRuleWarnings(const std::vector<bool> &usedRules) const {
  std::vector<std::string> warnings;
  for (std::size_t i = 0; i < ruleList.size(); ++i) {
    if (i < usedRules.size() && usedRules[i])
      continue;
    const Rule &rule = ruleList[i];
    warnings.push_back(source + ":" + std::to_string(rule.line) + ":" +
                       std::to_string(rule.column) + ": warning: pattern " +
                       quoted(rule.text) + " matches no function");
  }
  return warnings;
}

} // namespace perfcc
