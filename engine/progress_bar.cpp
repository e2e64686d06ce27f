// engine/progress_bar.cpp - drawing the progress bar.
#include "engine/progress_bar.h"

#include <chrono>
#include <cstdio>
#include <unistd.h>

namespace engine {

namespace {
double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
} // namespace

ProgressBar::ProgressBar(bool enabled, int64_t total)
    : enabled_(enabled && isatty(STDERR_FILENO)), total_(total), start_(now()) {
}

void ProgressBar::update(bool is_prefill, int64_t tokens, double seconds,
                         int64_t finished) {
  done_ += finished;
  if (seconds > 0)
    (is_prefill ? prefill_tok_s_ : decode_tok_s_) = double(tokens) / seconds;
  if (enabled_ && now() - last_draw_ >= 0.1)
    draw();
}

void ProgressBar::draw() {
  last_draw_ = now();
  const int width = 30;
  const int filled = total_ > 0 ? int(width * done_ / total_) : width;
  char bar[width + 1];
  for (int i = 0; i < width; ++i)
    bar[i] = i < filled ? '#' : '.';
  bar[width] = 0;
  std::fprintf(stderr,
               "\rGenerating [%s] %lld/%lld  %.1fs  prefill %.0f tok/s  "
               "decode %.1f tok/s ",
               bar, (long long)done_, (long long)total_, last_draw_ - start_,
               prefill_tok_s_, decode_tok_s_);
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (!enabled_)
    return;
  draw();
  std::fputc('\n', stderr);
}

} // namespace engine
