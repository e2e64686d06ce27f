//===- Units.h - durations and shares for people to read --------*- C++ -*-===//
//
// Nanoseconds with the unit that keeps three significant digits (812 ns,
// 12.3 us, 312 ms, 1.25 s), counts and bytes likewise, and percentages, for the
// text and Markdown reports. The JSON report keeps integer nanoseconds.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_REPORT_UNITS_H
#define PERFCC_DRIVER_PERFCTL_REPORT_UNITS_H

#include <string>

namespace perfcc::perfctl {

/// "0 ns", "812 ns", "12.3 us", "312 ms", "1.25 s", "125 s".
std::string humanNs(double ns);
/// "812", "12.3 k", "1.19 G": three significant digits, decimal prefixes.
std::string humanCount(double n);
/// "812 B", "12.3 kB", "1.19 GB" (decimal, as GB/s is).
std::string humanBytes(double bytes);
/// \p part of \p whole as "18%", "0.4%", "<0.1%"; "-" when whole is 0.
std::string percentOf(double part, double whole);
/// \p part / \p whole * 100; 0 when whole is 0.
double percent(double part, double whole);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_REPORT_UNITS_H
