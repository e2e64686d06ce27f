//===- perfrt_flags.cpp - parse and validate the runtime's settings -------===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_flags.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace perfrt {
namespace {

struct Alias {
  const char *alias, *name;
};
// The speed-bump methodology's names for the delay settings.
constexpr Alias Aliases[] = {
    {"SPEED_BUMP_TARGETS", "PERFCC_DELAY_TARGETS"},
    {"SPEED_BUMP_DELAY_NS", "PERFCC_DELAY_NS"},
    {"SPEED_BUMP_FREQUENCY", "PERFCC_FREQUENCY"},
    {"SPEED_BUMP_START_MS", "PERFCC_START_MS"},
    {"SPEED_BUMP_DURATION_MS", "PERFCC_DURATION_MS"},
};

std::string bad(const char *name, const char *value, const char *problem) {
  return std::string("perfcc: ") + name + "='" + value + "': " + problem;
}

bool parseU64(const char *s, uint64_t &out) {
  if (!*s || *s == '-' || *s == '+' || *s == ' ')
    return false;
  char *end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s, &end, 10);
  if (errno == ERANGE || *end)
    return false;
  out = v;
  return true;
}

bool parse(const char *name, const char *s, Path &v, std::string &error) {
  size_t n = std::strlen(s);
  if (n >= PathMax)
    return error = bad(name, s, "path too long"), false;
  std::memcpy(v, s, n + 1);
  return true;
}
bool parse(const char *name, const char *s, Mode &v, std::string &error) {
  if (!std::strcmp(s, "trace"))
    v = Mode::Trace;
  else if (!std::strcmp(s, "summary"))
    v = Mode::Summary;
  else if (!std::strcmp(s, "off"))
    v = Mode::Off;
  else
    return error = bad(name, s, "expected trace, summary or off"), false;
  return true;
}
bool parse(const char *name, const char *s, Cupti &v, std::string &error) {
  if (!std::strcmp(s, "auto"))
    v = Cupti::Auto;
  else if (!std::strcmp(s, "on"))
    v = Cupti::On;
  else if (!std::strcmp(s, "off"))
    v = Cupti::Off;
  else
    return error = bad(name, s, "expected auto, on or off"), false;
  return true;
}
bool parse(const char *name, const char *s, ClockChoice &v,
           std::string &error) {
  if (!std::strcmp(s, "auto"))
    v = ClockChoice::Auto;
  else if (!std::strcmp(s, "tsc"))
    v = ClockChoice::Tsc;
  else if (!std::strcmp(s, "monotonic"))
    v = ClockChoice::Monotonic;
  else
    return error = bad(name, s, "expected auto, tsc or monotonic"), false;
  return true;
}
bool parse(const char *name, const char *s, bool &v, std::string &error) {
  if (!std::strcmp(s, "1") || !std::strcmp(s, "on") || !std::strcmp(s, "true"))
    v = true;
  else if (!std::strcmp(s, "0") || !std::strcmp(s, "off") ||
           !std::strcmp(s, "false"))
    v = false;
  else
    return error = bad(name, s, "expected 1/on/true or 0/off/false"), false;
  return true;
}
bool parse(const char *name, const char *s, uint64_t &v, std::string &error) {
  if (!parseU64(s, v))
    return error = bad(name, s, "expected a non-negative integer"), false;
  return true;
}
bool parseDuration(const char *name, const char *s, uint64_t &v,
                   std::string &error) {
  std::string text(s);
  uint64_t scale = 1;
  struct Suffix {
    const char *s;
    uint64_t scale;
  };
  for (Suffix suf : {Suffix{"ns", 1}, Suffix{"us", 1000}, Suffix{"ms", 1000000},
                     Suffix{"s", 1000000000}}) {
    size_t n = std::strlen(suf.s);
    if (text.size() > n && text.compare(text.size() - n, n, suf.s) == 0 &&
        (n != 1 ||
         (text[text.size() - 2] >= '0' && text[text.size() - 2] <= '9'))) {
      text.resize(text.size() - n);
      scale = suf.scale;
      break;
    }
  }
  uint64_t n = 0;
  if (!parseU64(text.c_str(), n) || (n && n > UINT64_MAX / scale))
    return error = bad(name, s,
                       "expected a non-negative duration such as 500, 10us, "
                       "2ms"),
           false;
  v = n * scale;
  return true;
}

// Kinds map onto the parse overloads; Path and Duration need their own.
#define PERFRT_PARSE_Path(name, s, f, e) parse(name, s, f, e)
#define PERFRT_PARSE_Mode(name, s, f, e) parse(name, s, f, e)
#define PERFRT_PARSE_Cupti(name, s, f, e) parse(name, s, f, e)
#define PERFRT_PARSE_Clock(name, s, f, e) parse(name, s, f, e)
#define PERFRT_PARSE_Bool(name, s, f, e) parse(name, s, f, e)
#define PERFRT_PARSE_U64(name, s, f, e) parse(name, s, f, e)
#define PERFRT_PARSE_Duration(name, s, f, e) parseDuration(name, s, f, e)

/// The value of \p name, or of its alias; both set with different values is
/// an error rather than a silent choice.
const char *lookup(const char *name, const char *(*getenv)(const char *),
                   std::string &error, bool &failed) {
  const char *value = getenv(name);
  for (const Alias &a : Aliases) {
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
    PERFRT_PARSE_##kind(name, def, flags.field, error);                        \
    const char *value = lookup(name, getenv, error, failed);                   \
    if (!failed && value &&                                                    \
        !PERFRT_PARSE_##kind(name, value, flags.field, error))                 \
      failed = true;                                                           \
  }
#include "perfrt_flags.inc"
#undef PERFRT_FLAG
  if (failed)
    return false;

  if (!flags.out[0])
    return error = "perfcc: PERFCC_OUT='': expected a folder", false;
  if (flags.frequency == 0)
    return error = bad("PERFCC_FREQUENCY", "0", "expected at least 1"), false;
  if (flags.bufferMb == 0)
    return error = bad("PERFCC_BUFFER_MB", "0", "expected at least 1"), false;

  // A window or a frequency without anything to delay would be ignored:
  // refuse it instead. (A window alone still bounds the throughput the
  // progress points measure, so it is accepted with delays or without.)
  if ((flags.delayNs != 0 || flags.frequency != 1) && !flags.delayTargets[0])
    return error = "perfcc: PERFCC_DELAY_NS/PERFCC_FREQUENCY set without "
                   "PERFCC_DELAY_TARGETS: nothing would be delayed",
           false;
  if (flags.speedupPercent > 100)
    return error = "perfcc: PERFCC_SPEEDUP_PERCENT='" +
                   std::to_string(flags.speedupPercent) +
                   "': expected 0 to 100",
           false;
  if (flags.speedupPercent && !flags.delayTargets[0])
    return error = "perfcc: PERFCC_SPEEDUP_PERCENT set without "
                   "PERFCC_DELAY_TARGETS: nothing would be sped up",
           false;
  if (flags.speedupPercent && (flags.delayNs || flags.frequency != 1))
    return error = "perfcc: PERFCC_SPEEDUP_PERCENT with PERFCC_DELAY_NS or "
                   "PERFCC_FREQUENCY: a virtual speedup and speed bumps are "
                   "two experiments; run them separately",
           false;
  if (flags.mode == Mode::Off && flags.delayTargets[0])
    return error = "perfcc: PERFCC_MODE='off' with PERFCC_DELAY_TARGETS: the "
                   "probes are off, so nothing would be delayed (use "
                   "PERFCC_MODE=summary)",
           false;
  // Settings this runtime cannot honour yet are refused, never ignored.
  if (flags.cupti == Cupti::On)
    return error = "perfcc: PERFCC_CUPTI='on': CUPTI tracing is not supported "
                   "by this runtime yet",
           false;
  if (flags.nvtx)
    return error = "perfcc: PERFCC_NVTX: NVTX ranges are not supported by this "
                   "runtime yet",
           false;
  return true;
}

std::string flagsHelp() {
  std::string text = "perfcc runtime settings (environment variables):\n";
#define PERFRT_FLAG(field, name, kind, def, help)                              \
  text += std::string("  ") + name + " (default '" + def + "'): " + help + "\n";
#include "perfrt_flags.inc"
#undef PERFRT_FLAG
  text += "  aliases: SPEED_BUMP_TARGETS, SPEED_BUMP_DELAY_NS, "
          "SPEED_BUMP_FREQUENCY, SPEED_BUMP_START_MS, SPEED_BUMP_DURATION_MS\n";
  return text;
}

} // namespace perfrt

PERFRT_NOINSTR_END
