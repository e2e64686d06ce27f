//===- perfrt_flags.h - the runtime's settings ----------------------------===//
//
// Settings are read once, at start-up, from the environment. A bad value is
// one line on stderr naming the variable and the value, and exit status 2
// before main runs: an experiment with a setting silently ignored is worse
// than none (DESIGN.md).
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_FLAGS_H
#define PERFRT_FLAGS_H

#include <cstdint>
#include <string>

namespace perfrt {

enum class Mode { Trace, Summary, Off };
enum class Cupti { Auto, On, Off };
enum class ClockChoice { Auto, Tsc, Monotonic };

/// Plain data (fixed-size paths), so the runtime's global state is
/// constant-initialized and never destroyed: the exit-time flush runs after
/// static destructors and still reads it.
constexpr unsigned PathMax = 4096;
using Path = char[PathMax];

struct Flags {
  Path out = {};
  Mode mode = Mode::Trace;
  Path targets = {};
  Path delayTargets = {};
  uint64_t delayNs = 0;
  uint64_t frequency = 1;
  uint64_t speedupPercent = 0;
  uint64_t startMs = 0;
  uint64_t durationMs = 0;
  Cupti cupti = Cupti::Auto;
  bool nvtx = false;
  uint64_t bufferMb = 64;
  uint64_t traceMaxMb = 1024;
  ClockChoice clock = ClockChoice::Auto;
  bool help = false;
};

/// Parses the environment through \p getenv (injected for tests). Returns
/// false and sets \p error to "perfcc: VARIABLE='VALUE': problem" on the
/// first bad value.
bool parseFlags(Flags &flags, std::string &error,
                const char *(*getenv)(const char *));

/// The settings table, one line per variable, for PERFCC_HELP=1.
std::string flagsHelp();

} // namespace perfrt

#endif // PERFRT_FLAGS_H
