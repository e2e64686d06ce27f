// The runtime's settings: defaults, every kind of value, the speed-bump
// aliases, and one clear line for each bad value.
#include "perfrt_flags.h"

#include <gtest/gtest.h>

#include <map>
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

TEST(Flags, DefaultsFollowTheDesign) {
  Flags f;
  std::string error;
  ASSERT_TRUE(parseWith({}, f, error)) << error;
  EXPECT_STREQ(f.out, "./perfcc-out");
  EXPECT_EQ(f.mode, Mode::Trace);
  EXPECT_STREQ(f.targets, "");
  EXPECT_EQ(f.frequency, 1u);
  EXPECT_EQ(f.cupti, Cupti::Auto);
  EXPECT_EQ(f.bufferMb, 64u);
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
  EXPECT_STREQ(f.out, "/tmp/x");
  EXPECT_EQ(f.mode, Mode::Summary);
  EXPECT_STREQ(f.targets, "t.txt");
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

TEST(Flags, SettingsNotYetImplementedAreRefusedNotIgnored) {
  for (auto vars : std::initializer_list<std::map<std::string, std::string>>{
           {{"PERFCC_CUPTI", "on"}}, {{"PERFCC_NVTX", "1"}}}) {
    Flags f;
    std::string error;
    EXPECT_FALSE(parseWith(vars, f, error)) << vars.begin()->first;
    EXPECT_NE(error.find("not supported by this runtime yet"),
              std::string::npos)
        << error;
  }
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
  EXPECT_STREQ(f.delayTargets, "d.txt");
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

TEST(Flags, HelpListsEveryVariable) {
  std::string help = flagsHelp();
  for (const char *name :
       {"PERFCC_OUT", "PERFCC_MODE", "PERFCC_TARGETS", "PERFCC_DELAY_TARGETS",
        "PERFCC_DELAY_NS", "PERFCC_FREQUENCY", "PERFCC_START_MS",
        "PERFCC_DURATION_MS", "PERFCC_CUPTI", "PERFCC_NVTX",
        "SPEED_BUMP_TARGETS"})
    EXPECT_NE(help.find(name), std::string::npos) << name;
}

} // namespace
