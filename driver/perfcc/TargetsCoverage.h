//===- TargetsCoverage.h - targets-file patterns no function matched ------===//
//
// A pattern that matches nothing in a whole build is usually a typo. Each
// compile sees one module, so only the build as a whole can tell: when
// perfcc links with both --perf-targets and --perf-report, it reads the
// report the compiles appended to and warns about every pattern that decided
// no function's fate.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCC_TARGETSCOVERAGE_H
#define PERFCC_DRIVER_PERFCC_TARGETSCOVERAGE_H

#include <string>
#include <vector>

namespace perfcc {

/// Warnings ("FILE:LINE:COL: warning: pattern 'P' matches no function") for
/// the rules of \p targetsPath that no line of the report at \p reportPath
/// names as its deciding rule. Empty when either file cannot be read or the
/// report is empty (nothing compiled with it yet).
std::vector<std::string> unusedTargetsWarnings(const std::string &targetsPath,
                                               const std::string &reportPath);

} // namespace perfcc

#endif // PERFCC_DRIVER_PERFCC_TARGETSCOVERAGE_H
