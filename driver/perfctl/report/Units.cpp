//===- Units.cpp - durations and shares for people to read ----------------===//
#include "report/Units.h"

#include <fmt/format.h>

#include <cmath>
#include <iterator>

namespace perfcc::perfctl {

namespace {

/// \p value (>= 1, < 1000 after rounding) with three significant digits.
std::string threeDigits(double value) {
  if (value >= 99.95)
    return fmt::format("{:.0f}", value);
  if (value >= 9.995)
    return fmt::format("{:.1f}", value);
  return fmt::format("{:.2f}", value);
}

} // namespace

std::string humanNs(double ns) {
  if (std::isnan(ns))
    return "-";
  if (ns < 0)
    return "-" + humanNs(-ns);
  // Each unit holds values that round below 1000 of it.
  if (ns < 999.5)
    return fmt::format("{:.0f} ns", ns);
  if (ns < 999.5e3)
    return threeDigits(ns / 1e3) + " us";
  if (ns < 999.5e6)
    return threeDigits(ns / 1e6) + " ms";
  if (ns < 999.5e9)
    return threeDigits(ns / 1e9) + " s";
  return fmt::format("{:.0f} s", ns / 1e9);
}

std::string humanCount(double n) {
  if (std::isnan(n))
    return "-";
  if (n < 999.5)
    return fmt::format("{:.0f}", n);
  // Decimal prefixes, as GB/s and GFLOP/s are.
  static const char *const prefixes[] = {"k", "M", "G", "T", "P", "E"};
  double scaled = n / 1e3;
  std::size_t i = 0;
  while (scaled >= 999.5 && i + 1 < std::size(prefixes)) {
    scaled /= 1e3;
    ++i;
  }
  return threeDigits(scaled) + " " + prefixes[i];
}

std::string humanBytes(double bytes) {
  std::string n = humanCount(bytes);
  return n.find(' ') == std::string::npos ? n + " B" : n + "B";
}

double percent(double part, double whole) {
  return whole > 0 ? part / whole * 100.0 : 0.0;
}

std::string percentOf(double part, double whole) {
  if (whole <= 0)
    return "-";
  double p = percent(part, whole);
  if (p == 0)
    return "0%";
  if (p < 0.1)
    return "<0.1%";
  if (p < 9.95)
    return fmt::format("{:.1f}%", p);
  return fmt::format("{:.0f}%", p);
}

} // namespace perfcc::perfctl
