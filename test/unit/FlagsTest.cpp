// The runtime's settings: defaults, every kind of value, the speed-bump
// aliases, and one clear line for each bad value.
#include "perfrt_flags.h"
#include "perfrt_nvtx.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

using namespace perfrt;

namespace {

std::map<std::string, std::string> env;
const char *fakeGetenv(const char *name) {
  auto it = env.find(name);
  return it == env.end() ? nullptr : it->second.c_str();
}

bool parseWith(std::map<std::string, std::string> vars, Flags &flags,
               std::string &error) {
  env = std::move(vars);
  return parseFlags(flags, error, fakeGetenv);
}

// The defaults are the table's (Flags expands it; docs/runtime.md is checked
// against it below). Each default, set explicitly, reads back as itself: it
// is a value users may write, and the parser at run time agrees with the one
// that read it at compile time.
TEST(Flags, EveryDefaultReadsBackAsItself) {
  Flags defaults;
  for (const FlagInfo &info : FlagTable) {
    Flags f;
    std::string error;
    ASSERT_TRUE(parseWith({{info.name, info.defaultText}}, f, error))
        << info.name << ": " << error;
#define PERFRT_FLAG(field, name, kind, def, help)                              \
  EXPECT_EQ(std::memcmp(&f.field, &defaults.field, sizeof f.field), 0) << name;
#include "perfrt_flags.inc"
#undef PERFRT_FLAG
  }
}

TEST(Flags, ValuesOfEveryKindParse) {
  Flags f;
  std::string error;
  ASSERT_TRUE(parseWith({{"PERFCC_OUT", "/tmp/x"},
                         {"PERFCC_MODE", "summary"},
                         {"PERFCC_TARGETS", "t.txt"},
                         {"PERFCC_BUFFER_MB", "8"},
                         {"PERFCC_CLOCK", "monotonic"},
                         {"PERFCC_CUPTI", "off"},
                         {"PERFCC_HELP", "1"}},
                        f, error))
      << error;
  EXPECT_STREQ(f.out.c_str(), "/tmp/x");
  EXPECT_EQ(f.mode, Mode::Summary);
  EXPECT_STREQ(f.targets.c_str(), "t.txt");
  EXPECT_EQ(f.bufferMb, 8u);
  EXPECT_EQ(f.clock, ClockChoice::Monotonic);
  EXPECT_EQ(f.cupti, Cupti::Off);
  EXPECT_TRUE(f.help);
}

TEST(Flags, BadValueIsOneLineNamingVariableAndValue) {
  struct Case {
    const char *name, *value, *message;
  } cases[] = {
      {"PERFCC_MODE", "bogus",
       "perfcc: PERFCC_MODE='bogus': expected trace, summary or off"},
      {"PERFCC_BUFFER_MB", "-3",
       "perfcc: PERFCC_BUFFER_MB='-3': expected a non-negative integer"},
      {"PERFCC_BUFFER_MB", "0",
       "perfcc: PERFCC_BUFFER_MB='0': expected at "
       "least 1"},
      {"PERFCC_CLOCK", "hpet",
       "perfcc: PERFCC_CLOCK='hpet': expected auto, tsc or monotonic"},
      {"PERFCC_HELP", "yes",
       "perfcc: PERFCC_HELP='yes': expected 1/on/true or 0/off/false"},
      {"PERFCC_DELAY_NS", "10 us",
       "perfcc: PERFCC_DELAY_NS='10 us': expected a non-negative duration "
       "such as 500, 10us, 2ms"},
  };
  for (const Case &c : cases) {
    Flags f;
    std::string error;
    EXPECT_FALSE(parseWith({{c.name, c.value}}, f, error)) << c.name;
    EXPECT_EQ(error, c.message);
  }
}

TEST(Flags, CuptiAndNvtxAreReadAndWhatCannotWorkIsRefused) {
  Flags f;
  std::string error;
  ASSERT_TRUE(parseWith({{"PERFCC_CUPTI", "on"}}, f, error)) << error;
  EXPECT_EQ(f.cupti, Cupti::On);
  ASSERT_TRUE(parseWith({{"PERFCC_CUPTI", "off"}}, f, error)) << error;
  EXPECT_EQ(f.cupti, Cupti::Off);
  EXPECT_FALSE(parseWith({{"PERFCC_CUPTI", "maybe"}}, f, error));
  // NVTX: honoured in a build with its headers, refused (never ignored) in
  // one without; and never with the probes off.
  Flags n;
  bool parsed = parseWith({{"PERFCC_NVTX", "1"}}, n, error);
  EXPECT_EQ(parsed, nvtxSupported()) << error;
  if (!parsed)
    EXPECT_NE(error.find("built without the NVTX headers"), std::string::npos)
        << error;
  else
    EXPECT_TRUE(n.nvtx);
  EXPECT_FALSE(parseWith({{"PERFCC_NVTX", "1"}, {"PERFCC_MODE", "off"}}, n, error));
  if (nvtxSupported())
    EXPECT_NE(error.find("PERFCC_MODE='off'"), std::string::npos) << error;
}

TEST(Flags, DelayWithoutTargetsIsRefused) {
  for (auto vars : std::initializer_list<std::map<std::string, std::string>>{
           {{"PERFCC_DELAY_NS", "10us"}},
           {{"SPEED_BUMP_DELAY_NS", "100"}},
           {{"PERFCC_FREQUENCY", "3"}}}) {
    Flags f;
    std::string error;
    EXPECT_FALSE(parseWith(vars, f, error)) << vars.begin()->first;
    EXPECT_EQ(error, "perfcc: PERFCC_DELAY_NS/PERFCC_FREQUENCY set without "
                     "PERFCC_DELAY_TARGETS: nothing would be delayed");
  }
}

TEST(Flags, DelaySettingsAndAliasesParse) {
  Flags f;
  std::string error;
  ASSERT_TRUE(parseWith({{"SPEED_BUMP_TARGETS", "d.txt"},
                         {"PERFCC_DELAY_NS", "10us"},
                         {"SPEED_BUMP_FREQUENCY", "4"},
                         {"PERFCC_START_MS", "100"},
                         {"SPEED_BUMP_DURATION_MS", "500"}},
                        f, error))
      << error;
  EXPECT_STREQ(f.delayTargets.c_str(), "d.txt");
  EXPECT_EQ(f.delayNs, 10000u);
  EXPECT_EQ(f.frequency, 4u);
  EXPECT_EQ(f.startMs, 100u);
  EXPECT_EQ(f.durationMs, 500u);
}

TEST(Flags, DelaysWithProbesOffAreRefused) {
  Flags f;
  std::string error;
  EXPECT_FALSE(parseWith(
      {{"PERFCC_MODE", "off"}, {"PERFCC_DELAY_TARGETS", "d.txt"}}, f, error));
  EXPECT_NE(error.find("PERFCC_MODE='off' with PERFCC_DELAY_TARGETS"),
            std::string::npos)
      << error;
}

TEST(Flags, AliasesThatDisagreeAreAnError) {
  Flags f;
  std::string error;
  EXPECT_FALSE(parseWith(
      {{"PERFCC_FREQUENCY", "2"}, {"SPEED_BUMP_FREQUENCY", "3"}}, f, error));
  EXPECT_EQ(error, "perfcc: PERFCC_FREQUENCY='2' and SPEED_BUMP_FREQUENCY='3' "
                   "disagree; set one of them");
}

TEST(Flags, HelpPrintsEveryLineOfTheTable) {
  std::string help = flagsHelp();
  for (const FlagInfo &f : FlagTable)
    EXPECT_NE(help.find(std::string("  ") + f.name + " (default '" +
                        f.defaultText + "'): " + f.help + "\n"),
              std::string::npos)
        << f.name;
  for (const FlagAlias &a : Aliases)
    EXPECT_NE(help.find(a.alias), std::string::npos) << a.alias;
  EXPECT_EQ(std::count(help.begin(), help.end(), '\n'),
            std::size(FlagTable) + 2);
}

/// The rows of docs/runtime.md's settings table: first cell (variable and
/// aliases) -> last cell (default).
std::map<std::string, std::string> documentedSettings() {
  std::ifstream in(PERFCC_SOURCE_DIR "/docs/runtime.md");
  std::map<std::string, std::string> rows;
  std::string line;
  std::regex row(R"(^\| `(PERFCC_[A-Z_]+)`([^|]*)\|.*\| ([^|]+) \|$)");
  for (std::smatch m; std::getline(in, line);)
    if (std::regex_match(line, m, row))
      rows[m[1]] = m[2].str() + "|" + m[3].str();
  return rows;
}

TEST(Flags, DocsDocumentEverySettingWithItsDefaultAndAliases) {
  std::map<std::string, std::string> rows = documentedSettings();
  ASSERT_FALSE(rows.empty()) << "no settings table in docs/runtime.md";
  for (const FlagInfo &f : FlagTable) {
    auto it = rows.find(f.name);
    ASSERT_NE(it, rows.end()) << f.name << " is not in docs/runtime.md";
    std::string cell = it->second.substr(it->second.find('|') + 1);
    std::string expected =
        *f.defaultText ? std::string("`") + f.defaultText + "`" : "unset";
    EXPECT_EQ(cell.substr(0, expected.size()), expected)
        << f.name << ": docs/runtime.md says the default is '" << cell << "'";
  }
  for (const FlagAlias &a : Aliases)
    EXPECT_NE(rows[a.name].find(a.alias), std::string::npos)
        << a.alias << " is not documented in the row of " << a.name;
  // And nothing documented that the runtime does not read.
  for (const auto &[name, cell] : rows)
    EXPECT_TRUE(std::any_of(std::begin(FlagTable), std::end(FlagTable),
                            [&](const FlagInfo &f) { return name == f.name; }))
        << name << " is documented but not a setting";
}

} // namespace
