// engine/cpu/thread_pool.h - the fork-join pool every CPU kernel runs on.
//
// The model dispatches a few hundred parallel kernels per generated token, so
// a dispatch must cost about a microsecond: the workers spin on a shared
// counter for a while after each job (50 µs by default, yielding the core to
// any other runnable thread as they go) and only then sleep on a futex, so an
// idle engine uses no CPU while a busy one never pays for a wake-up.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace engine {

/// A half-open range [begin, end).
struct Range {
  int64_t begin = 0, end = 0;
  int64_t size() const { return end - begin; }
};

/// Splits [0, n) into `parts` contiguous chunks of near-equal size and returns
/// chunk `index`. Every boundary except n is a multiple of `align` (≥ 1), so a
/// kernel that works on blocks of `align` rows gets whole blocks; trailing
/// chunks may be empty. Needs 0 ≤ index < parts.
Range split_range(int64_t n, int index, int parts, int64_t align = 1);

class ThreadPool {
public:
  /// Starts num_threads − 1 workers (the caller of run() is thread 0).
  /// Throws engine::Error when num_threads < 1.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  /// Number of threads including the caller.
  int size() const { return num_threads_; }

  /// Runs fn(thread, size()) once on every thread, the caller as thread 0,
  /// and returns when all are done. An exception thrown by any of them is
  /// rethrown here (the lowest-numbered thread's first) after all finish.
  /// Calls from several threads are serialized; a call from inside fn runs
  /// all parts on the calling thread, one after another.
  void run(const std::function<void(int thread, int num_threads)> &fn);

  /// How long (µs) a worker spins for the next job before it sleeps.
  void set_spin_us(int us) { spin_us_.store(us, std::memory_order_relaxed); }

private:
  void worker_main(int index);

  int num_threads_;
  std::vector<std::thread> workers_;
  std::vector<std::exception_ptr> errors_;
  std::mutex run_mutex_;
  const std::function<void(int, int)> *job_ = nullptr;
  std::atomic<int> spin_us_{50};
  bool stop_ = false;
  // Each on its own cache line: workers poll generation_ while finishing
  // workers write pending_.
  alignas(64) std::atomic<uint32_t> generation_{0};
  std::atomic<uint32_t> sleeping_workers_{0};
  alignas(64) std::atomic<uint32_t> pending_{0};
  std::atomic<uint32_t> caller_sleeping_{0};
};

} // namespace engine
