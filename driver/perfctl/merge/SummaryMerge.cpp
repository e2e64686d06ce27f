//===- SummaryMerge.cpp - several processes' summaries as one -------------===//
#include "merge/SummaryMerge.h"

#include "perfcc/OutputSchema.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>
#include <type_traits>

namespace perfcc::perfctl {

namespace {

using json = nlohmann::ordered_json;
namespace key = perfcc::schema::summary;

/// Reads \p doc[name] as a number of type T, or fails naming the file.
template <typename T>
T numberAt(const json &doc, const char *name, const std::string &file,
           const char *where) {
  auto it = doc.find(name);
  if (it == doc.end() || !it->is_number())
    throw std::runtime_error(
        fmt::format("{}: not a perfcc summary: {} has no number \"{}\"", file,
                    where, name));
  // A float out of an integer's range converted to it is undefined
  // behaviour (test/fuzz/summary_fuzzer: 8.7e+44 as a window's end).
  if constexpr (std::is_integral_v<T>)
    if (std::is_unsigned_v<T> ? !it->is_number_unsigned()
                              : !it->is_number_integer())
      throw std::runtime_error(
          fmt::format("{}: not a perfcc summary: {} has no integer \"{}\"",
                      file, where, name));
  return it->get<T>();
}

const json &arrayAt(const json &doc, const char *name,
                    const std::string &file) {
  auto it = doc.find(name);
  if (it == doc.end() || !it->is_array())
    throw std::runtime_error(
        fmt::format("{}: not a perfcc summary: no \"{}\" list", file, name));
  return *it;
}

/// A count: a JSON integer that is not negative.
bool isCount(const json &v) {
  return v.is_number_unsigned() ||
         (v.is_number_integer() && v.get<std::int64_t>() >= 0);
}

std::string stringOr(const json &doc, const char *name) {
  auto it = doc.find(name);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : "";
}

/// Inclusive or exclusive time over several processes: exact totals,
/// minima, maxima; the mean from them.
struct TimeStats {
  std::uint64_t total = 0, min = 0, max = 0;
  bool any = false;
  void add(const json &stats, std::uint64_t calls, const std::string &file) {
    if (!stats.is_object())
      throw std::runtime_error(fmt::format(
          "{}: not a perfcc summary: a function's times are not an object",
          file));
    if (calls == 0)
      return;
    auto lo = numberAt<std::uint64_t>(stats, key::Min, file, "a function");
    auto hi = numberAt<std::uint64_t>(stats, key::Max, file, "a function");
    total += numberAt<std::uint64_t>(stats, key::Total, file, "a function");
    min = any ? std::min(min, lo) : lo;
    max = any ? std::max(max, hi) : hi;
    any = true;
  }
  json toJson(std::uint64_t calls) const {
    // Whole nanoseconds, rounded, as the runtime writes a mean.
    return {{key::Total, total},
            {key::Mean, calls ? (total + calls / 2) / calls : 0},
            {key::Min, min},
            {key::Max, max}};
  }
};

struct MergedFunction {
  json identity; // name, mangled, file, line
  std::uint64_t calls = 0;
  TimeStats inclusive, exclusive;
  json processes = json::array();
  json threads = json::array();
  json single; // its only process's inclusive and exclusive, with percentiles
  // PERFCC_CPU_TIME: CPU time totals, summed (any process had them).
  bool cpu = false;
  std::uint64_t cpuCalls = 0, cpuInclusive = 0, cpuExclusive = 0;
  // perf_work's totals, summed (any process had them).
  bool work = false;
  std::uint64_t workBytes = 0, workFlops = 0, workReports = 0;
};

/// Adds a "work" object's counts to \p bytes, \p flops and \p reports;
/// false when \p work is not one (a count missing or not a count).
bool addWork(const json &work, std::uint64_t &bytes, std::uint64_t &flops,
             std::uint64_t &reports) {
  if (!work.is_object())
    return false;
  for (const char *count : {key::WorkBytes, key::WorkFlops, key::WorkReports})
    if (!work.contains(count) || !isCount(work[count]))
      return false;
  bytes += work[key::WorkBytes].get<std::uint64_t>();
  flops += work[key::WorkFlops].get<std::uint64_t>();
  reports += work[key::WorkReports].get<std::uint64_t>();
  return true;
}

/// Fails naming \p file unless \p point is a progress point whose counts
/// are counts and whose rates and latency are numbers: the merge adds them
/// to another process's, so what it reads first must be of that kind too.
void checkProgressPoint(const json &point, const std::string &file) {
  if (!point.is_object())
    throw std::runtime_error(fmt::format(
        "{}: not a perfcc summary: a progress point is not an object", file));
  std::string name = stringOr(point, key::Name);
  for (const char *count : {key::Count, key::CountInWindow, key::Begins,
                            key::Ends, key::EndsInWindow})
    if (point.contains(count) && !isCount(point[count]))
      throw std::runtime_error(fmt::format(
          "{}: not a perfcc summary: progress point \"{}\" has no count "
          "\"{}\"",
          file, name, count));
  for (const char *number :
       {key::RatePerS, key::VirtualRatePerS, key::MeanLatencyNs})
    if (point.contains(number) && !point[number].is_number())
      throw std::runtime_error(fmt::format(
          "{}: not a perfcc summary: progress point \"{}\" has no number "
          "\"{}\"",
          file, name, number));
}

} // namespace

json mergeSummaries(const std::vector<SummaryFile> &summaries,
                    const std::string &version) {
  using Identity =
      std::tuple<std::string, std::string, std::string, std::int64_t>;
  std::map<Identity, MergedFunction> functions;
  std::vector<Identity> order; // first seen first
  json threads = json::array(), merged = json::array();
  std::set<std::string> programs, modes, clocks;
  bool cpuTime = false; // any process recorded CPU times
  std::map<std::string, std::uint64_t> dropped;
  std::uint64_t windowStart = 0, windowEnd = 0;
  bool anyWindow = false;
  bool anyUnattributed = false;
  std::uint64_t unattributedBytes = 0, unattributedFlops = 0,
                unattributedReports = 0;
  std::map<std::string, json> progress; // by name
  std::vector<std::string> progressOrder;

  for (const auto &[file, doc] : summaries) {
    if (!doc.is_object())
      throw std::runtime_error(
          fmt::format("{}: not a perfcc summary: not a JSON object", file));
    auto pid = numberAt<std::int64_t>(doc, key::Pid, file, "the summary");
    programs.insert(stringOr(doc, key::Program));
    modes.insert(stringOr(doc, key::Mode));
    if (auto c = doc.find(key::CpuTime); c != doc.end() && c->is_boolean())
      cpuTime = cpuTime || c->get<bool>();
    if (std::string clock = stringOr(doc, key::Clock); !clock.empty())
      clocks.insert(clock);
    if (auto d = doc.find(key::Dropped); d != doc.end() && d->is_object())
      for (const auto &[name, value] : d->items())
        if (isCount(value))
          dropped[name] += value.get<std::uint64_t>();
    if (auto w = doc.find(key::Window); w != doc.end() && w->is_object()) {
      auto start = numberAt<std::uint64_t>(*w, key::StartNs, file, "window");
      auto end = numberAt<std::uint64_t>(*w, key::EndNs, file, "window");
      windowStart = anyWindow ? std::min(windowStart, start) : start;
      windowEnd = anyWindow ? std::max(windowEnd, end) : end;
      anyWindow = true;
    }
    if (auto u = doc.find(key::WorkUnattributed); u != doc.end())
      anyUnattributed = addWork(*u, unattributedBytes, unattributedFlops,
                                unattributedReports) ||
                        anyUnattributed;
    for (const json &fn : arrayAt(doc, key::Functions, file)) {
      if (!fn.is_object())
        throw std::runtime_error(fmt::format(
            "{}: not a perfcc summary: a function is not an object", file));
      Identity id{stringOr(fn, key::Name), stringOr(fn, key::Mangled),
                  stringOr(fn, key::File),
                  fn.contains(key::Line) && fn[key::Line].is_number_integer()
                      ? fn[key::Line].get<std::int64_t>()
                      : 0};
      auto [it, added] = functions.try_emplace(id);
      MergedFunction &m = it->second;
      if (added) {
        order.push_back(id);
        m.identity = {{key::Name, std::get<0>(id)},
                      {key::Mangled, std::get<1>(id)},
                      {key::File, std::get<2>(id)},
                      {key::Line, std::get<3>(id)}};
      }
      auto calls = numberAt<std::uint64_t>(fn, key::Calls, file, "a function");
      const json &incl =
          fn.contains(key::InclusiveNs) ? fn[key::InclusiveNs] : json();
      const json &excl =
          fn.contains(key::ExclusiveNs) ? fn[key::ExclusiveNs] : json();
      if (auto c = fn.find(key::CpuNs); c != fn.end() && c->is_object()) {
        m.cpu = true;
        m.cpuCalls += numberAt<std::uint64_t>(*c, key::Calls, file, "cpu_ns");
        m.cpuInclusive +=
            numberAt<std::uint64_t>(*c, key::CpuInclusive, file, "cpu_ns");
        m.cpuExclusive +=
            numberAt<std::uint64_t>(*c, key::CpuExclusive, file, "cpu_ns");
      }
      if (auto w = fn.find(key::Work); w != fn.end())
        m.work = addWork(*w, m.workBytes, m.workFlops, m.workReports) || m.work;
      m.calls += calls;
      m.inclusive.add(incl, calls, file);
      m.exclusive.add(excl, calls, file);
      if (calls) {
        m.processes.push_back({{key::Pid, pid},
                               {key::Calls, calls},
                               {key::InclusiveNs, incl},
                               {key::ExclusiveNs, excl}});
        m.single = {{key::InclusiveNs, incl}, {key::ExclusiveNs, excl}};
      }
      if (auto t = fn.find(key::Threads); t != fn.end() && t->is_array())
        for (json thread : *t) {
          if (thread.is_object())
            thread[key::Pid] = pid;
          m.threads.push_back(std::move(thread));
        }
    }
    for (json thread : arrayAt(doc, key::Threads, file)) {
      if (thread.is_object())
        thread[key::Pid] = pid;
      threads.push_back(std::move(thread));
    }
    if (auto p = doc.find(key::Progress); p != doc.end() && p->is_array())
      for (const json &point : *p) {
        checkProgressPoint(point, file);
        std::string name = stringOr(point, key::Name);
        auto [at, added] = progress.try_emplace(name, point);
        if (added) {
          progressOrder.push_back(name);
          continue;
        }
        json &sum = at->second;
        for (const char *count : {key::Count, key::CountInWindow, key::Begins,
                                  key::Ends, key::EndsInWindow})
          if (point.contains(count))
            sum[count] = sum.value(count, std::uint64_t(0)) +
                         point[count].get<std::uint64_t>();
        for (const char *rate : {key::RatePerS, key::VirtualRatePerS})
          if (point.contains(rate))
            sum[rate] = sum.value(rate, 0.0) + point[rate].get<double>();
        // A latency's mean, weighted by the requests each process ended.
        if (point.contains(key::MeanLatencyNs)) {
          double ends = point.value(key::Ends, 0.0);
          double before = sum.value(key::Ends, 0.0) - ends;
          double mean = sum.value(key::MeanLatencyNs, 0.0);
          sum[key::MeanLatencyNs] =
              before + ends > 0
                  ? (mean * before +
                     point[key::MeanLatencyNs].get<double>() * ends) /
                        (before + ends)
                  : 0.0;
        }
      }
    json kept = json::object();
    for (const auto &[name, value] : doc.items())
      if (name != key::Functions && name != key::Threads)
        kept[name] = value;
    kept[key::MergedFile] = file;
    merged.push_back(std::move(kept));
  }

  auto joined = [](const std::set<std::string> &values,
                   const std::string &separator) {
    std::string out;
    for (const std::string &v : values)
      out += (out.empty() ? "" : separator) + v;
    return out;
  };
  json out = json::object();
  out[key::Version] = version;
  out[key::Program] = joined(programs, " + ");
  out[key::Mode] = modes.size() == 1 ? *modes.begin() : "mixed";
  out[key::CpuTime] = cpuTime;
  if (clocks.size() == 1)
    out[key::Clock] = *clocks.begin();
  if (anyWindow) {
    out[key::DurationNs] = windowEnd - windowStart;
    out[key::Window] = {{key::StartNs, windowStart},
                        {key::EndNs, windowEnd},
                        {key::DurationNs, windowEnd - windowStart}};
  }
  out[key::Dropped] = dropped;
  if (anyUnattributed)
    out[key::WorkUnattributed] = {{key::WorkBytes, unattributedBytes},
                                  {key::WorkFlops, unattributedFlops},
                                  {key::WorkReports, unattributedReports}};
  json fns = json::array();
  for (const Identity &id : order) {
    MergedFunction &m = functions.at(id);
    json fn = m.identity;
    fn[key::Calls] = m.calls;
    if (m.processes.size() == 1) {
      // One process made every call: its figures are the merged ones.
      fn[key::InclusiveNs] = m.single[key::InclusiveNs];
      fn[key::ExclusiveNs] = m.single[key::ExclusiveNs];
    } else {
      fn[key::InclusiveNs] = m.inclusive.toJson(m.calls);
      fn[key::ExclusiveNs] = m.exclusive.toJson(m.calls);
    }
    if (m.cpu)
      fn[key::CpuNs] = {{key::Calls, m.cpuCalls},
                        {key::CpuInclusive, m.cpuInclusive},
                        {key::CpuExclusive, m.cpuExclusive}};
    if (m.work) {
      // Rates over the merged inclusive time, as the runtime computes them.
      double seconds =
          double(fn[key::InclusiveNs].value(key::Total, std::uint64_t(0))) /
          1e9;
      fn[key::Work] = {
          {key::WorkBytes, m.workBytes},
          {key::WorkFlops, m.workFlops},
          {key::WorkReports, m.workReports},
          {key::WorkBytesPerS,
           seconds > 0 ? double(m.workBytes) / seconds : 0.0},
          {key::WorkFlopsPerS,
           seconds > 0 ? double(m.workFlops) / seconds : 0.0},
          {key::WorkFlopsPerByte,
           m.workBytes ? double(m.workFlops) / double(m.workBytes) : 0.0}};
    }
    fn[key::Processes] = std::move(m.processes);
    fn[key::Threads] = std::move(m.threads);
    fns.push_back(std::move(fn));
  }
  // Hottest first, as the runtime orders them.
  std::stable_sort(fns.begin(), fns.end(), [](const json &a, const json &b) {
    return a[key::InclusiveNs].value(key::Total, std::uint64_t(0)) >
           b[key::InclusiveNs].value(key::Total, std::uint64_t(0));
  });
  out[key::Functions] = std::move(fns);
  out[key::Threads] = std::move(threads);
  json points = json::array();
  for (const std::string &name : progressOrder)
    points.push_back(progress.at(name));
  out[key::Progress] = std::move(points);
  out[key::Merged] = std::move(merged);
  return out;
}

} // namespace perfcc::perfctl
