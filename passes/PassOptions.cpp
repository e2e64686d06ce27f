//===- PassOptions.cpp - fill PassOptions from the environment ------------===//
//
// Every variable is validated here, once per compiler process, so a bad value
// stops the build with one line instead of being silently ignored.
//
//===----------------------------------------------------------------------===//
#include "PassOptions.h"

#include <cerrno>
#include <cstdlib>

namespace perfcc {

static const char *envOrNull(const char *Name) {
  const char *Value = std::getenv(Name);
  return (Value && *Value) ? Value : nullptr;
}

std::optional<PassOptions> PassOptions::fromEnvironment(std::string &Error) {
  PassOptions Opts;

  if (const char *Stage = envOrNull("PERFCC_BUILD_STAGE")) {
    std::string S(Stage);
    if (S == "early") {
      Opts.stage = Stage::Early;
    } else if (S == "late") {
      Opts.stage = Stage::Late;
    } else {
      Error = "PERFCC_BUILD_STAGE='" + S + "': expected 'early' or 'late'";
      return std::nullopt;
    }
  }

  if (const char *Threshold = envOrNull("PERFCC_BUILD_THRESHOLD")) {
    char *End = nullptr;
    errno = 0;
    unsigned long long N = std::strtoull(Threshold, &End, 10);
    if (*Threshold == '-' || *End != '\0' || errno == ERANGE ||
        N > 0xffffffffull) {
      Error = std::string("PERFCC_BUILD_THRESHOLD='") + Threshold +
              "': expected a non-negative integer (IR instructions)";
      return std::nullopt;
    }
    Opts.threshold = static_cast<unsigned>(N);
  }

  if (const char *Targets = envOrNull("PERFCC_BUILD_TARGETS")) {
    std::string ParseError;
    std::optional<Selection> Parsed = Selection::parseFile(Targets, ParseError);
    if (!Parsed) {
      Error = ParseError;
      return std::nullopt;
    }
    Opts.targets = std::make_shared<const Selection>(std::move(*Parsed));
  }

  if (const char *Report = envOrNull("PERFCC_BUILD_REPORT"))
    Opts.reportPath = Report;

  if (const char *Given = envOrNull("PERFCC_BUILD_INSTRUMENT_ATTRS")) {
    std::string S(Given);
    if (S != "0" && S != "1") {
      Error = "PERFCC_BUILD_INSTRUMENT_ATTRS='" + S + "': expected 0 or 1";
      return std::nullopt;
    }
    Opts.instrumentAttrsGiven = S == "1";
  }

  return Opts;
}

} // namespace perfcc
