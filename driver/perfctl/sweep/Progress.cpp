//===- Progress.cpp - runs done and time left, on stderr ------------------===//
#include "sweep/Progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace perfcc::perfctl {

std::string formatSeconds(double seconds) {
  long s = std::lround(std::max(0.0, seconds));
  if (s < 60)
    return fmt::format("{} s", s);
  if (s < 3600)
    return fmt::format("{} min {:02} s", s / 60, s % 60);
  return fmt::format("{} h {:02} min", s / 3600, (s % 3600) / 60);
}

SweepProgress::SweepProgress(std::size_t total, bool terminal, std::FILE *out)
    : total(total), terminal(terminal), out(out) {}

double SweepProgress::secondsLeft() const {
  if (!done)
    return -1;
  return totalWallNs / double(done) * double(total - done) / 1e9;
}

std::string SweepProgress::bar(const std::string &current) const {
  const std::size_t width = 30;
  std::size_t filled = total ? done * width / total : width;
  std::string text = "[" + std::string(filled, '#') +
                     std::string(width - filled, '.') + "] " +
                     fmt::format("{}/{} runs", done, total);
  double left = secondsLeft();
  if (left >= 0)
    text += ", about " + formatSeconds(left) + " left";
  if (!current.empty())
    text += " (" + current + ")";
  return text;
}

void SweepProgress::started(const std::string &description) {
  if (!terminal || !out)
    return;
  fmt::print(out, "\r\033[K{}", bar(description));
  std::fflush(out);
  drawn = true;
}

void SweepProgress::finished(const std::string &description, double wallNs,
                             const std::string &result) {
  ++done;
  totalWallNs += wallNs;
  if (!out)
    return;
  if (terminal) {
    fmt::print(out, "\r\033[K{}", bar(""));
    std::fflush(out);
    drawn = true;
    return;
  }
  double left = secondsLeft();
  fmt::print(out, "perfctl: run {}/{} ({}): {} in {:.2f} s; about {} left\n",
             done, total, description, result, wallNs / 1e9,
             formatSeconds(left));
  std::fflush(out);
}

void SweepProgress::clear() {
  if (terminal && drawn) {
    fmt::print(out, "\r\033[K");
    std::fflush(out);
    drawn = false;
  }
}

} // namespace perfcc::perfctl
