//===- Plan.cpp - which runs a sweep makes, and in what order -------------===//
#include "sweep/Plan.h"

#include "perfcc/Selection.h"
#include "sweep/Random.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace perfcc::perfctl {

std::optional<std::uint64_t> parseDelayNs(std::string_view text,
                                          std::string &error) {
  auto bad = [&](std::string_view why) -> std::optional<std::uint64_t> {
    error = fmt::format("'{}' is not a delay ({}; e.g. 0, 500, 500ns, 1us, "
                        "2.5us, 2ms)",
                        text, why);
    return std::nullopt;
  };
  std::size_t at = 0;
  double value = 0;
  bool digits = false;
  while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
    value = value * 10 + (text[at++] - '0');
    digits = true;
  }
  if (at < text.size() && text[at] == '.') {
    double scale = 0.1;
    for (++at; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at) {
      value += (text[at] - '0') * scale;
      scale /= 10;
      digits = true;
    }
  }
  if (!digits)
    return bad(text.empty() ? "empty" : "a non-negative number and a unit");
  std::string_view unit = text.substr(at);
  double nsPerUnit;
  if (unit.empty() || unit == "ns")
    nsPerUnit = 1;
  else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs")
    nsPerUnit = 1e3;
  else if (unit == "ms")
    nsPerUnit = 1e6;
  else if (unit == "s")
    nsPerUnit = 1e9;
  else
    return bad(fmt::format("unknown unit '{}': use ns, us, ms or s", unit));
  double ns = std::round(value * nsPerUnit);
  if (ns > 1e15)
    return bad("longer than 10^6 seconds");
  if (value > 0 && ns < 1)
    return bad("less than a nanosecond");
  return std::uint64_t(ns);
}

/// The items of a comma-separated list, blanks around each trimmed; an
/// empty text is one empty item (which the caller rejects).
static std::vector<std::string_view> splitList(std::string_view text) {
  std::vector<std::string_view> items;
  std::size_t start = 0;
  for (;;) {
    std::size_t comma = text.find(',', start);
    std::string_view item = text.substr(start, comma == std::string_view::npos
                                                   ? std::string_view::npos
                                                   : comma - start);
    while (!item.empty() && item.front() == ' ')
      item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ')
      item.remove_suffix(1);
    items.push_back(item);
    if (comma == std::string_view::npos)
      return items;
    start = comma + 1;
  }
}

std::optional<std::vector<std::uint64_t>> parseDelayList(std::string_view text,
                                                         std::string &error) {
  std::set<std::uint64_t> delays;
  for (std::string_view item : splitList(text)) {
    std::optional<std::uint64_t> ns = parseDelayNs(item, error);
    if (!ns)
      return std::nullopt;
    delays.insert(*ns);
  }
  return std::vector<std::uint64_t>(delays.begin(), delays.end());
}

std::optional<std::vector<unsigned>>
parsePercentList(std::string_view text, std::string &error, bool speedupSweep) {
  std::set<unsigned> percents;
  for (std::string_view item : splitList(text)) {
    std::string_view digits = item;
    if (!digits.empty() && digits.back() == '%')
      digits.remove_suffix(1);
    unsigned value = 0;
    bool ok = !digits.empty() && digits.size() <= 3;
    for (char c : digits)
      ok = ok && c >= '0' && c <= '9';
    if (ok)
      for (char c : digits)
        value = value * 10 + unsigned(c - '0');
    if (!ok || value > 100) {
      error = fmt::format("'{}' is not a speedup (a whole percentage from 0 "
                          "to 100, e.g. 0,10,25,50)",
                          item);
      return std::nullopt;
    }
    if (speedupSweep && value == BaselinePercent) {
      error = fmt::format("{}% is the baseline every speedup sweep runs; ask "
                          "for {}% or more",
                          BaselinePercent, BaselinePercent + 1);
      return std::nullopt;
    }
    if (value)
      percents.insert(value);
  }
  return std::vector<unsigned>(percents.begin(), percents.end());
}

std::string formatDelay(std::uint64_t ns) {
  // The largest unit in which the value has at most three decimals, so the
  // spelling is exact and parses back to the same number.
  struct Unit {
    std::uint64_t ns;
    const char *name;
  };
  for (Unit unit :
       {Unit{1000000000, "s"}, Unit{1000000, "ms"}, Unit{1000, "us"}}) {
    if (ns < unit.ns || ns % (unit.ns / 1000) != 0)
      continue;
    std::string text = fmt::format("{:.3f}", double(ns) / double(unit.ns));
    while (text.back() == '0')
      text.pop_back();
    if (text.back() == '.')
      text.pop_back();
    return text + unit.name;
  }
  return ns ? fmt::format("{}ns", ns) : "0";
}

std::string formatDuration(double ns) {
  if (std::isnan(ns))
    return "n/a";
  double magnitude = std::fabs(ns);
  if (magnitude < 1e3)
    return fmt::format("{:.3g}ns", ns);
  if (magnitude < 1e6)
    return fmt::format("{:.3g}us", ns / 1e3);
  if (magnitude < 1e9)
    return fmt::format("{:.3g}ms", ns / 1e6);
  return fmt::format("{:.3g}s", ns / 1e9);
}

std::optional<Group> parseGroup(std::string_view spec, std::string &error) {
  std::size_t equals = spec.find('=');
  if (equals == std::string_view::npos || equals == 0 ||
      equals + 1 == spec.size()) {
    error = fmt::format("'{}' is not NAME=FILE", spec);
    return std::nullopt;
  }
  std::string_view name = spec.substr(0, equals);
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' &&
        c != '.') {
      error = fmt::format("'{}': a group name has letters, digits, '_', '-' "
                          "and '.' only",
                          spec);
      return std::nullopt;
    }
  return Group{std::string(name), std::string(spec.substr(equals + 1))};
}

Group groupForTargets(const std::string &file) {
  std::string name = file.substr(file.find_last_of('/') + 1);
  std::size_t dot = name.find_last_of('.');
  if (dot != std::string::npos && dot > 0)
    name.resize(dot);
  return Group{name.empty() ? "targets" : name, file};
}

bool validateGroups(const std::vector<Group> &groups, std::string &error) {
  std::set<std::string> names;
  for (const Group &group : groups) {
    if (!names.insert(group.name).second) {
      error = fmt::format("two groups are named '{}'", group.name);
      return false;
    }
    std::optional<Selection> selection =
        Selection::parseFile(group.file, error);
    if (!selection)
      return false;
    bool includes =
        std::any_of(selection->rules().begin(), selection->rules().end(),
                    [](const Rule &rule) { return !rule.exclude; });
    // A Score-P file with only EXCLUDE rules still selects what it does not
    // exclude; a perfcc file needs an including pattern.
    if (selection->rules().empty() || (!includes && !selection->isScoreP())) {
      error = fmt::format("{}: error: the targets file selects nothing (no "
                          "pattern to delay)",
                          group.file);
      return false;
    }
  }
  return true;
}

void appendShuffled(SweepPlan &plan, std::vector<PlannedRun> runs,
                    std::uint64_t seed) {
  Rng rng(seed);
  shuffle(runs, rng);
  std::map<std::tuple<int, std::uint64_t, unsigned>, unsigned> made;
  for (const PlannedRun &run : plan.runs)
    ++made[{run.group, run.delayNs, run.speedupPercent}];
  for (PlannedRun &run : runs) {
    run.index = plan.runs.size() + 1;
    run.repeat = ++made[{run.group, run.delayNs, run.speedupPercent}];
    plan.runs.push_back(run);
  }
}

std::vector<PlannedRun> roundOf(const SweepPlan &plan,
                                const std::vector<int> &groups, bool control) {
  std::vector<PlannedRun> runs;
  for (int g : groups) {
    if (plan.speedup())
      for (unsigned percent : plan.speedups)
        runs.push_back(PlannedRun{0, g, 0, 0, percent});
    else
      for (std::uint64_t delay : plan.delaysOf(std::size_t(g)))
        runs.push_back(PlannedRun{0, g, delay, 0});
  }
  if (control)
    runs.push_back(PlannedRun{0, -1, 0, 0});
  return runs;
}

std::vector<int> allGroups(const SweepPlan &plan) {
  std::vector<int> all;
  for (std::size_t g = 0; g < plan.groups.size(); ++g)
    all.push_back(int(g));
  return all;
}

// Why each round is shuffled on its own, not all runs in one order: the
// machine drifts (a slow minute, another process for a while), and in one
// order over every run a few runs of one level can fall in a slow stretch
// by chance and move its median (contention's virtual speedup at 29% read
// -15% for a true -10%, three of its five runs slow). In rounds, every
// level has one run in each stretch of a round's length.
std::uint64_t roundSeed(std::uint64_t seed, unsigned round) {
  return seed + 0x9e3779b97f4a7c15ull * round;
}

void appendRounds(SweepPlan &plan, unsigned count, std::uint64_t seed) {
  std::vector<int> all = allGroups(plan);
  for (unsigned round = 0; round < count; ++round)
    appendShuffled(plan, roundOf(plan, all, true), roundSeed(seed, round));
}

SweepPlan makePlan(std::vector<Group> groups, std::vector<std::uint64_t> delays,
                   unsigned repeats, std::uint64_t seed) {
  SweepPlan plan;
  if (std::find(delays.begin(), delays.end(), 0) == delays.end())
    delays.push_back(0);
  std::sort(delays.begin(), delays.end());
  delays.erase(std::unique(delays.begin(), delays.end()), delays.end());
  plan.groups = std::move(groups);
  plan.delays = std::move(delays);
  plan.repeats = repeats;
  plan.seed = seed;
  appendRounds(plan, repeats, seed);
  return plan;
}

SweepPlan makeSpeedupPlan(std::vector<Group> groups,
                          std::vector<unsigned> percents, unsigned repeats,
                          std::uint64_t seed) {
  SweepPlan plan;
  percents.push_back(BaselinePercent);
  std::sort(percents.begin(), percents.end());
  percents.erase(std::unique(percents.begin(), percents.end()), percents.end());
  percents.erase(std::remove(percents.begin(), percents.end(), 0u),
                 percents.end());
  plan.groups = std::move(groups);
  plan.speedups = std::move(percents);
  plan.repeats = repeats;
  plan.seed = seed;
  appendRounds(plan, repeats, seed);
  return plan;
}

std::string describeRun(const SweepPlan &plan, const PlannedRun &run) {
  if (!run.armed())
    return fmt::format("unarmed control, repeat {}", run.repeat);
  if (run.speedupPercent)
    return fmt::format(
        "{}, speedup {}%{}, repeat {}", plan.groups[run.group].name,
        run.speedupPercent,
        run.speedupPercent == BaselinePercent ? " (baseline)" : "", run.repeat);
  return fmt::format("{}, delay {}, repeat {}", plan.groups[run.group].name,
                     formatDelay(run.delayNs), run.repeat);
}

} // namespace perfcc::perfctl
