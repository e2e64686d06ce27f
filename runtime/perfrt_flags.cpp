//===- perfrt_flags.cpp - parse and validate the runtime's settings -------===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_flags.h"

#include "perfrt_nvtx.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace perfrt {

// Every default in the table parses (a bad one fails to compile here).
static constexpr Flags Defaults{};
static_assert(Defaults.frequency == 1 && Defaults.mode == Mode::Trace,
              "the table's defaults are what the docs say");

namespace {

std::string bad(const char *name, const char *value, const char *problem) {
  return std::string("perfcc: ") + name + "='" + value + "': " + problem;
}

/// The value of \p name, or of its alias; both set with different values is
/// an error rather than a silent choice.
const char *lookup(const char *name, const char *(*getenv)(const char *),
                   std::string &error, bool &failed) {
  const char *value = getenv(name);
  for (const FlagAlias &a : Aliases) {
    if (std::strcmp(a.name, name) != 0)
      continue;
    const char *other = getenv(a.alias);
    if (other && value && std::strcmp(other, value) != 0) {
      error = std::string("perfcc: ") + name + "='" + value + "' and " +
              a.alias + "='" + other + "' disagree; set one of them";
      failed = true;
    }
    if (!value)
      value = other;
  }
  return value;
}

} // namespace

bool parseFlags(Flags &flags, std::string &error,
                const char *(*getenv)(const char *)) {
  bool failed = false;
#define PERFRT_FLAG(field, name, kind, def, help)                              \
  if (!failed) {                                                               \
    const char *value = lookup(name, getenv, error, failed);                   \
    if (!failed && value && !FlagKinds::kind::parse(value, flags.field)) {     \
      error = bad(name, value, FlagKinds::kind::expected);                     \
      failed = true;                                                           \
    }                                                                          \
  }
#include "perfrt_flags.inc"
#undef PERFRT_FLAG
  if (failed)
    return false;

  if (flags.out.empty())
    return error = "perfcc: PERFCC_OUT='': expected a folder", false;
  if (flags.traceKeep == TraceKeep::Last && flags.traceMaxMb == 0)
    return error = "perfcc: PERFCC_TRACE_KEEP='last' with "
                   "PERFCC_TRACE_MAX_MB=0: keeping the last calls needs a "
                   "size to keep (PERFCC_TRACE_MAX_MB, in MiB)",
           false;
  if (flags.frequency == 0)
    return error = bad("PERFCC_FREQUENCY", "0", "expected at least 1"), false;
  if (flags.bufferMb == 0)
    return error = bad("PERFCC_BUFFER_MB", "0", "expected at least 1"), false;

  // A window or a frequency without anything to delay would be ignored:
  // refuse it instead. (A window alone still bounds the throughput the
  // progress points measure, so it is accepted with delays or without.)
  if ((flags.delayNs != 0 || flags.frequency != 1) &&
      flags.delayTargets.empty())
    return error = "perfcc: PERFCC_DELAY_NS/PERFCC_FREQUENCY set without "
                   "PERFCC_DELAY_TARGETS: nothing would be delayed",
           false;
  if (flags.speedupPercent > 100)
    return error = "perfcc: PERFCC_SPEEDUP_PERCENT='" +
                   std::to_string(flags.speedupPercent) +
                   "': expected 0 to 100",
           false;
  if (flags.speedupPercent && flags.delayTargets.empty())
    return error = "perfcc: PERFCC_SPEEDUP_PERCENT set without "
                   "PERFCC_DELAY_TARGETS: nothing would be sped up",
           false;
  if (flags.speedupPercent && (flags.delayNs || flags.frequency != 1))
    return error = "perfcc: PERFCC_SPEEDUP_PERCENT with PERFCC_DELAY_NS or "
                   "PERFCC_FREQUENCY: a virtual speedup and speed bumps are "
                   "two experiments; run them separately",
           false;
  if (flags.mode == Mode::Off && !flags.delayTargets.empty())
    return error = "perfcc: PERFCC_MODE='off' with PERFCC_DELAY_TARGETS: the "
                   "probes are off, so nothing would be delayed (use "
                   "PERFCC_MODE=summary)",
           false;
  // Settings this build cannot honour are refused, never ignored.
  if (flags.nvtx && !nvtxSupported())
    return error = "perfcc: PERFCC_NVTX=1: this runtime was built without the "
                   "NVTX headers (no CUDA toolkit at build time)",
           false;
  if (flags.nvtx && flags.mode == Mode::Off)
    return error = "perfcc: PERFCC_NVTX=1 with PERFCC_MODE='off': the probes "
                   "are off, so no range would be emitted",
           false;
  if (flags.cuptiRaw && (flags.cupti == Cupti::Off || flags.mode == Mode::Off))
    return error = "perfcc: PERFCC_CUPTI_RAW=1 with PERFCC_CUPTI='off' or "
                   "PERFCC_MODE='off': CUPTI is not used, so there would be "
                   "no buffer to keep",
           false;
  return true;
}

std::string flagsHelp() {
  std::string text = "perfcc runtime settings (environment variables):\n";
  for (const FlagInfo &f : FlagTable)
    text += std::string("  ") + f.name + " (default '" + f.defaultText +
            "'): " + f.help + "\n";
  text += "  aliases:";
  for (const FlagAlias &a : Aliases)
    text += std::string(&a == Aliases ? " " : ", ") + a.alias;
  return text + "\n";
}

} // namespace perfrt

PERFRT_NOINSTR_END
