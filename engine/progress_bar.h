// engine/progress_bar.h - a live one-line progress bar on stderr for long
// generate() calls: requests done, elapsed time, and the prefill and decode
// throughput of the latest steps (as Nano-vLLM's tqdm postfix shows).
#pragma once

#include <cstdint>

namespace engine {

class ProgressBar {
public:
  /// Draws nothing unless enabled and stderr is a terminal.
  ProgressBar(bool enabled, int64_t total);
  /// Records one step; redraws at most ten times a second.
  void update(bool is_prefill, int64_t tokens, double seconds,
              int64_t finished);
  /// Draws the final state and ends the line.
  void finish();

private:
  void draw();

  bool enabled_;
  int64_t total_, done_ = 0;
  double start_, last_draw_ = 0;
  double prefill_tok_s_ = 0, decode_tok_s_ = 0;
};

} // namespace engine
