// A small two-stage pipeline: a producer thread parses "requests" into a
// queue and a consumer thread scores them. Built with perfcc, its trace shows
// both threads, the nesting of parse/tokenize and score/dot, and the summary
// ranks the functions by time.
//
// Usage: perfcc -O2 -g examples/pipeline.cpp -o pipeline && ./pipeline [N]
#include <perf/perf.h>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace pipeline {

struct Request {
  std::vector<int> tokens;
};

class Queue {
public:
  void push(Request r) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      items.push_back(std::move(r));
    }
    ready.notify_one();
  }
  bool pop(Request &r) {
    std::unique_lock<std::mutex> lock(mutex);
    ready.wait(lock, [&] { return !items.empty() || closed; });
    if (items.empty())
      return false;
    r = std::move(items.front());
    items.pop_front();
    return true;
  }
  void close() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      closed = true;
    }
    ready.notify_all();
  }

private:
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<Request> items;
  bool closed = false;
};

__attribute__((noinline)) std::vector<int> tokenize(const std::string &text) {
  std::vector<int> tokens;
  int current = 0;
  for (char c : text) {
    if (c == ' ') {
      tokens.push_back(current);
      current = 0;
    } else {
      current = current * 31 + c;
    }
  }
  tokens.push_back(current);
  return tokens;
}

__attribute__((noinline)) Request parse(int i) {
  std::string text;
  for (int w = 0; w < 64; ++w)
    text += "word" + std::to_string(i * w % 97) + " ";
  return Request{tokenize(text)};
}

__attribute__((noinline)) double dot(const std::vector<int> &a, int seed) {
  double sum = 0;
  for (int round = 0; round < 200; ++round)
    for (size_t i = 0; i < a.size(); ++i)
      sum += double(a[i] % 1000) * double((seed + round + int(i)) % 7);
  return sum;
}

__attribute__((noinline)) double score(const Request &r, int seed) {
  return dot(r.tokens, seed) / double(r.tokens.size());
}

__attribute__((noinline)) void produce(Queue &queue, int n) {
  perf_thread_name("producer");
  for (int i = 0; i < n; ++i)
    queue.push(parse(i));
  queue.close();
}

__attribute__((noinline)) double consume(Queue &queue) {
  perf_thread_name("consumer");
  double total = 0;
  Request r;
  for (int seed = 0; queue.pop(r); ++seed)
    total += score(r, seed);
  return total;
}

} // namespace pipeline

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 2000;
  pipeline::Queue queue;
  double total = 0;
  std::thread consumer([&] { total = pipeline::consume(queue); });
  std::thread producer([&] { pipeline::produce(queue, n); });
  producer.join();
  consumer.join();
  std::printf("scored %d requests: %.1f\n", n, total);
  return 0;
}
