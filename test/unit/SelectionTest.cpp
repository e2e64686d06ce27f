//===- SelectionTest.cpp - specification of the selection language --------===//
//
// The selection language decides which functions get probes at build time and
// which probes record or get delays at run time, so the plugin and the runtime
// must read a targets file identically. These tests pin that reading down: the
// glob semantics (checked against fnmatch(3)), perfcc's line syntax, the
// Score-P filter-file syntax, the exact wording and position of every
// diagnostic, and the "matches no function" warnings. Each test name states the
// rule it checks.
//
//===----------------------------------------------------------------------===//

#include "perfcc/Selection.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fnmatch.h>
#include <ostream>
#include <string>

namespace perfcc {
void PrintTo(Verdict v, std::ostream *os) {
  switch (v) {
  case Verdict::NoMatch:
    *os << "NoMatch";
    return;
  case Verdict::Include:
    *os << "Include";
    return;
  case Verdict::Exclude:
    *os << "Exclude";
    return;
  }
}
} // namespace perfcc

namespace {

using perfcc::fileGlobMatch;
using perfcc::globMatch;
using perfcc::Selection;
using perfcc::SymbolRef;
using perfcc::Verdict;

/// A function; the mangled name defaults to the qualified one, as for C.
SymbolRef fn(std::string_view qualified, std::string_view file = "",
             std::string_view mangled = {}) {
  return SymbolRef{qualified, mangled.empty() ? qualified : mangled, file};
}

/// Parses \p text as "t.sel", failing the test with the diagnostic if any.
Selection parseOk(std::string_view text) {
  std::string error;
  std::optional<Selection> selection = Selection::parse(text, "t.sel", error);
  EXPECT_TRUE(selection.has_value()) << error;
  return selection ? *selection : Selection();
}

/// Parses \p text as "t.sel", expecting it to be rejected; returns the error.
std::string parseError(std::string_view text) {
  std::string error;
  std::optional<Selection> selection = Selection::parse(text, "t.sel", error);
  EXPECT_FALSE(selection.has_value()) << "accepted: " << text;
  EXPECT_EQ(error.find('\n'), std::string::npos) << "more than one line";
  return error;
}

std::string tempPath(const char *name) {
  return ::testing::TempDir() + "perfcc-selection-" + name;
}

void writeFile(const std::string &path, std::string_view text) {
  std::FILE *file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr) << path;
  std::fwrite(text.data(), 1, text.size(), file);
  std::fclose(file);
}

// --- Globs -----------------------------------------------------------------

TEST(Glob, StarMatchesAnyRunIncludingScopesAndSlashes) {
  EXPECT_TRUE(globMatch("*", ""));
  EXPECT_TRUE(globMatch("*", "engine::kv::Cache::get"));
  EXPECT_TRUE(globMatch("engine::*", "engine::kv::Cache::get"));
  EXPECT_TRUE(globMatch("engine::*::get", "engine::kv::Cache::get"));
  EXPECT_TRUE(globMatch("*/kv/*.cpp", "/abs/src/engine/kv/block.cpp"));
  EXPECT_TRUE(globMatch("a*b*c", "a::b/c"));
  EXPECT_FALSE(globMatch("engine::*", "engine2::step"));
  EXPECT_FALSE(globMatch("*::get", "engine::getter"));
}

TEST(Glob, MatchesTheWholeTextNotAPrefixOrSubstring) {
  EXPECT_TRUE(globMatch("step", "step"));
  EXPECT_FALSE(globMatch("step", "stepper"));
  EXPECT_FALSE(globMatch("step", "engine::step"));
  EXPECT_FALSE(globMatch("", "x"));
  EXPECT_TRUE(globMatch("", ""));
}

TEST(Glob, QuestionMarkMatchesExactlyOneCharacter) {
  EXPECT_TRUE(globMatch("step?", "step1"));
  EXPECT_TRUE(globMatch("a?b", "a/b"));
  EXPECT_TRUE(globMatch("a?b", "a:b"));
  EXPECT_FALSE(globMatch("step?", "step"));
  EXPECT_FALSE(globMatch("step?", "step12"));
}

TEST(Glob, BracketExpressionsMatchOneCharacterOfASet) {
  EXPECT_TRUE(globMatch("step[0-9]", "step7"));
  EXPECT_FALSE(globMatch("step[0-9]", "stepx"));
  EXPECT_TRUE(globMatch("[!a-c]x", "dx"));
  EXPECT_FALSE(globMatch("[!a-c]x", "bx"));
  EXPECT_TRUE(globMatch("[^a-c]x", "dx"));
  EXPECT_TRUE(globMatch("[]]", "]"));
  EXPECT_TRUE(globMatch("[!]]", "a"));
  EXPECT_FALSE(globMatch("[!]]", "]"));
  EXPECT_TRUE(globMatch("[a-]", "-"));
  EXPECT_TRUE(globMatch("[[:upper:]][[:digit:]]", "K9"));
  EXPECT_FALSE(globMatch("[[:upper:]][[:digit:]]", "k9"));
}

TEST(Glob, BackslashMakesTheNextCharacterLiteral) {
  EXPECT_TRUE(globMatch("a\\*", "a*"));
  EXPECT_FALSE(globMatch("a\\*", "ab"));
  EXPECT_TRUE(globMatch("Foo::operator\\[\\]", "Foo::operator[]"));
  EXPECT_TRUE(globMatch("a\\ b", "a b"));
  EXPECT_TRUE(globMatch("a\\#b", "a#b"));
  EXPECT_TRUE(globMatch("[\\]]", "]"));
}

TEST(Glob, UnterminatedBracketIsALiteralCharacter) {
  EXPECT_TRUE(globMatch("a[", "a["));
  EXPECT_TRUE(globMatch("[ab", "[ab"));
  EXPECT_FALSE(globMatch("[ab", "a"));
}

TEST(Glob, AgreesWithFnmatchWithoutFlags) {
  const char *patterns[] = {
      "*",
      "?",
      "a*",
      "*b",
      "a?c",
      "a*c",
      "*::*",
      "ns::*",
      "[ab]",
      "[!ab]",
      "[^ab]",
      "[]a]",
      "[!]]",
      "[a-c]*",
      "[a-]",
      "[-a]",
      "[[:alpha:]][[:digit:]]",
      "[[:upper:]]*",
      "\\*",
      "\\?",
      "a\\/b",
      "*/*",
      "*.cpp",
      "src/*.cpp",
      "[",
      "a[",
      "[[]",
      "a]",
      "[\\]]",
      "**",
      "*a*b*",
      "[x-z]",
      "\\[",
      "*[0-9]",
      "*/*/*",
      "ns::?oo",
      "[[:space:]]",
      "[!-]",
      "*?",
  };
  const char *texts[] = {
      "",  "a",     "ab",  "abc",     "a/b",     "ns::foo",     "]",   "-",
      "[", "a]",    "x-y", "A1",      "foo.cpp", "src/foo.cpp", "*",   "?",
      "y", "x/y/z", " ",   "ns::boo", "abab",    "step9",       "a b",
  };
  for (const char *pattern : patterns)
    for (const char *text : texts)
      EXPECT_EQ(globMatch(pattern, text), fnmatch(pattern, text, 0) == 0)
          << "pattern '" << pattern << "' text '" << text << "'";
}

TEST(Glob, ManyStarsDoNotBacktrackExponentially) {
  std::string text(20000, 'a');
  EXPECT_FALSE(globMatch("*a*a*a*a*a*a*a*a*a*a*b", text));
  EXPECT_TRUE(globMatch("*a*a*a*a*a*a*a*a*a*a", text));
}

TEST(FileGlob, MatchesTheWholePath) {
  EXPECT_TRUE(fileGlobMatch("/abs/src/*.cpp", "/abs/src/main.cpp"));
  EXPECT_TRUE(fileGlobMatch("*", "/abs/src/main.cpp"));
  EXPECT_TRUE(fileGlobMatch("src/main.cpp", "src/main.cpp"));
}

TEST(FileGlob, MatchesASuffixStartingAtAPathComponent) {
  EXPECT_TRUE(fileGlobMatch("engine/kv/*.cpp", "/abs/src/engine/kv/block.cpp"));
  EXPECT_TRUE(fileGlobMatch("kv/block.cpp", "/abs/src/engine/kv/block.cpp"));
  EXPECT_TRUE(fileGlobMatch("block.cpp", "/abs/src/engine/kv/block.cpp"));
  EXPECT_TRUE(fileGlobMatch("src/a.cpp", "./src/a.cpp"));
}

TEST(FileGlob, NeverMatchesInsideAPathComponent) {
  EXPECT_FALSE(fileGlobMatch("kv/*.cpp", "/src/xkv/a.cpp"));
  EXPECT_FALSE(fileGlobMatch("ock.cpp", "/src/block.cpp"));
  EXPECT_FALSE(fileGlobMatch("engine/kv/*.cpp", "/src/engine/kv2/a.cpp"));
  EXPECT_FALSE(fileGlobMatch("a.cpp", ""));
}

// --- perfcc syntax: what a line selects ------------------------------------

TEST(Selection, BareFunctionPatternMatchesInAnyFile) {
  Selection s = parseOk("engine::Scheduler::schedule\n");
  EXPECT_FALSE(s.isScoreP());
  EXPECT_EQ(s.match(fn("engine::Scheduler::schedule", "/a/s.cpp")),
            Verdict::Include);
  EXPECT_EQ(s.match(fn("engine::Scheduler::schedule", "")), Verdict::Include);
  EXPECT_EQ(s.match(fn("engine::Scheduler::scheduleMore", "/a/s.cpp")),
            Verdict::NoMatch);
}

TEST(Selection, FilePatternRestrictsToMatchingFiles) {
  Selection s = parseOk("engine/kv/*.cpp:*\n");
  EXPECT_EQ(s.match(fn("Block::get", "/abs/src/engine/kv/block.cpp")),
            Verdict::Include);
  EXPECT_EQ(s.match(fn("Block::get", "/abs/src/engine/sched.cpp")),
            Verdict::NoMatch);
  EXPECT_EQ(s.match(fn("Block::get", "/abs/src/xengine/kv/block.cpp")),
            Verdict::NoMatch);
  EXPECT_EQ(s.match(fn("Block::get", "")), Verdict::NoMatch);
}

TEST(Selection, FileAndFunctionMustBothMatch) {
  Selection s = parseOk("sched.cpp:engine::Scheduler::*\n");
  EXPECT_EQ(s.match(fn("engine::Scheduler::step", "/a/sched.cpp")),
            Verdict::Include);
  EXPECT_EQ(s.match(fn("engine::Other::step", "/a/sched.cpp")),
            Verdict::NoMatch);
  EXPECT_EQ(s.match(fn("engine::Scheduler::step", "/a/other.cpp")),
            Verdict::NoMatch);
}

TEST(Selection, DoubleColonNeverSeparatesFileFromFunction) {
  Selection s = parseOk("engine::Scheduler::schedule\n"
                        "src/s.cpp:engine::Scheduler::*\n"
                        "::globalFunction\n"
                        "s.cpp::f\n");
  ASSERT_EQ(s.rules().size(), 4u);
  EXPECT_EQ(s.rules()[0].fileGlob, "");
  EXPECT_EQ(s.rules()[0].funcGlob, "engine::Scheduler::schedule");
  EXPECT_EQ(s.rules()[1].fileGlob, "src/s.cpp");
  EXPECT_EQ(s.rules()[1].funcGlob, "engine::Scheduler::*");
  EXPECT_EQ(s.rules()[2].fileGlob, "");
  EXPECT_EQ(s.rules()[2].funcGlob, "::globalFunction");
  EXPECT_EQ(s.rules()[3].fileGlob, "");
  EXPECT_EQ(s.rules()[3].funcGlob, "s.cpp::f");
}

TEST(Selection, StarMatchesAcrossScopes) {
  Selection s = parseOk("engine::*::step\n");
  EXPECT_EQ(s.match(fn("engine::kv::Cache::step")), Verdict::Include);
  EXPECT_EQ(s.match(fn("engine::Runner::step")), Verdict::Include);
  EXPECT_EQ(s.match(fn("engine::step")), Verdict::NoMatch);
  EXPECT_EQ(s.match(fn("other::Runner::step")), Verdict::NoMatch);
}

TEST(Selection, StarColonStarSelectsEverything) {
  Selection s = parseOk("*:*\n");
  ASSERT_EQ(s.rules().size(), 1u);
  EXPECT_EQ(s.rules()[0].fileGlob, "*");
  EXPECT_EQ(s.rules()[0].funcGlob, "*");
  EXPECT_EQ(s.match(fn("main", "/a/main.cpp")), Verdict::Include);
  EXPECT_EQ(s.match(fn("ns::T<int>::f", "x.cu")), Verdict::Include);
  EXPECT_EQ(s.match(fn("anon", "")), Verdict::Include);
}

TEST(Selection, BangExcludesWhatItMatches) {
  Selection s = parseOk("*\n!engine::debug*\n");
  EXPECT_EQ(s.match(fn("engine::debugDump")), Verdict::Exclude);
  EXPECT_EQ(s.match(fn("engine::step")), Verdict::Include);
  EXPECT_TRUE(s.rules()[1].exclude);
  EXPECT_EQ(s.rules()[1].funcGlob, "engine::debug*");
}

TEST(Selection, ExclusionMayHaveBlanksAfterTheBang) {
  Selection s = parseOk("!  kv.cpp:foo\n");
  ASSERT_EQ(s.rules().size(), 1u);
  EXPECT_TRUE(s.rules()[0].exclude);
  EXPECT_EQ(s.rules()[0].fileGlob, "kv.cpp");
  EXPECT_EQ(s.rules()[0].funcGlob, "foo");
  EXPECT_EQ(s.match(fn("foo", "/a/kv.cpp")), Verdict::Exclude);
}

TEST(Selection, LastMatchingLineDecides) {
  Selection includeLast = parseOk("!engine::*\nengine::step\n");
  int rule = -2;
  EXPECT_EQ(includeLast.match(fn("engine::step"), rule), Verdict::Include);
  EXPECT_EQ(rule, 1);
  EXPECT_EQ(includeLast.match(fn("engine::other"), rule), Verdict::Exclude);
  EXPECT_EQ(rule, 0);

  Selection excludeLast = parseOk("engine::step\n!engine::*\n");
  EXPECT_EQ(excludeLast.match(fn("engine::step"), rule), Verdict::Exclude);
  EXPECT_EQ(rule, 1);
}

TEST(Selection, UnmatchedFunctionIsNoMatchWithNoDecidingRule) {
  Selection s = parseOk("engine::step\n!engine::debug\n");
  int rule = 7;
  EXPECT_EQ(s.match(fn("main"), rule), Verdict::NoMatch);
  EXPECT_EQ(rule, -1);
}

TEST(Selection, FunctionGlobAlsoMatchesTheMangledName) {
  Selection s = parseOk("_ZN6engine*\n");
  EXPECT_EQ(s.match(fn("engine::step", "", "_ZN6engine4stepEv")),
            Verdict::Include);
  EXPECT_EQ(s.match(fn("other::step", "", "_ZN5other4stepEv")),
            Verdict::NoMatch);
}

TEST(Selection, CommentsAndBlankLinesAreIgnored) {
  Selection s = parseOk("# header comment\n"
                        "\n"
                        "   \t \n"
                        "\tfoo   # why foo\n"
                        "    # indented comment\n"
                        "bar#no space before the comment\n");
  ASSERT_EQ(s.rules().size(), 2u);
  EXPECT_EQ(s.rules()[0].text, "foo");
  EXPECT_EQ(s.rules()[0].line, 4u);
  EXPECT_EQ(s.rules()[0].column, 2u);
  EXPECT_EQ(s.rules()[1].funcGlob, "bar");
}

TEST(Selection, EscapedHashIsPartOfThePattern) {
  Selection s = parseOk("a\\#b # real comment\n");
  ASSERT_EQ(s.rules().size(), 1u);
  EXPECT_EQ(s.rules()[0].text, "a\\#b");
  EXPECT_EQ(s.match(fn("a#b")), Verdict::Include);
  EXPECT_EQ(s.match(fn("a")), Verdict::NoMatch);
}

TEST(Selection, OuterWhitespaceIsTrimmedAndInnerSpacesKept) {
  Selection s = parseOk("  operator new  \n"
                        "\tstd::map<int, int>::find\t\n");
  ASSERT_EQ(s.rules().size(), 2u);
  EXPECT_EQ(s.rules()[0].funcGlob, "operator new");
  EXPECT_EQ(s.match(fn("operator new")), Verdict::Include);
  EXPECT_EQ(s.match(fn("std::map<int, int>::find")), Verdict::Include);
  EXPECT_EQ(s.match(fn("std::map<int,int>::find")), Verdict::NoMatch);
}

TEST(Selection, BlanksAroundTheSeparatorAreIgnored) {
  Selection s = parseOk("src/a.cpp : foo\n");
  ASSERT_EQ(s.rules().size(), 1u);
  EXPECT_EQ(s.rules()[0].fileGlob, "src/a.cpp");
  EXPECT_EQ(s.rules()[0].funcGlob, "foo");
}

TEST(Selection, BangInsideANameIsNotAnExclusion) {
  Selection s = parseOk("Foo::operator!=\nFoo::operator!\n");
  ASSERT_EQ(s.rules().size(), 2u);
  EXPECT_FALSE(s.rules()[0].exclude);
  EXPECT_EQ(s.match(fn("Foo::operator!=")), Verdict::Include);
  EXPECT_EQ(s.match(fn("Foo::operator!")), Verdict::Include);
}

TEST(Selection, EscapedBracketsSelectOperatorSubscript) {
  Selection s = parseOk("Foo::operator\\[\\]\n");
  EXPECT_EQ(s.match(fn("Foo::operator[]")), Verdict::Include);
}

TEST(Selection, BracketExpressionsWorkInBothParts) {
  Selection s = parseOk("kv/[ab].cpp:step[0-9]\n");
  EXPECT_EQ(s.match(fn("step3", "/s/kv/a.cpp")), Verdict::Include);
  EXPECT_EQ(s.match(fn("stepX", "/s/kv/a.cpp")), Verdict::NoMatch);
  EXPECT_EQ(s.match(fn("step3", "/s/kv/c.cpp")), Verdict::NoMatch);
}

TEST(Selection, RulesRecordTextPositionAndParts) {
  Selection s = parseOk("foo\n\n  !src/*.cpp:bar  # comment\n");
  EXPECT_EQ(s.sourceName(), "t.sel");
  ASSERT_EQ(s.rules().size(), 2u);
  const perfcc::Rule &r = s.rules()[1];
  EXPECT_TRUE(r.exclude);
  EXPECT_FALSE(r.fileOnly);
  EXPECT_FALSE(r.matchMangled);
  EXPECT_EQ(r.text, "!src/*.cpp:bar");
  EXPECT_EQ(r.fileGlob, "src/*.cpp");
  EXPECT_EQ(r.funcGlob, "bar");
  EXPECT_EQ(r.line, 3u);
  EXPECT_EQ(r.column, 3u);
}

TEST(Selection, CrLfLineEndingsAreAccepted) {
  Selection s = parseOk("foo\r\n!bar\r\n");
  ASSERT_EQ(s.rules().size(), 2u);
  EXPECT_EQ(s.rules()[1].text, "!bar");
  EXPECT_EQ(s.match(fn("bar")), Verdict::Exclude);
}

TEST(Selection, LastLineNeedsNoNewline) {
  Selection s = parseOk("foo\nbar");
  EXPECT_EQ(s.match(fn("bar")), Verdict::Include);
}

TEST(Selection, EmptyOrCommentOnlyTextSelectsNothing) {
  for (std::string_view text : {"", "\n\n", "# nothing here\n  # at all\n"}) {
    Selection s = parseOk(text);
    EXPECT_FALSE(s.isScoreP());
    EXPECT_TRUE(s.rules().empty());
    EXPECT_EQ(s.match(fn("main", "/a/main.cpp")), Verdict::NoMatch);
  }
}

// --- perfcc syntax: malformed lines ----------------------------------------

TEST(SelectionErrors, BangWithNothingAfterIt) {
  EXPECT_EQ(parseError("!\n"), "t.sel:1:1: error: '!' must be followed by a "
                               "pattern");
  EXPECT_EQ(parseError("foo\n   !   # comment\n"),
            "t.sel:2:4: error: '!' must be followed by a pattern");
}

TEST(SelectionErrors, EmptyFilePatternPointsAtTheSeparator) {
  EXPECT_EQ(parseError(":foo\n"),
            "t.sel:1:1: error: empty file pattern before ':'");
  EXPECT_EQ(parseError("!  :foo\n"),
            "t.sel:1:4: error: empty file pattern before ':'");
}

TEST(SelectionErrors, EmptyFunctionPatternPointsAtTheSeparator) {
  EXPECT_EQ(parseError("src/a.cpp:\n"),
            "t.sel:1:10: error: empty function pattern after ':'");
  EXPECT_EQ(parseError("src/a.cpp:   # comment\n"),
            "t.sel:1:10: error: empty function pattern after ':'");
}

TEST(SelectionErrors, SecondSeparatorIsReportedWhereItIs) {
  const std::string message =
      "error: second ':' separator: a pattern is FUNC or FILE:FUNC (a scope is "
      "written '::')";
  EXPECT_EQ(parseError("a.cpp:foo:bar\n"), "t.sel:1:10: " + message);
  EXPECT_EQ(parseError("a.cpp:ns::foo:bar\n"), "t.sel:1:14: " + message);
}

TEST(SelectionErrors, UnbalancedBracketPointsAtTheBracket) {
  const std::string message =
      "error: unbalanced '[' in pattern (write '\\[' for a literal '[')";
  EXPECT_EQ(parseError("foo[ab\n"), "t.sel:1:4: " + message);
  EXPECT_EQ(parseError("src/[ab.cpp:foo\n"), "t.sel:1:5: " + message);
  EXPECT_EQ(parseError("a.cpp:foo[\n"), "t.sel:1:10: " + message);
  EXPECT_EQ(parseError("Foo::operator[]\n"), "t.sel:1:14: " + message);
}

TEST(SelectionErrors, BangOnlyAtTheStartOfTheLine) {
  const std::string message = "error: '!' is only allowed at the start of a "
                              "line, before the whole pattern";
  EXPECT_EQ(parseError("src/a.cpp:!foo\n"), "t.sel:1:11: " + message);
  EXPECT_EQ(parseError("src/a.cpp: !foo\n"), "t.sel:1:12: " + message);
  EXPECT_EQ(parseError("!!foo\n"), "t.sel:1:2: " + message);
  EXPECT_EQ(parseError("!src/a.cpp:!foo\n"), "t.sel:1:12: " + message);
}

TEST(SelectionErrors, BackslashThatEscapesNothing) {
  EXPECT_EQ(parseError("foo\\\n"),
            "t.sel:1:4: error: '\\' at the end of a pattern escapes nothing");
}

TEST(SelectionErrors, LineAndColumnCountFromOneInTheTextAsWritten) {
  EXPECT_EQ(parseError("# header\n\nfoo\n  \t:bar\n"),
            "t.sel:4:4: error: empty file pattern before ':'");
}

TEST(SelectionErrors, OnlyTheFirstMalformedLineIsReported) {
  EXPECT_EQ(parseError("a:\n:b\n"),
            "t.sel:1:2: error: empty function pattern after ':'");
}

// --- Score-P filter files ----------------------------------------------------

TEST(ScoreP, DetectedByTheFirstLineWithContent) {
  Selection regions = parseOk("# my filter\n\n  SCOREP_REGION_NAMES_BEGIN\n"
                              "  EXCLUDE foo\nSCOREP_REGION_NAMES_END\n");
  EXPECT_TRUE(regions.isScoreP());
  Selection files = parseOk("SCOREP_FILE_NAMES_BEGIN # files first\n"
                            "  EXCLUDE */gen/*\nSCOREP_FILE_NAMES_END\n");
  EXPECT_TRUE(files.isScoreP());
  ASSERT_EQ(files.rules().size(), 1u);
  EXPECT_TRUE(files.rules()[0].fileOnly);
  EXPECT_EQ(files.rules()[0].fileGlob, "*/gen/*");
  EXPECT_EQ(files.rules()[0].funcGlob, "");
}

TEST(ScoreP, UnnamedFunctionsAreNoMatchSoCallersIncludeThem) {
  Selection s = parseOk("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE bar\n"
                        "SCOREP_REGION_NAMES_END\n");
  int rule = 5;
  EXPECT_EQ(s.match(fn("foo"), rule), Verdict::NoMatch);
  EXPECT_EQ(rule, -1);
  EXPECT_EQ(s.match(fn("bar"), rule), Verdict::Exclude);
  EXPECT_EQ(rule, 0);
}

TEST(ScoreP, ExcludeAllThenIncludeSomeSelectsOnlyThose) {
  Selection s = parseOk("SCOREP_REGION_NAMES_BEGIN\n"
                        "  EXCLUDE *\n"
                        "  INCLUDE foo*\n"
                        "SCOREP_REGION_NAMES_END\n");
  EXPECT_EQ(s.match(fn("foo")), Verdict::Include);
  EXPECT_EQ(s.match(fn("foobar")), Verdict::Include);
  EXPECT_EQ(s.match(fn("bar")), Verdict::Exclude);
}

TEST(ScoreP, LaterRulesOverrideEarlierOnes) {
  Selection s = parseOk("SCOREP_REGION_NAMES_BEGIN\n"
                        "  INCLUDE foo*\n"
                        "  EXCLUDE foobar\n"
                        "SCOREP_REGION_NAMES_END\n");
  EXPECT_EQ(s.match(fn("foobar")), Verdict::Exclude);
  EXPECT_EQ(s.match(fn("foobaz")), Verdict::Include);
}

TEST(ScoreP, RuleContinuesOverLinesUntilTheNextKeyword) {
  Selection s = parseOk("SCOREP_REGION_NAMES_BEGIN\n"
                        "  EXCLUDE *\n"
                        "  INCLUDE bar foo\n"
                        "          baz\n"
                        "          main\n"
                        "SCOREP_REGION_NAMES_END\n");
  ASSERT_EQ(s.rules().size(), 5u);
  EXPECT_EQ(s.rules()[3].text, "baz");
  EXPECT_EQ(s.rules()[3].line, 4u);
  EXPECT_EQ(s.rules()[3].column, 11u);
  EXPECT_FALSE(s.rules()[3].exclude);
  for (const char *name : {"bar", "foo", "baz", "main"})
    EXPECT_EQ(s.match(fn(name)), Verdict::Include) << name;
  EXPECT_EQ(s.match(fn("qux")), Verdict::Exclude);
}

TEST(ScoreP, EachPatternIsItsOwnRuleWithItsOwnColumn) {
  Selection s = parseOk("SCOREP_REGION_NAMES_BEGIN\n"
                        "  EXCLUDE  a   b*\n"
                        "SCOREP_REGION_NAMES_END\n");
  ASSERT_EQ(s.rules().size(), 2u);
  EXPECT_EQ(s.rules()[0].column, 12u);
  EXPECT_EQ(s.rules()[1].text, "b*");
  EXPECT_EQ(s.rules()[1].column, 16u);
  EXPECT_EQ(s.rules()[1].funcGlob, "b*");
  EXPECT_EQ(s.rules()[1].fileGlob, "");
}

TEST(ScoreP, MangledSwitchesTheRestOfTheRuleToMangledNames) {
  Selection s = parseOk("SCOREP_REGION_NAMES_BEGIN\n"
                        "  EXCLUDE MANGLED _ZN6engine* DEMANGLED main\n"
                        "  INCLUDE _ZN6engine4stepEv\n"
                        "SCOREP_REGION_NAMES_END\n");
  ASSERT_EQ(s.rules().size(), 3u);
  EXPECT_TRUE(s.rules()[0].matchMangled);
  EXPECT_FALSE(s.rules()[1].matchMangled);
  EXPECT_FALSE(s.rules()[2].matchMangled) << "INCLUDE resets MANGLED";
  int rule = -1;
  EXPECT_EQ(s.match(fn("engine::step", "", "_ZN6engine4stepEv"), rule),
            Verdict::Exclude);
  EXPECT_EQ(rule, 0);
  EXPECT_EQ(s.match(fn("main")), Verdict::Exclude);
  EXPECT_EQ(s.match(fn("other::step", "", "_ZN5other4stepEv")),
            Verdict::NoMatch);
}

TEST(ScoreP, DemangledRulesDoNotMatchMangledNames) {
  Selection s = parseOk("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE _Z*\n"
                        "SCOREP_REGION_NAMES_END\n");
  EXPECT_EQ(s.match(fn("engine::step", "", "_ZN6engine4stepEv")),
            Verdict::NoMatch);
}

TEST(ScoreP, BackslashEscapesASpaceInAPattern) {
  Selection s = parseOk("SCOREP_REGION_NAMES_BEGIN\n"
                        "  EXCLUDE *\n"
                        "  INCLUDE operator\\ new\n"
                        "SCOREP_REGION_NAMES_END\n");
  ASSERT_EQ(s.rules().size(), 2u);
  EXPECT_EQ(s.rules()[1].text, "operator\\ new");
  EXPECT_EQ(s.match(fn("operator new")), Verdict::Include);
  EXPECT_EQ(s.match(fn("operator")), Verdict::Exclude);
  EXPECT_EQ(s.match(fn("new")), Verdict::Exclude);
}

TEST(ScoreP, BackslashEscapesAHashInAPattern) {
  Selection s = parseOk("SCOREP_REGION_NAMES_BEGIN\n"
                        "  INCLUDE a\\#b # comment\n"
                        "SCOREP_REGION_NAMES_END\n");
  ASSERT_EQ(s.rules().size(), 1u);
  EXPECT_EQ(s.match(fn("a#b")), Verdict::Include);
}

TEST(ScoreP, CommentsMayFollowKeywordsAndPatterns) {
  Selection s = parseOk("SCOREP_REGION_NAMES_BEGIN # region rules\n"
                        "  EXCLUDE # everything\n"
                        "    *\n"
                        "  INCLUDE foo#only foo\n"
                        "# a whole-line comment\n"
                        "SCOREP_REGION_NAMES_END # done\n");
  ASSERT_EQ(s.rules().size(), 2u);
  EXPECT_EQ(s.match(fn("foo")), Verdict::Include);
  EXPECT_EQ(s.match(fn("bar")), Verdict::Exclude);
}

TEST(ScoreP, FileRulesDecideBeforeRegionRules) {
  const char *fileBlock = "SCOREP_FILE_NAMES_BEGIN\n"
                          "  EXCLUDE */generated/*\n"
                          "SCOREP_FILE_NAMES_END\n";
  const char *regionBlock = "SCOREP_REGION_NAMES_BEGIN\n"
                            "  INCLUDE *\n"
                            "SCOREP_REGION_NAMES_END\n";
  for (const std::string &text : {std::string(fileBlock) + regionBlock,
                                  std::string(regionBlock) + fileBlock}) {
    Selection s = parseOk(text);
    int rule = -1;
    EXPECT_EQ(s.match(fn("foo", "/src/generated/a.cpp"), rule),
              Verdict::Exclude);
    ASSERT_GE(rule, 0);
    EXPECT_TRUE(s.rules()[rule].fileOnly);
    EXPECT_EQ(s.match(fn("foo", "/src/main.cpp"), rule), Verdict::Include);
    ASSERT_GE(rule, 0);
    EXPECT_FALSE(s.rules()[rule].fileOnly);
  }
}

TEST(ScoreP, IncludedFilesStillHonourRegionRules) {
  Selection s = parseOk("SCOREP_FILE_NAMES_BEGIN\n"
                        "  EXCLUDE *\n"
                        "  INCLUDE */engine/*\n"
                        "SCOREP_FILE_NAMES_END\n"
                        "SCOREP_REGION_NAMES_BEGIN\n"
                        "  EXCLUDE *debug*\n"
                        "SCOREP_REGION_NAMES_END\n");
  int rule = -1;
  EXPECT_EQ(s.match(fn("step", "/src/engine/s.cpp"), rule), Verdict::Include);
  EXPECT_EQ(rule, 1) << "the including file rule decides";
  EXPECT_EQ(s.match(fn("debugDump", "/src/engine/s.cpp"), rule),
            Verdict::Exclude);
  EXPECT_EQ(rule, 2);
  EXPECT_EQ(s.match(fn("step", "/src/tools/t.cpp"), rule), Verdict::Exclude);
  EXPECT_EQ(rule, 0);
}

TEST(ScoreP, FilePatternsMatchTheWholePathWhereStarCrossesSlashes) {
  Selection s = parseOk("SCOREP_FILE_NAMES_BEGIN\n"
                        "  EXCLUDE */kv/*.cpp generated/*\n"
                        "SCOREP_FILE_NAMES_END\n");
  EXPECT_EQ(s.match(fn("f", "/abs/src/engine/kv/block.cpp")), Verdict::Exclude);
  EXPECT_EQ(s.match(fn("f", "generated/a.cpp")), Verdict::Exclude);
  EXPECT_EQ(s.match(fn("f", "/src/generated/a.cpp")), Verdict::NoMatch);
}

TEST(ScoreP, FileRulesDoNotApplyWhenTheFileIsUnknown) {
  Selection s = parseOk("SCOREP_FILE_NAMES_BEGIN\n  EXCLUDE *\n"
                        "SCOREP_FILE_NAMES_END\n");
  EXPECT_EQ(s.match(fn("f", "")), Verdict::NoMatch);
  EXPECT_EQ(s.match(fn("f", "/a.c")), Verdict::Exclude);
}

TEST(ScoreP, SeveralBlocksAccumulateInOrder) {
  Selection s = parseOk("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE *\n"
                        "SCOREP_REGION_NAMES_END\n"
                        "SCOREP_REGION_NAMES_BEGIN\n  INCLUDE main\n"
                        "SCOREP_REGION_NAMES_END\n");
  EXPECT_EQ(s.match(fn("main")), Verdict::Include);
  EXPECT_EQ(s.match(fn("other")), Verdict::Exclude);
}

TEST(ScoreP, KeywordsMayShareALine) {
  Selection s = parseOk("SCOREP_REGION_NAMES_BEGIN EXCLUDE foo "
                        "SCOREP_REGION_NAMES_END\n");
  EXPECT_EQ(s.match(fn("foo")), Verdict::Exclude);
}

TEST(ScoreP, EmptyRulesAndBlocksAreAccepted) {
  Selection s = parseOk("SCOREP_REGION_NAMES_BEGIN\n  INCLUDE\n"
                        "SCOREP_REGION_NAMES_END\nSCOREP_FILE_NAMES_BEGIN\n"
                        "SCOREP_FILE_NAMES_END\n");
  EXPECT_TRUE(s.rules().empty());
}

TEST(ScoreP, KeywordsAreCaseSensitive) {
  Selection s = parseOk("SCOREP_REGION_NAMES_BEGIN\n  INCLUDE foo exclude\n"
                        "SCOREP_REGION_NAMES_END\n");
  ASSERT_EQ(s.rules().size(), 2u);
  EXPECT_FALSE(s.rules()[1].exclude);
  EXPECT_EQ(s.rules()[1].funcGlob, "exclude");
}

// --- Score-P filter files: malformed input -----------------------------------

TEST(ScorePErrors, MissingEndPointsAtTheBegin) {
  EXPECT_EQ(parseError("SCOREP_REGION_NAMES_BEGIN\n  INCLUDE foo\n"),
            "t.sel:1:1: error: 'SCOREP_REGION_NAMES_BEGIN' without a matching "
            "'SCOREP_REGION_NAMES_END'");
  EXPECT_EQ(parseError("# c\n  SCOREP_FILE_NAMES_BEGIN\n"),
            "t.sel:2:3: error: 'SCOREP_FILE_NAMES_BEGIN' without a matching "
            "'SCOREP_FILE_NAMES_END'");
}

TEST(ScorePErrors, EndWithoutBegin) {
  EXPECT_EQ(parseError("SCOREP_REGION_NAMES_BEGIN\nSCOREP_REGION_NAMES_END\n"
                       "SCOREP_REGION_NAMES_END\n"),
            "t.sel:3:1: error: 'SCOREP_REGION_NAMES_END' without a matching "
            "'SCOREP_REGION_NAMES_BEGIN'");
}

TEST(ScorePErrors, EndOfTheOtherKindOfBlock) {
  EXPECT_EQ(parseError("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE foo\n"
                       "SCOREP_FILE_NAMES_END\n"),
            "t.sel:3:1: error: 'SCOREP_FILE_NAMES_END' inside the "
            "SCOREP_REGION_NAMES block opened on line 1; expected "
            "'SCOREP_REGION_NAMES_END'");
}

TEST(ScorePErrors, NestedBegin) {
  EXPECT_EQ(
      parseError("SCOREP_FILE_NAMES_BEGIN\n  SCOREP_REGION_NAMES_BEGIN\n"),
      "t.sel:2:3: error: 'SCOREP_REGION_NAMES_BEGIN' inside the "
      "SCOREP_FILE_NAMES block opened on line 1; close it with "
      "'SCOREP_FILE_NAMES_END' first");
}

TEST(ScorePErrors, RuleOutsideABlock) {
  EXPECT_EQ(parseError("SCOREP_REGION_NAMES_BEGIN\nSCOREP_REGION_NAMES_END\n"
                       "INCLUDE foo\n"),
            "t.sel:3:1: error: 'INCLUDE' rule outside a SCOREP_REGION_NAMES or "
            "SCOREP_FILE_NAMES block");
}

TEST(ScorePErrors, PatternOutsideABlock) {
  EXPECT_EQ(parseError("SCOREP_REGION_NAMES_BEGIN\nSCOREP_REGION_NAMES_END\n"
                       "  foo\n"),
            "t.sel:3:3: error: expected 'SCOREP_REGION_NAMES_BEGIN' or "
            "'SCOREP_FILE_NAMES_BEGIN', found 'foo'");
}

TEST(ScorePErrors, PatternBeforeAnyRule) {
  EXPECT_EQ(parseError("SCOREP_REGION_NAMES_BEGIN\n  foo\n"
                       "SCOREP_REGION_NAMES_END\n"),
            "t.sel:2:3: error: pattern 'foo' before any INCLUDE or EXCLUDE");
  EXPECT_EQ(parseError("SCOREP_REGION_NAMES_BEGIN\n  include foo\n"
                       "SCOREP_REGION_NAMES_END\n"),
            "t.sel:2:3: error: pattern 'include' before any INCLUDE or EXCLUDE "
            "(keywords are case-sensitive: write 'INCLUDE')");
}

TEST(ScorePErrors, UnknownKeyword) {
  EXPECT_EQ(parseError("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE foo\n"
                       "SCOREP_REGION_NAME_END\n"),
            "t.sel:3:1: error: unknown keyword 'SCOREP_REGION_NAME_END'");
  EXPECT_EQ(parseError("SCOREP_REGION_NAMES_BEGIN\n  INCLUDES foo\n"
                       "SCOREP_REGION_NAMES_END\n"),
            "t.sel:2:3: error: unknown keyword 'INCLUDES'");
}

TEST(ScorePErrors, MangledOnlyInARegionRule) {
  EXPECT_EQ(parseError("SCOREP_FILE_NAMES_BEGIN\n  EXCLUDE MANGLED *.c\n"
                       "SCOREP_FILE_NAMES_END\n"),
            "t.sel:2:11: error: 'MANGLED' is only allowed in a rule of a "
            "SCOREP_REGION_NAMES block");
  EXPECT_EQ(parseError("SCOREP_REGION_NAMES_BEGIN\n  MANGLED _Z*\n"
                       "SCOREP_REGION_NAMES_END\n"),
            "t.sel:2:3: error: 'MANGLED' must follow INCLUDE or EXCLUDE");
}

TEST(ScorePErrors, UnbalancedBracketPointsAtTheBracket) {
  EXPECT_EQ(parseError("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE foo bar[x\n"
                       "SCOREP_REGION_NAMES_END\n"),
            "t.sel:2:18: error: unbalanced '[' in pattern (write '\\[' for a "
            "literal '[')");
}

// --- Warnings ----------------------------------------------------------------

TEST(Selection, UnusedRulesAreWarnedAboutWithTheirPosition) {
  Selection s = parseOk("foo\n# comment\n  !bar*\nbaz\n");
  std::vector<bool> used(s.rules().size(), false);
  for (const char *name : {"foo", "baz", "other"}) {
    int rule = -1;
    s.match(fn(name), rule);
    if (rule >= 0)
      used[rule] = true;
  }
  std::vector<std::string> warnings = s.unusedRuleWarnings(used);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "t.sel:3:3: warning: pattern '!bar*' matches no function");
}

TEST(Selection, RulesBeyondTheUsedBitmapCountAsUnused) {
  Selection s = parseOk("foo\nbar\n");
  std::vector<std::string> warnings = s.unusedRuleWarnings({true});
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "t.sel:2:1: warning: pattern 'bar' matches no function");
  EXPECT_EQ(s.unusedRuleWarnings({true, true}).size(), 0u);
  EXPECT_EQ(s.unusedRuleWarnings({}).size(), 2u);
}

TEST(ScoreP, UnusedPatternsAreWarnedAboutOneByOne) {
  Selection s = parseOk("SCOREP_REGION_NAMES_BEGIN\n"
                        "  INCLUDE bar\n"
                        "          baz\n"
                        "SCOREP_REGION_NAMES_END\n");
  std::vector<std::string> warnings = s.unusedRuleWarnings({true, false});
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "t.sel:3:11: warning: pattern 'baz' matches no function");
}

// --- Files -------------------------------------------------------------------

TEST(SelectionFile, MissingFileIsReportedWithTheReason) {
  std::string path = tempPath("does-not-exist/targets.txt");
  std::string error;
  EXPECT_FALSE(Selection::parseFile(path, error).has_value());
  EXPECT_EQ(error, path + ": error: cannot read targets file: " +
                       std::strerror(ENOENT));
}

TEST(SelectionFile, DirectoryIsReportedAsUnreadable) {
  std::string error;
  EXPECT_FALSE(Selection::parseFile(::testing::TempDir(), error).has_value());
  EXPECT_EQ(error,
            ::testing::TempDir() +
                ": error: cannot read targets file: " + std::strerror(EISDIR));
}

TEST(SelectionFile, ParsesAndNamesTheFileInDiagnostics) {
  std::string path = tempPath("good.txt");
  writeFile(path, "# targets\nengine::*\n!engine::debug*\n");
  std::string error;
  std::optional<Selection> s = Selection::parseFile(path, error);
  ASSERT_TRUE(s.has_value()) << error;
  EXPECT_EQ(s->sourceName(), path);
  EXPECT_EQ(s->rules().size(), 2u);
  EXPECT_EQ(s->match(fn("engine::step")), Verdict::Include);
  EXPECT_EQ(s->unusedRuleWarnings({true, true}).size(), 0u);
  EXPECT_EQ(s->unusedRuleWarnings({true, false})[0],
            path + ":3:1: warning: pattern '!engine::debug*' matches no "
                   "function");

  std::string bad = tempPath("bad.txt");
  writeFile(bad, "foo\n  :bar\n");
  EXPECT_FALSE(Selection::parseFile(bad, error).has_value());
  EXPECT_EQ(error, bad + ":2:3: error: empty file pattern before ':'");
  std::remove(path.c_str());
  std::remove(bad.c_str());
}

TEST(SelectionFile, EmptyFileIsValidAndSelectsNothing) {
  std::string path = tempPath("empty.txt");
  writeFile(path, "");
  std::string error;
  std::optional<Selection> s = Selection::parseFile(path, error);
  ASSERT_TRUE(s.has_value()) << error;
  EXPECT_TRUE(s->rules().empty());
  EXPECT_EQ(s->match(fn("main", "/a/main.cpp")), Verdict::NoMatch);
  std::remove(path.c_str());
}

TEST(SelectionFile, ReadsScorePFilters) {
  std::string path = tempPath("scorep.filter");
  writeFile(path, "SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE *\n  INCLUDE main\n"
                  "SCOREP_REGION_NAMES_END\n");
  std::string error;
  std::optional<Selection> s = Selection::parseFile(path, error);
  ASSERT_TRUE(s.has_value()) << error;
  EXPECT_TRUE(s->isScoreP());
  EXPECT_EQ(s->match(fn("main")), Verdict::Include);
  EXPECT_EQ(s->match(fn("helper")), Verdict::Exclude);
  std::remove(path.c_str());
}

} // namespace
