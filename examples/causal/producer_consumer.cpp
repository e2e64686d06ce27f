// Ground truth 2: a producer thread feeds a bounded queue to a slower
// consumer. The consumer sets the pace: slowing consume_item lowers the
// throughput linearly, slowing produce_item changes nothing (the queue stays
// full) until the producer becomes the slower one. Build with
// -DLIGHT_CONSUMER for the variant whose consumer really is faster, to check
// a prediction against reality.
// Throughput: progress point "items" (one per consumed item).
// Usage: producer_consumer [items]
#include "work.h"

#include <perf/perf.h>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>

#ifdef LIGHT_CONSUMER
constexpr uint64_t ConsumerUnits = 30;
#else
constexpr uint64_t ConsumerUnits = 40;
#endif
constexpr uint64_t ProducerUnits = 15;
constexpr size_t Capacity = 16;

namespace causal {

std::mutex mutex;
std::condition_variable changed;
std::deque<uint64_t> queue;
bool done = false;

__attribute__((noinline)) uint64_t produce_item(uint64_t i) {
  return burn(ProducerUnits, i);
}
__attribute__((noinline)) uint64_t consume_item(uint64_t v) {
  return burn(ConsumerUnits, v);
}

} // namespace causal

int main(int argc, char **argv) {
  using namespace causal;
  int items = argc > 1 ? std::atoi(argv[1]) : 20000;
  uint64_t total = 0;
  std::thread producer([&] {
    perf_thread_name("producer");
    for (int i = 0; i < items; ++i) {
      uint64_t v = produce_item(uint64_t(i));
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait(lock, [] { return queue.size() < Capacity; });
      queue.push_back(v);
      changed.notify_all();
    }
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
    changed.notify_all();
  });
  std::thread consumer([&] {
    perf_thread_name("consumer");
    for (;;) {
      uint64_t v;
      {
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [] { return !queue.empty() || done; });
        if (queue.empty())
          break;
        v = queue.front();
        queue.pop_front();
        changed.notify_all();
      }
      total += consume_item(v);
      PERF_PROGRESS("items");
    }
  });
  producer.join();
  consumer.join();
  std::printf("%llu\n", static_cast<unsigned long long>(total));
  return 0;
}
