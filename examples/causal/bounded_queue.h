// A bounded blocking queue shared by the ground-truth programs: push waits
// while the queue is full, pop while it is empty (false once it is closed and
// drained). Its waits are where one thread's pace reaches the other.
//
// A waiter spins for a while before it sleeps. Why: a sleeping thread costs
// whoever wakes it a futex call, and on a virtual machine an interrupt to a
// halted vCPU, and that cost grows with how long the sleeper slept. A bump
// that slows the busy side lengthens the other side's sleeps, so with
// sleeping waits every delayed ns cost the program about 1.4 ns here, and
// the ground truth's straight lines came out bent. Spinning keeps the
// program's cost what the model says (each side's own work) as long as each
// thread has a core, which is what these programs are run with.
//
// The spin is a wait perfcc cannot see (no pthread call), so it is declared
// (perf_wait_begin/end, and perf_wake before the store that ends it): in a
// virtual speedup of the consumer, the producer spinning for room would
// otherwise pay for the consumer's whole call, not only for the time its
// own work overlapped it.
#ifndef EXAMPLES_CAUSAL_BOUNDED_QUEUE_H
#define EXAMPLES_CAUSAL_BOUNDED_QUEUE_H

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>

#include <immintrin.h>

#include <perf/perf.h>

class BoundedQueue {
public:
  explicit BoundedQueue(size_t capacity) : capacity(capacity) {}

  void push(uint64_t v) {
    std::unique_lock<std::mutex> lock(mutex);
    waitFor(lock, [&] { return count.load() < capacity; });
    items.push_back(v);
    perf_wake();
    count.store(items.size());
    wakeSleepers();
  }

  bool pop(uint64_t &v) {
    std::unique_lock<std::mutex> lock(mutex);
    waitFor(lock, [&] { return count.load() > 0 || closed.load(); });
    if (items.empty())
      return false;
    v = items.front();
    items.pop_front();
    perf_wake();
    count.store(items.size());
    wakeSleepers();
    return true;
  }

  void close() {
    std::lock_guard<std::mutex> lock(mutex);
    perf_wake();
    closed.store(true);
    wakeSleepers();
  }

private:
  // Long enough to cover any wait these programs see (tens of µs, with the
  // largest bumps a sweep uses), short enough not to burn a core for long
  // when the other side has really stopped.
  static constexpr std::chrono::microseconds SpinLimit{2000};

  template <typename Ready>
  void waitFor(std::unique_lock<std::mutex> &lock, Ready ready) {
    if (ready())
      return;
    // Spin without the lock (the predicate reads atomics), then sleep.
    lock.unlock();
    auto start = std::chrono::steady_clock::now();
    perf_wait_begin();
    while (!ready() && std::chrono::steady_clock::now() - start < SpinLimit)
      _mm_pause();
    perf_wait_end();
    lock.lock();
    if (ready())
      return;
    ++sleepers;
    changed.wait(lock, ready);
    --sleepers;
  }

  // Called with the lock held; `sleepers` changes only under it, so a
  // waiter cannot slip between its last check and its sleep unnoticed.
  void wakeSleepers() {
    if (sleepers > 0)
      changed.notify_all();
  }

  const size_t capacity;
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<uint64_t> items;
  std::atomic<size_t> count{0};
  std::atomic<bool> closed{false};
  int sleepers = 0;
};

#endif // EXAMPLES_CAUSAL_BOUNDED_QUEUE_H
