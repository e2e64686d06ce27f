//===- SweepJsonRuns.h - a sweep.json's runs, analysed again -----*- C++
//-*-===//
//
// For tests on runs a real program made (fixtures): the measured runs of a
// sweep.json (or of a fixture trimmed from one) as RunPoints, analysed by
// today's code at --extrapolate 50%.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "sweep/Analysis.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace perfcc::perfctl {

inline double orMinusOne(const nlohmann::json &v) {
  return v.is_null() ? -1 : v.get<double>();
}

/// \p doc's measured runs, each in its group's index among doc["groups"]
/// (-1: the unarmed control). Fields older files lack stay unknown.
inline std::vector<RunPoint> runPointsOf(const nlohmann::json &doc) {
  std::vector<std::string> names;
  for (const nlohmann::json &g : doc["groups"])
    names.push_back(g["name"]);
  std::vector<RunPoint> points;
  for (const nlohmann::json &r : doc["runs"]) {
    if (!r["measured"].get<bool>())
      continue;
    RunPoint p;
    p.group = -1;
    for (size_t i = 0; i < names.size(); ++i)
      if (!r["group"].is_null() && r["group"] == names[i])
        p.group = int(i);
    p.delayNs = r["delay_ns"];
    p.throughput = r["throughput"];
    p.timePerUnitNs = r["time_per_unit_ns"];
    p.delayPerUnitNs = r["delay_per_unit_ns"];
    p.delayedCallsPerUnit = r["delayed_calls_per_unit"];
    p.targetNsPerCall = orMinusOne(r["target_ns_per_call"]);
    p.targetWorkNsPerCall = orMinusOne(r["target_work_ns_per_call"]);
    p.cpuWaitShare = orMinusOne(r.value("cpu_wait_share", nlohmann::json()));
    if (r.contains("wall_s"))
      p.wallNs = r["wall_s"].get<double>() * 1e9;
    points.push_back(p);
  }
  return points;
}

/// \p doc analysed again, as `--extrapolate 50%` would.
inline SweepAnalysis analyseAt50(const nlohmann::json &doc) {
  std::vector<std::string> names, files;
  for (const nlohmann::json &g : doc["groups"]) {
    names.push_back(g["name"]);
    files.push_back(g["file"]);
  }
  AnalysisSettings settings;
  settings.speedupPercents = {50};
  return analyzeSweep(names, files, doc["settings"]["delays_ns"],
                      runPointsOf(doc), settings);
}

} // namespace perfcc::perfctl
