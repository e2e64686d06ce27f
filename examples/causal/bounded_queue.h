// A bounded blocking queue shared by the ground-truth programs: push waits
// while the queue is full, pop while it is empty (false once it is closed and
// drained). Its waits are where one thread's pace reaches the other.
#ifndef EXAMPLES_CAUSAL_BOUNDED_QUEUE_H
#define EXAMPLES_CAUSAL_BOUNDED_QUEUE_H

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>

class BoundedQueue {
public:
  explicit BoundedQueue(size_t capacity) : capacity(capacity) {}

  void push(uint64_t v) {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return items.size() < capacity; });
    items.push_back(v);
    changed.notify_all();
  }

  bool pop(uint64_t &v) {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return !items.empty() || closed; });
    if (items.empty())
      return false;
    v = items.front();
    items.pop_front();
    changed.notify_all();
    return true;
  }

  void close() {
    std::lock_guard<std::mutex> lock(mutex);
    closed = true;
    changed.notify_all();
  }

private:
  const size_t capacity;
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<uint64_t> items;
  bool closed = false;
};

#endif // EXAMPLES_CAUSAL_BOUNDED_QUEUE_H
