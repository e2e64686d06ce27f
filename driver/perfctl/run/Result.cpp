//===- Result.cpp - what one run of a sweep measured ----------------------===//
#include "run/Result.h"

#include "perfcc/OutputSchema.h"
#include "perfcc/Selection.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <pcre2.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <sstream>

namespace perfcc::perfctl {

using nlohmann::json;
namespace key = perfcc::schema::summary;

namespace {

/// A value that is there but not of its kind: a count that is not a
/// non-negative integer (a float past 2^64, a negative number, a string), a
/// flag that is not true or false. The summary is malformed, and converting
/// it anyway is undefined behaviour or an exception (both found by
/// test/fuzz/summary_fuzzer: 1e+41 as a duration, 0 as "armed").
struct BadValue {
  std::string key, value, expected;
};

/// The count at \p key; 0 when absent (older runtimes wrote fewer keys).
std::uint64_t u64(const json &object, const char *key) {
  auto it = object.find(key);
  if (it == object.end())
    return 0;
  if (it->is_number_unsigned())
    return it->get<std::uint64_t>();
  if (it->is_number_integer() && it->get<std::int64_t>() >= 0)
    return std::uint64_t(it->get<std::int64_t>());
  throw BadValue{key, it->dump(), "a count (a non-negative integer)"};
}

/// The flag at \p key; \p absent when it is not there.
bool flag(const json &object, const char *key, bool absent) {
  auto it = object.find(key);
  if (it == object.end())
    return absent;
  if (it->is_boolean())
    return it->get<bool>();
  throw BadValue{key, it->dump(), "true or false"};
}

double dbl(const json &object, const char *key) {
  auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string str(const json &object, const char *key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

template <typename T>
T &byName(std::vector<T> &items, const std::string &name) {
  for (T &item : items)
    if (item.name == name)
      return item;
  items.push_back(T{});
  items.back().name = name;
  return items.back();
}

std::optional<RunMeasurement> parseSummaryOrThrow(std::string_view text,
                                                  const std::string &name,
                                                  std::string &error);

} // namespace

std::optional<RunMeasurement> parseSummary(std::string_view text,
                                           const std::string &name,
                                           std::string &error) {
  try {
    return parseSummaryOrThrow(text, name, error);
  } catch (const BadValue &bad) {
    error = fmt::format("{}: \"{}\" is {}, not {}: not a summary perfcc wrote",
                        name, bad.key, bad.value.substr(0, 40), bad.expected);
    return std::nullopt;
  } catch (const json::exception &e) {
    // Any other value of the wrong kind the reads below did not foresee.
    error = fmt::format("{}: not a summary perfcc wrote ({})", name, e.what());
    return std::nullopt;
  }
}

namespace {

std::optional<RunMeasurement> parseSummaryOrThrow(std::string_view text,
                                                  const std::string &name,
                                                  std::string &error) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains(key::Functions)) {
    error = fmt::format("{}: not a perfcc summary (malformed JSON or no "
                        "\"functions\")",
                        name);
    return std::nullopt;
  }
  RunMeasurement m;
  m.files.push_back(name);
  m.durationNs = u64(doc, key::DurationNs);
  // A runtime without the window measured the whole run.
  m.windowNs = doc.contains(key::Window)
                   ? u64(doc[key::Window], key::DurationNs)
                   : m.durationNs;
  if (auto it = doc.find(key::Delay); it != doc.end() && it->is_object()) {
    const json &delay = *it;
    m.hasDelay = true;
    m.armed = flag(delay, key::Armed, false);
    m.delayedCalls = u64(delay, key::DelayedCalls);
    m.requestedNs = u64(delay, key::RequestedNs);
    m.deliveredNs = u64(delay, key::DeliveredNs);
    m.mutexWaitNs = u64(delay, key::MutexWaitNs);
    m.contendedLocks = u64(delay, key::ContendedLocks);
    if (auto cal = delay.find(key::Calibration); cal != delay.end()) {
      m.clockReadNs = dbl(*cal, key::ClockReadNs);
      m.minDelayNs = dbl(*cal, key::MinDelayNs);
    }
    for (const json &f : delay.value(key::Functions, json::array())) {
      DelayedFunction &d = byName(m.delayed, str(f, key::Name));
      d.delayedCalls += u64(f, key::DelayedCalls);
      d.requestedNs += u64(f, key::RequestedNs);
      d.deliveredNs += u64(f, key::DeliveredNs);
      d.worstErrorNs = std::max(d.worstErrorNs, dbl(f, key::WorstErrorNs));
      d.workNs += u64(f, key::WorkNs);
      d.workCalls += u64(f, key::WorkCalls);
      d.heldWorkNs += dbl(f, key::HeldShare) * double(u64(f, key::WorkNs));
    }
  }
  if (auto it = doc.find(key::Speedup); it != doc.end() && it->is_object()) {
    const json &speedup = *it;
    m.hasSpeedup = true;
    m.speedupPercent = u64(speedup, key::Percent);
    m.insertedNs = u64(speedup, key::InsertedNs);
    m.paidNs = u64(speedup, key::PaidNs);
    m.effectiveNs = u64(speedup, key::EffectiveDurationNs);
    auto valid = speedup.find(key::Valid);
    m.speedupValid =
        !(valid != speedup.end() && valid->is_boolean() && !valid->get<bool>());
    m.speedupReason = str(speedup, key::Reason);
  }
  for (const json &p : doc.value(key::Progress, json::array())) {
    ProgressCount &point = byName(m.progress, str(p, key::Name));
    point.kind = str(p, key::Kind);
    bool latency = point.kind == key::KindLatency;
    point.count += u64(p, latency ? key::Ends : key::Count);
    point.countInWindow +=
        u64(p, latency ? key::EndsInWindow : key::CountInWindow);
  }
  for (const json &f : doc[key::Functions]) {
    ProbedFunction &fn = byName(m.functions, str(f, key::Name));
    fn.mangled = str(f, key::Mangled);
    fn.file = str(f, key::File);
    fn.calls += u64(f, key::Calls);
    if (auto incl = f.find(key::InclusiveNs); incl != f.end())
      fn.inclusiveNs += dbl(*incl, key::Total);
  }
  return m;
}

} // namespace

void mergeMeasurement(RunMeasurement &into, const RunMeasurement &one) {
  into.files.insert(into.files.end(), one.files.begin(), one.files.end());
  into.windowNs = std::max(into.windowNs, one.windowNs);
  into.durationNs = std::max(into.durationNs, one.durationNs);
  into.hasDelay = into.hasDelay || one.hasDelay;
  into.armed = into.armed || one.armed;
  into.delayedCalls += one.delayedCalls;
  into.requestedNs += one.requestedNs;
  into.deliveredNs += one.deliveredNs;
  into.mutexWaitNs += one.mutexWaitNs;
  into.contendedLocks += one.contendedLocks;
  if (!into.clockReadNs) {
    into.clockReadNs = one.clockReadNs;
    into.minDelayNs = one.minDelayNs;
  }
  if (one.hasSpeedup) {
    into.speedupPercent =
        into.hasSpeedup ? std::max(into.speedupPercent, one.speedupPercent)
                        : one.speedupPercent;
    into.hasSpeedup = true;
    into.insertedNs += one.insertedNs;
    into.paidNs += one.paidNs;
    into.effectiveNs = std::max(into.effectiveNs, one.effectiveNs);
    if (!one.speedupValid && into.speedupValid) {
      into.speedupValid = false;
      into.speedupReason = one.speedupReason;
    }
  }
  for (const DelayedFunction &f : one.delayed) {
    DelayedFunction &d = byName(into.delayed, f.name);
    d.delayedCalls += f.delayedCalls;
    d.requestedNs += f.requestedNs;
    d.deliveredNs += f.deliveredNs;
    d.worstErrorNs = std::max(d.worstErrorNs, f.worstErrorNs);
    d.workNs += f.workNs;
    d.workCalls += f.workCalls;
    d.heldWorkNs += f.heldWorkNs;
  }
  for (const ProgressCount &p : one.progress) {
    ProgressCount &q = byName(into.progress, p.name);
    q.kind = p.kind;
    q.count += p.count;
    q.countInWindow += p.countInWindow;
  }
  for (const ProbedFunction &f : one.functions) {
    ProbedFunction &g = byName(into.functions, f.name);
    g.mangled = f.mangled;
    g.file = f.file;
    g.calls += f.calls;
    g.inclusiveNs += f.inclusiveNs;
  }
}

std::optional<RunMeasurement> readRunFolder(const std::string &folder,
                                            std::string &error) {
  std::vector<std::string> names;
  if (DIR *dir = opendir(folder.c_str())) {
    while (dirent *entry = readdir(dir)) {
      std::string name = entry->d_name;
      const std::string suffix = ".summary.json";
      if (name.size() > suffix.size() && name[0] != '.' &&
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
        names.push_back(name);
    }
    closedir(dir);
  }
  std::sort(names.begin(), names.end());
  if (names.empty()) {
    error = fmt::format("it wrote no summary into {} (is it built with "
                        "perfcc, and does it exit normally?)",
                        folder);
    return std::nullopt;
  }
  std::optional<RunMeasurement> merged;
  for (const std::string &name : names) {
    std::string path = folder + "/" + name;
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    std::optional<RunMeasurement> one = parseSummary(text.str(), path, error);
    if (!one)
      return std::nullopt;
    if (merged)
      mergeMeasurement(*merged, *one);
    else
      merged = std::move(one);
  }
  return merged;
}

namespace {
/// Backtracking steps one match of --regex may take (PCRE2's default, set
/// here so the error can name it).
constexpr std::uint32_t RegexMatchLimit = 10'000'000;
} // namespace

std::unique_ptr<OutputPattern> OutputPattern::compile(const std::string &re,
                                                      std::string &error) {
  int code = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code *compiled =
      pcre2_compile(reinterpret_cast<PCRE2_SPTR>(re.data()), re.size(),
                    PCRE2_MULTILINE, &code, &offset, nullptr);
  if (!compiled) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(code, message, sizeof message);
    error = fmt::format("--regex '{}': {} at offset {}", re,
                        reinterpret_cast<const char *>(message), offset);
    return nullptr;
  }
  std::uint32_t groups = 0;
  pcre2_pattern_info(compiled, PCRE2_INFO_CAPTURECOUNT, &groups);
  if (groups != 1) {
    pcre2_code_free(compiled);
    error = fmt::format("--regex '{}': needs exactly one capture group (the "
                        "number), has {}",
                        re, groups);
    return nullptr;
  }
  std::unique_ptr<OutputPattern> pattern(new OutputPattern());
  pattern->source = re;
  pattern->code = compiled;
  return pattern;
}

OutputPattern::~OutputPattern() {
  pcre2_code_free(static_cast<pcre2_code *>(code));
}

std::optional<double> OutputPattern::lastNumber(std::string_view text,
                                                std::string &error) const {
  auto *compiled = static_cast<pcre2_code *>(code);
  pcre2_match_data *data =
      pcre2_match_data_create_from_pattern(compiled, nullptr);
  // Bounded, and said: a pattern that backtracks catastrophically
  // ("^(?:a|aa)+$") on a long line stops with an error naming the cause,
  // not "no line matched".
  pcre2_match_context *limits = pcre2_match_context_create(nullptr);
  pcre2_set_match_limit(limits, RegexMatchLimit);
  pcre2_set_depth_limit(limits, RegexMatchLimit);
  std::optional<std::string> captured;
  PCRE2_SIZE start = 0;
  int failure = 0;
  while (start <= text.size()) {
    int rc = pcre2_match(compiled, reinterpret_cast<PCRE2_SPTR>(text.data()),
                         text.size(), start, 0, data, limits);
    if (rc < 0) {
      failure = rc == PCRE2_ERROR_NOMATCH ? 0 : rc;
      break;
    }
    PCRE2_SIZE *ovector = pcre2_get_ovector_pointer(data);
    if (ovector[2] != PCRE2_UNSET)
      captured = std::string(text.substr(ovector[2], ovector[3] - ovector[2]));
    // An empty match moves on by one character, or it would repeat.
    start = ovector[1] > ovector[0] ? ovector[1] : ovector[1] + 1;
  }
  pcre2_match_data_free(data);
  pcre2_match_context_free(limits);
  if (failure == PCRE2_ERROR_MATCHLIMIT || failure == PCRE2_ERROR_DEPTHLIMIT) {
    error = fmt::format("--regex '{}': gave up after {} backtracking steps "
                        "(the pattern backtracks catastrophically on this "
                        "output); make it simpler, e.g. without nested "
                        "repeats",
                        source, RegexMatchLimit);
    return std::nullopt;
  }
  if (failure) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(failure, message, sizeof message);
    error = fmt::format("--regex '{}': {}", source,
                        reinterpret_cast<const char *>(message));
    return std::nullopt;
  }
  if (!captured) {
    error = fmt::format("no line of its output matched --regex '{}'", source);
    return std::nullopt;
  }
  errno = 0;
  char *end = nullptr;
  double value = std::strtod(captured->c_str(), &end);
  if (captured->empty() || *end || errno || !(value >= 0)) {
    error = fmt::format("--regex '{}' captured '{}', not a non-negative number",
                        source, *captured);
    return std::nullopt;
  }
  return value;
}

std::optional<RunOutcome> measureRun(const RunMeasurement &m,
                                     const ThroughputSpec &spec,
                                     const OutputPattern *pattern,
                                     double wallNs, std::string_view output,
                                     std::string &error) {
  RunOutcome out;
  out.windowNs = double(m.windowNs);
  out.delayedCalls = m.delayedCalls;
  out.deliveredNs = double(m.deliveredNs);
  switch (spec.source) {
  case ThroughputSource::Progress: {
    if (m.progress.empty()) {
      error = "it reported no progress point (add PERF_PROGRESS from "
              "<perf/perf.h>, or use --wall-time or --regex)";
      return std::nullopt;
    }
    const ProgressCount *point = &m.progress.front();
    if (!spec.progress.empty()) {
      auto it = std::find_if(
          m.progress.begin(), m.progress.end(),
          [&](const ProgressCount &p) { return p.name == spec.progress; });
      if (it == m.progress.end()) {
        std::string names;
        for (const ProgressCount &p : m.progress)
          names += (names.empty() ? "'" : ", '") + p.name + "'";
        error = fmt::format("it has no progress point named '{}' (it has {})",
                            spec.progress, names);
        return std::nullopt;
      }
      point = &*it;
    }
    out.progress = point->name;
    if (point->countInWindow == 0 || m.windowNs == 0) {
      error = fmt::format("progress point '{}' was never reached in the "
                          "measurement window ({} in the whole run, window {} "
                          "ms)",
                          point->name, point->count, m.windowNs / 1000000);
      return std::nullopt;
    }
    out.workUnits = double(point->countInWindow);
    out.throughput = out.workUnits / (out.windowNs / 1e9);
    if (m.hasSpeedup) {
      out.speedup = true;
      out.effectiveWindowNs = double(m.effectiveNs);
      out.insertedNs = double(m.insertedNs);
      out.paidNs = double(m.paidNs);
      out.speedupValid = m.speedupValid;
      out.speedupReason = m.speedupReason;
      if (m.effectiveNs == 0) {
        error = fmt::format("its virtual speedup left no effective time (the "
                            "delay inserted, {} ms, is the whole window)",
                            m.insertedNs / 1000000);
        return std::nullopt;
      }
      out.virtualThroughput = out.workUnits / (out.effectiveWindowNs / 1e9);
    }
    break;
  }
  case ThroughputSource::WallTime:
    out.workUnits = spec.work;
    out.throughput = spec.work / (wallNs / 1e9);
    break;
  case ThroughputSource::Regex: {
    std::optional<double> rate = pattern->lastNumber(output, error);
    if (!rate)
      return std::nullopt;
    if (*rate == 0) {
      error = fmt::format("it printed a rate of 0 (--regex '{}')", spec.regex);
      return std::nullopt;
    }
    out.throughput = *rate;
    // The work the printed rate stands for, over the window (the whole run
    // when the runtime reports none).
    double seconds = (out.windowNs > 0 ? out.windowNs : wallNs) / 1e9;
    out.workUnits = *rate * seconds;
    break;
  }
  }
  out.timePerUnitNs = 1e9 / out.throughput;
  out.delayPerUnitNs = out.workUnits > 0 ? out.deliveredNs / out.workUnits : 0;
  out.mutexWaitShare =
      m.durationNs > 0 ? double(m.mutexWaitNs) / double(m.durationNs) : 0;
  return out;
}

TargetUse matchTargets(const Selection &selection, const RunMeasurement &m) {
  TargetUse use;
  std::vector<bool> used(selection.rules().size(), false);
  for (const ProbedFunction &f : m.functions) {
    int rule = -1;
    Verdict verdict =
        selection.match(SymbolRef{f.name, f.mangled, f.file}, rule);
    if (rule >= 0)
      used[rule] = true;
    if (verdict == Verdict::Include ||
        (verdict == Verdict::NoMatch && selection.isScoreP())) {
      use.functions.push_back(f.name);
      use.calls += f.calls;
      use.inclusiveNs += f.inclusiveNs;
      for (const DelayedFunction &d : m.delayed)
        if (d.name == f.name) {
          use.workNs += d.workNs;
          use.workCalls += d.workCalls;
          use.heldWorkNs += d.heldWorkNs;
        }
    }
  }
  for (std::size_t i = 0; i < used.size(); ++i) {
    const Rule &rule = selection.rules()[i];
    if (!used[i] && !rule.exclude)
      use.unusedPatterns.push_back(fmt::format(
          "{}:{}: '{}'", selection.sourceName(), rule.line, rule.text));
  }
  return use;
}

} // namespace perfcc::perfctl
