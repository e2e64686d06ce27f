//===- perfrt_flags.h - the runtime's settings ----------------------------===//
//
// Settings are read once, at start-up, from the environment. A bad value is
// one line on stderr naming the variable and the value, and exit status 2
// before main runs: an experiment with a setting silently ignored is worse
// than none (docs/runtime.md).
//
// Every setting is one line of perfrt_flags.inc. Each kind of value has one
// parser (FlagKinds below), constexpr, so the same code reads the table's
// defaults at compile time and the environment at run time.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_FLAGS_H
#define PERFRT_FLAGS_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace perfrt {

enum class Mode { Trace, Summary, Off };
enum class Cupti { Auto, On, Off };
enum class ClockChoice { Auto, Tsc, Monotonic };
/// Which spans the trace keeps once PERFCC_TRACE_MAX_MB is reached.
enum class TraceKeep { First, Last };

/// A path setting, as plain data (fixed size), so the runtime's global state
/// is constant-initialized and never destroyed: the exit-time flush runs
/// after static destructors and still reads it.
struct Path {
  static constexpr unsigned Max = 4096;
  char text[Max] = {};
  constexpr const char *c_str() const { return text; }
  constexpr bool empty() const { return text[0] == '\0'; }
};

namespace detail {
constexpr bool equal(const char *a, const char *b) {
  while (*a && *a == *b)
    ++a, ++b;
  return *a == *b;
}
/// A non-negative decimal integer of the whole of [s, end) or false.
constexpr bool parseU64(const char *s, const char *end, uint64_t &out) {
  if (s == end)
    return false;
  uint64_t v = 0;
  for (; s != end; ++s) {
    if (*s < '0' || *s > '9' || v > (UINT64_MAX - uint64_t(*s - '0')) / 10)
      return false;
    v = v * 10 + uint64_t(*s - '0');
  }
  out = v;
  return true;
}
constexpr const char *endOf(const char *s) {
  while (*s)
    ++s;
  return s;
}
/// One accepted spelling of a value.
template <class T> struct Choice {
  const char *text;
  T value;
};
template <class T, size_t N>
constexpr bool parseChoice(const char *s, const Choice<T> (&choices)[N], T &v) {
  for (const Choice<T> &c : choices)
    if (equal(s, c.text))
      return v = c.value, true;
  return false;
}
} // namespace detail

/// One parser per kind of setting: `parse` reads a whole value or returns
/// false, `expected` completes the error line.
namespace FlagKinds {
struct Path {
  using Value = perfrt::Path;
  static constexpr const char *expected = "path too long";
  static constexpr bool parse(const char *s, Value &v) {
    const char *end = detail::endOf(s);
    if (end - s >= perfrt::Path::Max)
      return false;
    for (unsigned i = 0; i <= unsigned(end - s); ++i)
      v.text[i] = s[i];
    return true;
  }
};
struct Mode {
  using Value = perfrt::Mode;
  static constexpr const char *expected = "expected trace, summary or off";
  static constexpr bool parse(const char *s, Value &v) {
    constexpr detail::Choice<Value> choices[] = {{"trace", Value::Trace},
                                                 {"summary", Value::Summary},
                                                 {"off", Value::Off}};
    return detail::parseChoice(s, choices, v);
  }
};
struct Cupti {
  using Value = perfrt::Cupti;
  static constexpr const char *expected = "expected auto, on or off";
  static constexpr bool parse(const char *s, Value &v) {
    constexpr detail::Choice<Value> choices[] = {
        {"auto", Value::Auto}, {"on", Value::On}, {"off", Value::Off}};
    return detail::parseChoice(s, choices, v);
  }
};
struct Clock {
  using Value = ClockChoice;
  static constexpr const char *expected = "expected auto, tsc or monotonic";
  static constexpr bool parse(const char *s, Value &v) {
    constexpr detail::Choice<Value> choices[] = {
        {"auto", Value::Auto},
        {"tsc", Value::Tsc},
        {"monotonic", Value::Monotonic}};
    return detail::parseChoice(s, choices, v);
  }
};
struct Keep {
  using Value = TraceKeep;
  static constexpr const char *expected = "expected first or last";
  static constexpr bool parse(const char *s, Value &v) {
    constexpr detail::Choice<Value> choices[] = {{"first", Value::First},
                                                 {"last", Value::Last}};
    return detail::parseChoice(s, choices, v);
  }
};
struct Bool {
  using Value = bool;
  static constexpr const char *expected = "expected 1/on/true or 0/off/false";
  static constexpr bool parse(const char *s, Value &v) {
    constexpr detail::Choice<Value> choices[] = {
        {"1", true},  {"on", true},   {"true", true},
        {"0", false}, {"off", false}, {"false", false}};
    return detail::parseChoice(s, choices, v);
  }
};
struct U64 {
  using Value = uint64_t;
  static constexpr const char *expected = "expected a non-negative integer";
  static constexpr bool parse(const char *s, Value &v) {
    return detail::parseU64(s, detail::endOf(s), v);
  }
};
struct Duration {
  using Value = uint64_t; // ns
  static constexpr const char *expected =
      "expected a non-negative duration such as 500, 10us, 2ms";
  static constexpr bool parse(const char *s, Value &v) {
    const char *end = detail::endOf(s);
    uint64_t scale = 1;
    // A suffix after the digits: ns, us, ms or s.
    if (end - s > 2 && end[-1] == 's' && end[-2] >= 'a' && end[-2] <= 'z') {
      scale = end[-2] == 'n'   ? 1
              : end[-2] == 'u' ? 1000
              : end[-2] == 'm' ? 1000000
                               : 0;
      end -= 2;
    } else if (end - s > 1 && end[-1] == 's') {
      scale = 1000000000;
      end -= 1;
    }
    uint64_t n = 0;
    if (!scale || !detail::parseU64(s, end, n) || (n && n > UINT64_MAX / scale))
      return false;
    return v = n * scale, true;
  }
};

/// A table default, parsed at compile time; a default its own parser
/// rejects does not compile (badDefault is not constexpr).
void badDefault();
template <class Kind>
constexpr typename Kind::Value defaultOf(const char *text) {
  typename Kind::Value v{};
  if (!Kind::parse(text, v))
    badDefault();
  return v;
}
} // namespace FlagKinds

struct Flags {
#define PERFRT_FLAG(field, name, kind, def, help)                              \
  FlagKinds::kind::Value field = FlagKinds::defaultOf<FlagKinds::kind>(def);
#include "perfrt_flags.inc"
#undef PERFRT_FLAG
};

/// One line of the table, for the help text and the documentation test.
struct FlagInfo {
  const char *name, *kind, *defaultText, *help;
};
inline constexpr FlagInfo FlagTable[] = {
#define PERFRT_FLAG(field, name, kind, def, help) {name, #kind, def, help},
#include "perfrt_flags.inc"
#undef PERFRT_FLAG
};

/// The speed-bump methodology's names for the delay settings.
struct FlagAlias {
  const char *alias, *name;
};
inline constexpr FlagAlias Aliases[] = {
    {"SPEED_BUMP_TARGETS", "PERFCC_DELAY_TARGETS"},
    {"SPEED_BUMP_DELAY_NS", "PERFCC_DELAY_NS"},
    {"SPEED_BUMP_FREQUENCY", "PERFCC_FREQUENCY"},
    {"SPEED_BUMP_START_MS", "PERFCC_START_MS"},
    {"SPEED_BUMP_DURATION_MS", "PERFCC_DURATION_MS"},
};

/// Parses the environment through \p getenv (injected for tests) into
/// \p flags, which holds the defaults. Returns false and sets \p error to
/// "perfcc: VARIABLE='VALUE': problem" on the first bad value.
bool parseFlags(Flags &flags, std::string &error,
                const char *(*getenv)(const char *));

/// The settings table, one line per variable, for PERFCC_HELP=1.
std::string flagsHelp();

} // namespace perfrt

#endif // PERFRT_FLAGS_H
