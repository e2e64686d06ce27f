//===- Progress.h - runs done and time left, on stderr ----------*- C++ -*-===//
//
// On a terminal: one bar redrawn in place ("[#####.....] 12/40 runs, about
// 35 s left"). Anywhere else (a log, a CI job): one line per finished run.
// The time left is the mean duration of the runs so far times the runs
// left.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_SWEEP_PROGRESS_H
#define PERFCC_DRIVER_PERFCTL_SWEEP_PROGRESS_H

#include <cstddef>
#include <cstdio>
#include <string>

namespace perfcc::perfctl {

/// "45 s", "3 min 05 s", "1 h 02 min".
std::string formatSeconds(double seconds);

class SweepProgress {
public:
  /// \p out null: silent.
  SweepProgress(std::size_t total, bool terminal, std::FILE *out);
  /// A run begins (redraws the bar on a terminal).
  void started(const std::string &description);
  /// A run ended after \p wallNs; \p result says what it measured.
  void finished(const std::string &description, double wallNs,
                const std::string &result);
  /// The run just finished is made again (it was disturbed): it is not
  /// done, and its number comes again.
  void again() {
    if (done)
      --done;
  }
  /// Ends the bar's line (on a terminal), before other output.
  void clear();
  /// The bar's text (without escape codes), for tests.
  std::string bar(const std::string &current) const;
  /// Seconds left, estimated; negative before the first run finished.
  double secondsLeft() const;

private:
  std::size_t total, done = 0;
  double totalWallNs = 0;
  bool terminal;
  bool drawn = false;
  std::FILE *out;
};

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_SWEEP_PROGRESS_H
