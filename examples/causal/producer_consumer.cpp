// Ground truth 2: a producer thread feeds a bounded queue to a slower
// consumer. The consumer sets the pace: slowing consume_item lowers the
// throughput linearly, slowing produce_item changes nothing (the queue stays
// full) until the producer becomes the slower one. Variants for the real
// answer: -DCONSUME_PERCENT=90 (70, 50) does that share of consume_item's
// work, -DPRODUCE_PERCENT of produce_item's.
// Throughput: progress point "items" (one per consumed item).
// Usage: producer_consumer [items]
#include "bounded_queue.h"
#include "work.h"

#include <perf/perf.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

#ifndef CONSUME_PERCENT
#define CONSUME_PERCENT 100
#endif
#ifndef PRODUCE_PERCENT
#define PRODUCE_PERCENT 100
#endif

constexpr uint64_t ConsumerUnits = 40;
// A quarter of the consumer's work: the producer's slack, three times its own
// cost, keeps the flat stretch wide on a faster CPU and on a machine where
// the threads sometimes take turns.
constexpr uint64_t ProducerUnits = 10;
constexpr size_t Capacity = 16;

namespace causal {

__attribute__((noinline)) uint64_t produce_item(uint64_t i) {
  return burnPercent(ProducerUnits, PRODUCE_PERCENT, i);
}
__attribute__((noinline)) uint64_t consume_item(uint64_t v) {
  return burnPercent(ConsumerUnits, CONSUME_PERCENT, v);
}

} // namespace causal

int main(int argc, char **argv) {
  using namespace causal;
  int items = argc > 1 ? std::atoi(argv[1]) : 20000;
  uint64_t total = 0;
  BoundedQueue queue(Capacity);
  std::thread producer([&] {
    perf_thread_name("producer");
    for (int i = 0; i < items; ++i)
      queue.push(produce_item(uint64_t(i)));
    queue.close();
  });
  std::thread consumer([&] {
    perf_thread_name("consumer");
    for (uint64_t v; queue.pop(v);) {
      total += consume_item(v);
      PERF_PROGRESS("items");
    }
  });
  producer.join();
  consumer.join();
  std::printf("%llu\n", static_cast<unsigned long long>(total));
  return 0;
}
