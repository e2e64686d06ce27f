//===- Report.cpp - a speedup sweep's analysis and report -----------------===//
#include "speedup/Report.h"

#include "sweep/Progress.h"
#include "sweep/Report.h"
#include "sweep/ReportJson.h"
#include "sweep/Sizing.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace perfcc::perfctl {

using report::estimate;
using report::interval;
using report::json;
using report::number;
using report::summary;

namespace {

json groupJson(const SpeedupGroup &g) {
  json levels = json::array();
  for (const SpeedupLevel &l : g.levels)
    levels.push_back({{"percent", l.percent},
                      {"runs", l.virtualThroughput.n},
                      {"virtual_throughput", summary(l.virtualThroughput)},
                      {"throughput", summary(l.throughput)},
                      {"gain_percent", estimate(l.gainPercent)}});
  return {{"name", g.name},
          {"file", g.file},
          {"valid", g.valid},
          {"reason", g.reason},
          {"verdict", g.verdict},
          {"headline",
           {{"percent", g.headlinePercent},
            {"gain_percent", estimate(g.headline)}}},
          {"slope",
           {{"to_percent", g.slopeToPercent},
            {"percent_per_percent", estimate(g.slope)}}},
          {"evidence", g.evidence},
          {"noise_percent", number(g.noisePercent)},
          {"overhead_percent", estimate(g.overheadPercent)},
          {"levels", levels},
          {"fit", {{"line", report::line(g.line, "slope_ns_per_percent")}}}};
}

std::string gainCell(const Estimate &e) {
  if (!std::isfinite(e.value))
    return "– | –";
  return fmt::format("{:+.1f}% | [{:+.1f}%, {:+.1f}%]", e.value, e.ci.lo,
                     e.ci.hi);
}

std::string rate(const Summary &s) {
  return fmt::format("{:.4g}/s | [{:.4g}, {:.4g}]", s.median, s.medianCI.lo,
                     s.medianCI.hi);
}

} // namespace

nlohmann::ordered_json speedupAnalysisJson(const SpeedupAnalysis &a) {
  json groups = json::array(), ranking = json::array();
  for (const SpeedupGroup &g : a.groups)
    groups.push_back(groupJson(g));
  for (std::size_t i : a.ranking)
    ranking.push_back(a.groups[i].name);
  return {{"mode", "speedup"},
          {"percents", a.percents},
          {"controls",
           {{"unarmed_throughput", summary(a.unarmedThroughput)},
            {"noise_percent", number(a.noisePercent)}}},
          {"groups", groups},
          {"ranking", ranking},
          {"answer", a.answer}};
}

std::string renderSpeedupMarkdown(const SweepState &state,
                                  const SpeedupAnalysis &a, bool withPlot) {
  const SweepOptions &o = state.options;
  int level = int(std::lround(o.analysis.confidence * 100));
  std::string percents;
  for (unsigned p : state.plan.speedups)
    percents += fmt::format("{}{}%{}", percents.empty() ? "" : ", ", p,
                            p == BaselinePercent ? " (baseline)" : "");
  std::string point = o.throughput.progress;
  for (const RunRecord &r : state.records)
    if (point.empty() && r.measured)
      point = r.outcome.progress;
  std::string md = "# perfctl sweep: virtual speedups\n\n";
  md += fmt::format(
      "`{}`: {} runs ({} group(s) x speedups {} x {} repeats{}, plus {} "
      "unarmed controls) in rounds, each in random order (seed {}); throughput "
      "from progress point `{}`, as the runtime's virtual rate: the units of "
      "work over the window minus the delay inserted into the other "
      "threads.\n\n",
      fmt::join(o.command, " "), state.records.size() - state.remade,
      state.plan.groups.size(), percents, state.plan.repeats,
      o.adaptive ? fmt::format(" to begin with, then {} round(s)", state.rounds)
                 : "",
      std::count_if(
          state.records.begin(), state.records.end(),
          [](const RunRecord &r) { return !r.plan.armed() && !r.disturbed; }),
      state.plan.seed, point);
  md += remadeSentence(state);
  md += "## Answer\n\n";
  for (std::size_t rank = 0; rank < a.ranking.size(); ++rank)
    md += fmt::format("{}. **{}**: {}\n", rank + 1,
                      a.groups[a.ranking[rank]].name,
                      a.groups[a.ranking[rank]].verdict);
  if (o.adaptive) {
    md += fmt::format(
        "\n## How the sweep sized itself\n\nRepeats: adaptive: {} to begin "
        "with, then {} round(s) of another run at each speedup for each "
        "group whose largest speedup's gain had an interval wider than {} of "
        "the gain ({} points at least), within a budget of {}. Stopped: "
        "{}.\n\n| group | repeats | settled | why |\n| --- | ---: | --- | --- "
        "|\n",
        o.repeats, state.rounds, o.targetWidth, SpeedupSettledPoints,
        formatSeconds(o.budgetS),
        state.stop == "settled" ? "every group settled"
        : state.stop == "budget"
            ? "the next round would have overrun the budget"
            : fmt::format("a group reached {} repeats", MaxRepeats));
    for (std::size_t g = 0; g < state.sizing.size(); ++g) {
      const GroupSizing &gs = state.sizing[g];
      md += fmt::format("| {} | {} | {} | {} |\n", state.plan.groups[g].name,
                        gs.repeats, gs.settled ? "yes" : "no", gs.status);
    }
  }
  md += fmt::format("\n## Controls\n\n| runs | throughput (median) | {}% CI "
                    "| IQR | noise |\n| --- | ---: | ---: | ---: | ---: |\n",
                    level);
  const Summary &u = a.unarmedThroughput;
  md += fmt::format("| unarmed | {} | {:.3g} | {:.2f}% |\n", rate(u), u.iqr,
                    a.noisePercent);
  for (const SpeedupGroup &g : a.groups) {
    if (g.levels.empty() || g.levels[0].percent != BaselinePercent)
      continue;
    const Summary &s = g.levels[0].throughput;
    md += fmt::format("| {} at the {}% baseline (real) | {} | {:.3g} | "
                      "{:.2f}% |\n",
                      g.name, BaselinePercent, rate(s), s.iqr, g.noisePercent);
  }
  md += fmt::format("\nNoise is the robust coefficient of variation (1.4826 "
                    "MAD / median) of the time per unit of work (the "
                    "baseline's: of the virtual one). The baseline's real "
                    "time per unit against unarmed (the cost of the speedup "
                    "machinery and of its {}% speedup):",
                    BaselinePercent);
  for (const SpeedupGroup &g : a.groups)
    md += fmt::format(" {} {:+.2f}% [{:+.2f}%, {:+.2f}%];", g.name,
                      g.overheadPercent.value, g.overheadPercent.ci.lo,
                      g.overheadPercent.ci.hi);
  md += "\n";

  for (const SpeedupGroup &g : a.groups) {
    md += fmt::format("\n## {} (`{}`)\n\n**{}**{}\n\n", g.name, g.file,
                      g.valid ? g.verdict : "invalid",
                      g.valid ? ""
                              : fmt::format(": {} (the numbers below "
                                            "do not hold)",
                                            g.reason));
    for (const std::string &line : g.evidence)
      md += "- " + line + "\n";
    md += fmt::format(
        "\n| if {} were | throughput | {}% CI | runs | virtual throughput "
        "(median) | {}% CI | real throughput (median) | {}% CI |\n"
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
        g.name, level, level, level);
    for (const SpeedupLevel &l : g.levels)
      md += fmt::format("| {}% faster{} | {} | {} | {} | {} |\n", l.percent,
                        l.percent == BaselinePercent ? " (baseline)" : "",
                        gainCell(l.gainPercent), l.virtualThroughput.n,
                        rate(l.virtualThroughput), rate(l.throughput));
  }
  if (!state.warnings.empty()) {
    md += "\n## Warnings\n\n";
    for (const std::string &w : state.warnings)
      md += "- " + w + "\n";
  }
  if (withPlot)
    md += "\n## Plot\n\n![predicted throughput change against the "
          "speedup](plot.svg)\n";
  md += "\nHow to read this report: docs/perfctl.md (\"Virtual speedups\").\n";
  return md;
}

bool writeSpeedupMarkdown(const SweepState &state, const SpeedupAnalysis &a,
                          bool withPlot, std::string &error) {
  return writeAtomically(std::filesystem::path(state.options.outDir) /
                             "report.md",
                         renderSpeedupMarkdown(state, a, withPlot), error);
}

} // namespace perfcc::perfctl
