//===- FilteredTargets.cpp - a targets file that leaves functions out -----===//
#include "filter/FilteredTargets.h"

#include "report/Units.h"

#include <fmt/format.h>

namespace perfcc::perfctl {

namespace {

/// A name in a comment: one line.
std::string oneLine(std::string s) {
  for (char &c : s)
    if (c == '\n' || c == '\r')
      c = ' ';
  return s;
}

} // namespace

std::string filteredTargets(const BudgetDecision &decision,
                            const std::string &header,
                            const std::string &original, bool scoreP) {
  std::string out = header;
  if (!out.empty() && out.back() != '\n')
    out += '\n';
  out += original.empty() ? "*\n" : original;
  if (!out.empty() && out.back() != '\n')
    out += '\n';
  if (decision.excludedCount() == 0)
    return out;
  out += "# Left out: calls, time a call, share of the probes' cost.\n";
  if (scoreP)
    out += "SCOREP_REGION_NAMES_BEGIN\n";
  for (const BudgetFunction *f : decision.leftOut()) {
    std::string why =
        fmt::format("# {}: {} calls, {} a call, {:.1f}%", oneLine(f->name),
                    f->calls, humanNs(f->meanInclusiveNs), 100 * f->probeShare);
    out += scoreP ? fmt::format("  EXCLUDE MANGLED {} {}\n", f->mangled, why)
                  : fmt::format("!{} {}\n", f->mangled, why);
  }
  if (scoreP)
    out += "SCOREP_REGION_NAMES_END\n";
  return out;
}

} // namespace perfcc::perfctl
