//===- BuildSettings.cpp - perfcc's own --perf-* flags --------------------===//
//
// Validates perfcc's flags and turns them into PERFCC_BUILD_* variables. See
// BuildSettings.h.
//
//===----------------------------------------------------------------------===//
#include "BuildSettings.h"

#include "perfcc/Selection.h"

#include <algorithm>
#include <cstdlib>
#include <unistd.h>

namespace perfcc::driver {

namespace {

enum class ValueKind { TargetsFile, Threshold, Stage, ReportFile };

struct FlagSpec {
  std::string_view name;
  std::string_view metavar;
  const char *variable;
  ValueKind kind;
};

constexpr FlagSpec Flags[] = {
    {"--perf-targets", "FILE", "PERFCC_BUILD_TARGETS", ValueKind::TargetsFile},
    {"--perf-threshold", "N", "PERFCC_BUILD_THRESHOLD", ValueKind::Threshold},
    {"--perf-stage", "early|late", "PERFCC_BUILD_STAGE", ValueKind::Stage},
    {"--perf-report", "FILE", "PERFCC_BUILD_REPORT", ValueKind::ReportFile},
};

/// "--perf-targets=FILE, --perf-threshold=N, ..." for messages.
std::string usageList() {
  std::string list;
  for (const FlagSpec &flag : Flags) {
    if (!list.empty())
      list += ", ";
    list.append(flag.name).append("=").append(flag.metavar);
  }
  return list;
}

/// \p path, relative to the working directory, made absolute. The compiler
/// usually runs where perfcc does, but a compiler cache or a distributed
/// build may run it elsewhere with the same environment.
std::string makeAbsolute(const std::string &path) {
  if (!path.empty() && path[0] == '/')
    return path;
  // get_current_dir_name() prefers $PWD when it names the working directory,
  // so a path under a symlinked folder reads as the user typed it.
  char *cwd = get_current_dir_name();
  if (!cwd)
    return path;
  std::string absolute = cwd;
  std::free(cwd);
  std::string_view rest = path;
  while (rest.substr(0, 2) == "./")
    rest.remove_prefix(2);
  if (absolute != "/")
    absolute += '/';
  return absolute.append(rest);
}

/// Checks \p value for \p flag and sets \p converted to the variable's
/// value; on a bad value returns false with \p error set.
bool convert(const FlagSpec &flag, const std::string &value,
             std::string &converted, std::string &error) {
  std::string prefix = "perfcc: error: " + std::string(flag.name) + ": ";
  switch (flag.kind) {
  case ValueKind::TargetsFile: {
    if (value.empty()) {
      error = prefix + "expected a file name";
      return false;
    }
    // Parsed here too, before clang runs, so a malformed file gives exactly
    // its own FILE:LINE:COL line and status 2, not a failure from inside
    // clang, wrapped in whatever clang prints around a failing plugin.
    if (!Selection::parseFile(value, error))
      return false;
    converted = makeAbsolute(value);
    return true;
  }
  case ValueKind::Threshold: {
    if (value.empty() || !std::all_of(value.begin(), value.end(), [](char c) {
          return c >= '0' && c <= '9';
        })) {
      error = prefix + "'" + value + "' is not a non-negative integer";
      return false;
    }
    // The plugin keeps the threshold in 32 bits.
    std::size_t digits = value.find_first_not_of('0');
    std::string_view number = digits == std::string::npos
                                  ? std::string_view("0")
                                  : std::string_view(value).substr(digits);
    if (number.size() > 10 ||
        (number.size() == 10 && number > std::string_view("4294967295"))) {
      error = prefix + "'" + value + "' is out of range (at most 4294967295)";
      return false;
    }
    converted = std::string(number);
    return true;
  }
  case ValueKind::Stage:
    if (value != "early" && value != "late") {
      error = prefix + "'" + value + "' is not 'early' or 'late'";
      return false;
    }
    converted = value;
    return true;
  case ValueKind::ReportFile:
    if (value.empty()) {
      error = prefix + "expected a file name";
      return false;
    }
    converted = makeAbsolute(value);
    return true;
  }
  return false;
}

} // namespace

bool isPerfFlag(std::string_view arg) { return arg.substr(0, 7) == "--perf-"; }

bool takePerfFlags(std::vector<std::string> &args, bool validate,
                   BuildSettings &settings, std::string &error) {
  std::vector<std::string> kept;
  kept.reserve(args.size());
  for (std::string &arg : args) {
    if (!isPerfFlag(arg)) {
      kept.push_back(std::move(arg));
      continue;
    }
    if (!validate)
      continue;
    std::size_t eq = arg.find('=');
    std::string_view name = std::string_view(arg).substr(0, eq);
    const FlagSpec *flag =
        std::find_if(std::begin(Flags), std::end(Flags),
                     [&](const FlagSpec &f) { return f.name == name; });
    if (flag == std::end(Flags)) {
      error = "perfcc: error: unknown flag '" + arg + "' (perfcc takes " +
              usageList() + ")";
      return false;
    }
    if (eq == std::string::npos) {
      error = "perfcc: error: " + std::string(flag->name) +
              " needs a value: " + std::string(flag->name) + "=" +
              std::string(flag->metavar);
      return false;
    }
    std::string value;
    if (!convert(*flag, arg.substr(eq + 1), value, error))
      return false;
    auto slot = std::find_if(
        settings.environment.begin(), settings.environment.end(),
        [&](const auto &entry) { return entry.first == flag->variable; });
    if (slot != settings.environment.end())
      slot->second = value;
    else
      settings.environment.emplace_back(flag->variable, value);
  }
  args = std::move(kept);
  return true;
}

} // namespace perfcc::driver
