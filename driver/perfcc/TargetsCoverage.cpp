//===- TargetsCoverage.cpp - targets-file patterns no function matched ----===//
#include "TargetsCoverage.h"

#include "perfcc/Selection.h"

#include <cstdlib>
#include <fstream>

namespace perfcc {

std::vector<std::string> unusedTargetsWarnings(const std::string &targetsPath,
                                               const std::string &reportPath) {
  std::string error;
  std::optional<Selection> targets = Selection::parseFile(targetsPath, error);
  std::ifstream report(reportPath);
  if (!targets || !report)
    return {};

  // The report is JSON lines written by the plugin; the deciding rule is the
  // only field needed, so a scan for it is enough.
  static const std::string Key = "\"targets_rule\":";
  std::vector<bool> used(targets->rules().size());
  std::string line;
  bool any = false;
  while (std::getline(report, line)) {
    any = true;
    size_t at = line.find(Key);
    if (at == std::string::npos)
      continue;
    unsigned long rule =
        std::strtoul(line.c_str() + at + Key.size(), nullptr, 10);
    if (rule < used.size())
      used[rule] = true;
  }
  if (!any)
    return {};
  return targets->unusedRuleWarnings(used);
}

} // namespace perfcc
