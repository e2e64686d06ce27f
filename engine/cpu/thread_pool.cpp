// engine/cpu/thread_pool.cpp - spin-then-futex fork-join pool (see
// thread_pool.h).
//
// Protocol: run() publishes the job, bumps generation_ and wakes sleeping
// workers; each worker runs its part and decrements pending_; the caller waits
// for pending_ to reach zero. Both waits spin first and then sleep on the
// futex of the word they wait for. The sleeper increments its "sleeping"
// counter before re-checking the word, and the waker changes the word before
// reading the counter (all sequentially consistent), so a wake-up is never
// lost.
#include "engine/cpu/thread_pool.h"

#include "engine/error.h"

#include <chrono>
#include <climits>
#include <linux/futex.h>
#include <perf/perf.h>
#include <pthread.h>
#include <sched.h>
#include <string>
#include <sys/syscall.h>
#include <unistd.h>

namespace engine {
namespace {

void futex_wait(std::atomic<uint32_t> *word, uint32_t expected) {
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(word), FUTEX_WAIT_PRIVATE,
          expected, nullptr, nullptr, 0);
}

void futex_wake_all(std::atomic<uint32_t> *word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(word), FUTEX_WAKE_PRIVATE,
          INT_MAX, nullptr, nullptr, 0);
}

inline void cpu_relax() { __builtin_ia32_pause(); }

using Clock = std::chrono::steady_clock;

// Spins until word != value or the spin time runs out; returns the last value
// read. The clock is read only every 64 pauses (a pause costs tens of cycles,
// a clock read about as much as a few), and from then on the thread also
// yields: when the machine has more runnable threads than cores, the thread
// being waited for may be the one that needs this core.
uint32_t spin_while_equal(const std::atomic<uint32_t> &word, uint32_t value,
                          int spin_us) {
  uint32_t now = word.load(std::memory_order_acquire);
  if (now != value || spin_us <= 0)
    return now;
  auto deadline = Clock::now() + std::chrono::microseconds(spin_us);
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      cpu_relax();
      now = word.load(std::memory_order_acquire);
      if (now != value)
        return now;
    }
    if (Clock::now() >= deadline)
      return now;
    sched_yield();
  }
}

// Inside a job: nested run() calls execute inline instead of deadlocking.
thread_local const ThreadPool *current_pool = nullptr;

} // namespace

Range split_range(int64_t n, int index, int parts, int64_t align) {
  if (align < 1)
    align = 1;
  int64_t blocks = (n + align - 1) / align;
  int64_t base = blocks / parts, extra = blocks % parts;
  int64_t first = index * base + (index < extra ? index : extra);
  int64_t count = base + (index < extra ? 1 : 0);
  Range r{first * align, (first + count) * align};
  if (r.begin > n)
    r.begin = n;
  if (r.end > n)
    r.end = n;
  return r;
}

ThreadPool::ThreadPool(int num_threads) : num_threads_(num_threads) {
  if (num_threads < 1)
    throw Error("thread pool: num_threads must be at least 1 (got " +
                std::to_string(num_threads) + ")");
  errors_.resize(num_threads);
  workers_.reserve(num_threads - 1);
  for (int i = 1; i < num_threads; ++i)
    workers_.emplace_back([this, i] { worker_main(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(run_mutex_);
    stop_ = true;
    generation_.fetch_add(1);
    futex_wake_all(&generation_);
  }
  for (std::thread &t : workers_)
    t.join();
}

void ThreadPool::worker_main(int index) {
  std::string name = "engine-worker-" + std::to_string(index);
  perf_thread_name(name.c_str());
  // Linux thread names hold 15 characters.
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
  current_pool = this;
  uint32_t seen = 0;
  for (;;) {
    uint32_t g = spin_while_equal(generation_, seen,
                                  spin_us_.load(std::memory_order_relaxed));
    if (g == seen) {
      sleeping_workers_.fetch_add(1);
      while ((g = generation_.load()) == seen)
        futex_wait(&generation_, seen);
      sleeping_workers_.fetch_sub(1);
    }
    seen = g;
    if (stop_)
      return;
    try {
      (*job_)(index, num_threads_);
    } catch (...) {
      errors_[index] = std::current_exception();
    }
    if (pending_.fetch_sub(1) == 1 && caller_sleeping_.load())
      futex_wake_all(&pending_);
  }
}

void ThreadPool::run(const std::function<void(int, int)> &fn) {
  if (current_pool == this || num_threads_ == 1) {
    for (int i = 0; i < num_threads_; ++i)
      fn(i, num_threads_);
    return;
  }
  std::lock_guard<std::mutex> lock(run_mutex_);
  job_ = &fn;
  pending_.store(uint32_t(num_threads_ - 1), std::memory_order_relaxed);
  generation_.fetch_add(1);
  if (sleeping_workers_.load() > 0)
    futex_wake_all(&generation_);

  const ThreadPool *outer = current_pool;
  current_pool = this;
  try {
    fn(0, num_threads_);
  } catch (...) {
    errors_[0] = std::current_exception();
  }
  current_pool = outer;

  // pending_ changes as each worker finishes, so wait for it to reach zero
  // rather than for it to change.
  uint32_t left;
  Clock::time_point deadline{};
  for (int spins = 1; (left = pending_.load(std::memory_order_acquire)) != 0;
       ++spins) {
    cpu_relax();
    if (spins % 64 == 0) {
      if (spins == 64) {
        deadline = Clock::now() + std::chrono::microseconds(
                                      spin_us_.load(std::memory_order_relaxed));
      } else {
        if (Clock::now() >= deadline)
          break;
        sched_yield();
      }
    }
  }
  if (left != 0) {
    caller_sleeping_.store(1);
    while ((left = pending_.load()) != 0)
      futex_wait(&pending_, left);
    caller_sleeping_.store(0);
  }
  std::atomic_thread_fence(std::memory_order_acquire);

  std::exception_ptr first;
  for (std::exception_ptr &e : errors_) {
    if (e && !first)
      first = e;
    e = nullptr;
  }
  if (first)
    std::rethrow_exception(first);
}

} // namespace engine
