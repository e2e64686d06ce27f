//===- OverheadBudget.cpp - which functions a probe budget keeps ----------===//
#include "filter/OverheadBudget.h"

#include "perfcc/OutputSchema.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <utility>

namespace perfcc::perfctl {

namespace {

using nlohmann::json;
namespace key = perfcc::schema::summary;

std::runtime_error notASummary(const std::string &what) {
  return std::runtime_error("not a perfcc summary: " + what);
}

std::uint64_t countAt(const json &object, const char *name, const char *where) {
  auto it = object.find(name);
  if (it == object.end() || !it->is_number_integer() ||
      it->get<std::int64_t>() < 0)
    throw notASummary(fmt::format("{} has no count \"{}\"", where, name));
  return it->get<std::uint64_t>();
}

/// The text at \p name, or \p fallback when there is none; a value of
/// another type is a malformed summary (json::value would throw its own
/// type_error, which no caller expects).
std::string textAt(const json &object, const char *name,
                   const std::string &fallback, const char *where) {
  auto it = object.find(name);
  if (it == object.end())
    return fallback;
  if (!it->is_string())
    throw notASummary(
        fmt::format("{} has a \"{}\" that is not text", where, name));
  return it->get<std::string>();
}

/// The whole number at \p name, or 0 when there is none.
std::int64_t idAt(const json &object, const char *name, const char *where) {
  auto it = object.find(name);
  if (it == object.end())
    return 0;
  if (!it->is_number_integer())
    throw notASummary(
        fmt::format("{} has a \"{}\" that is not a whole number", where, name));
  return it->get<std::int64_t>();
}

/// The run the probes will be in: the program's own time (the measured run
/// less the worst thread's probe time) plus the probes kept. A share of the
/// measured run instead, as before, promised a budget the program did not
/// get: once most probes are left out the run is shorter, and what is kept
/// is a larger share of it (LevelDB's readrandom: "4.5%" of the measured run
/// was 6-9% of the filtered one). Where the probe cost given or measured is a
/// little above the program's own, its time would come out as little or
/// nothing, and every function would look over budget: it is taken as at
/// least a tenth of the measured run.
double overheadOf(double keptNs, double ownNs) {
  double run = ownNs + keptNs;
  return run > 0 ? std::min(1.0, keptNs / run) : 1.0;
}
constexpr double MinOwnShare = 0.1;

} // namespace

std::size_t BudgetDecision::excludedCount() const {
  return std::size_t(std::count_if(functions.begin(), functions.end(),
                                   [](const auto &f) { return f.excluded; }));
}

std::vector<const BudgetFunction *> BudgetDecision::leftOut() const {
  std::vector<const BudgetFunction *> out;
  for (const BudgetFunction &f : functions)
    if (f.excluded)
      out.push_back(&f);
  std::sort(out.begin(), out.end(), [](const auto *a, const auto *b) {
    return a->probeShare != b->probeShare ? a->probeShare > b->probeShare
                                          : a->name < b->name;
  });
  return out;
}

BudgetDecision decideBudget(const json &summary, double probeNs,
                            double budget) {
  if (!summary.is_object())
    throw notASummary("not a JSON object");
  double duration = double(countAt(summary, key::DurationNs, "the summary"));
  auto fns = summary.find(key::Functions);
  if (fns == summary.end() || !fns->is_array())
    throw notASummary("no functions list");

  BudgetDecision d;
  // Each thread's calls per function: thread = (pid, tid); pid 0 in a
  // single process's summary.
  using Thread = std::pair<std::int64_t, std::int64_t>;
  std::map<Thread, std::map<std::size_t, std::uint64_t>> callsOn;
  for (const json &fn : *fns) {
    if (!fn.is_object())
      throw notASummary("a function is not an object");
    BudgetFunction f;
    f.name = textAt(fn, key::Name, "", "a function");
    f.mangled = textAt(fn, key::Mangled, f.name, "a function");
    if (f.mangled.empty())
      throw notASummary("a function has no name");
    f.calls = countAt(fn, key::Calls, "a function");
    auto incl = fn.find(key::InclusiveNs);
    if (incl == fn.end() || !incl->is_object())
      throw notASummary(fmt::format("function {} has no inclusive_ns", f.name));
    f.meanInclusiveNs =
        f.calls ? double(countAt(*incl, key::Total, "inclusive_ns")) /
                      double(f.calls)
                : 0;
    std::size_t index = d.functions.size();
    auto threads = fn.find(key::Threads);
    std::uint64_t onThreads = 0;
    if (threads != fn.end() && threads->is_array())
      for (const json &t : *threads) {
        if (!t.is_object())
          continue;
        Thread id{idAt(t, key::Pid, "a function's thread"),
                  idAt(t, key::Tid, "a function's thread")};
        std::uint64_t n = countAt(t, key::Calls, "a function's thread");
        callsOn[id][index] += n;
        onThreads += n;
      }
    // Calls the summary gives no thread for are charged to one thread of
    // their own: never less than the truth for the worst thread.
    if (onThreads < f.calls)
      callsOn[{-1, std::int64_t(index)}][index] += f.calls - onThreads;
    d.callsBefore += f.calls;
    d.functions.push_back(std::move(f));
  }
  double totalProbeNs = double(d.callsBefore) * probeNs;
  for (BudgetFunction &f : d.functions)
    f.probeShare =
        totalProbeNs > 0 ? double(f.calls) * probeNs / totalProbeNs : 0;

  auto keptOn = [&](const std::map<std::size_t, std::uint64_t> &c) {
    double kept = 0;
    for (const auto &[index, n] : c)
      if (!d.functions[index].excluded)
        kept += double(n) * probeNs;
    return kept;
  };
  double worstProbes = 0;
  for (const auto &[thread, c] : callsOn)
    worstProbes = std::max(worstProbes, keptOn(c));
  const double own = std::max(duration - worstProbes, MinOwnShare * duration);
  auto threadOverhead = [&](const std::map<std::size_t, std::uint64_t> &c) {
    return overheadOf(keptOn(c), own);
  };
  auto worst = [&](const Thread **which) {
    double most = 0;
    for (const auto &[thread, c] : callsOn) {
      double o = threadOverhead(c);
      if (o > most || !*which) {
        most = std::max(most, o);
        *which = &thread;
      }
    }
    return most;
  };
  // A function whose probes cost under a thousandth of the budget on the
  // thread stays whatever its calls' length: leaving it out cannot move the
  // budget, and it would only hide a function that costs nothing to watch
  // (seen on LevelDB: functions of 2 to 22 calls left out for their short
  // calls, beside the ones of millions that mattered).
  const double negligibleCalls = budget / 1000 * duration / probeNs;
  const Thread *thread = nullptr;
  d.overheadBefore = worst(&thread);
  double now = d.overheadBefore;
  while (thread && now > budget) {
    // The worst thread's shortest calls: where a probe costs most of the
    // time it measures.
    std::size_t pick = d.functions.size();
    for (const auto &[index, n] : callsOn.at(*thread)) {
      const BudgetFunction &f = d.functions[index];
      if (f.excluded || n == 0 || double(n) < negligibleCalls)
        continue;
      if (pick == d.functions.size() ||
          f.meanInclusiveNs < d.functions[pick].meanInclusiveNs ||
          (f.meanInclusiveNs == d.functions[pick].meanInclusiveNs &&
           f.calls > d.functions[pick].calls))
        pick = index;
    }
    if (pick == d.functions.size())
      break; // nothing left to leave out on that thread
    d.functions[pick].excluded = true;
    thread = nullptr;
    now = worst(&thread);
  }
  d.overheadAfter = now;
  for (const BudgetFunction &f : d.functions)
    if (!f.excluded)
      d.callsAfter += f.calls;
  return d;
}

} // namespace perfcc::perfctl
