// Everything after the CUPTI adapter, in a real traced process, without a
// GPU: this program plays the adapter, handing the runtime's sink
// (__perfrt_gpu_sink) the records CUPTI would make for a known schedule. Its
// host functions run for real; the records it makes up sit at the times the
// functions ran. Each step launches a "kernel" that runs at least 3 ms and
// until `hidden` has finished (so `hidden` always runs behind it, however
// the machine schedules this process), waits for it, then `stall`s 2 ms
// with the GPU idle. The program writes its own known answer (the stalls'
// measured total) for check_idle_answer.py. Also: a graph captured in one
// function and replayed in another (three kernels from one launch), a copy,
// a lost launch and a kernel with no launch, a call made in a function that
// never returns (the program exits inside it), and the records delivered
// out of order from two threads.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %perfcc -O1 -g -pthread -I%srcroot/runtime --perf-targets=%S/Inputs/gpu-synthetic.targets %s -o %t/prog -ldl
// RUN: env PERFCC_OUT=%t/out %t/prog %t/expected
// RUN: %tracecheck gpu %t/out/prog.*.trace.json | FileCheck %s
// RUN: %tracecheck trace --max-depth 2 --collapse --thread-name-only %t/out/prog.*.trace.json | FileCheck %s --check-prefix=HOST
// RUN: %python %S/Inputs/gpu-summary-check.py %t/out/prog.*.summary.json | FileCheck %s --check-prefix=SUMMARY
// The known answer, read back by perfctl report: the GPU waited for each of
// the 10 stalls (nine between steps, one before the graph replay) as long as
// it lasted, and never for `hidden`.
// RUN: %perfctl report %t/out/prog.*.trace.json | FileCheck %s --check-prefix=ANSWER
// RUN: %perfctl report --json %t/out/prog.*.trace.json > %t/report.json
// RUN: %python %srcroot/test/gpu/check_idle_answer.py %t/report.json --expect %t/expected | FileCheck %s --check-prefix=IDLE
// RUN: env PERFCC_OUT=%t/off PERFCC_CUPTI=off %t/prog
// RUN: %tracecheck trace %t/off/prog.*.trace.json > /dev/null
// RUN: not grep -q '"gpu"' %t/off/prog.*.trace.json

// CHECK:      gpu: 27 runtime calls, 0 driver calls, 14 kernels, 1 copies, 0 memsets, 10 syncs, 14 flows
// CHECK-NEXT: metadata gpu cupti=on records=52 dropped_records=2 unmatched_launches=1 unmatched_gpu_records=1 records_outside_run=0 starts_before_launch=0 overlap_rows_used=0 zero_timestamps=0
// CHECK-NEXT: api cudaDeviceSynchronize in gpu_step::finish_and_exit [unfinished] x1
// CHECK-NEXT: api cudaGraphLaunch in gpu_step::replay_graph x1
// CHECK-NEXT: api cudaLaunchKernel in gpu_step::capture_graph x3
// CHECK-NEXT: api cudaLaunchKernel in gpu_step::launch x10
// CHECK-NEXT: api cudaLaunchKernel in gpu_step::lost_launch x1
// CHECK-NEXT: api cudaMemcpyAsync in gpu_step::upload x1
// CHECK-NEXT: api cudaStreamSynchronize in gpu_step::wait_for_gpu x10
// CHECK-NEXT: cuda_sync Stream Sync stream=7 launched_by=gpu_step::wait_for_gpu x10
// CHECK-NEXT: gpu_memcpy Memcpy HtoD (Pinned -> Device) stream=7 launched_by=gpu_step::upload x1
// CHECK-NEXT: kernel graph_node_a() stream=2 launched_by=gpu_step::replay_graph captured_by=gpu_step::capture_graph x1
// CHECK-NEXT: kernel graph_node_b() stream=2 launched_by=gpu_step::replay_graph captured_by=gpu_step::capture_graph x1
// CHECK-NEXT: kernel graph_node_c() stream=2 launched_by=gpu_step::replay_graph captured_by=gpu_step::capture_graph x1
// CHECK-NEXT: kernel orphan(int) stream=9 x1
// CHECK-NEXT: kernel step_kernel(float*, int) stream=7 launched_by=gpu_step::launch x10

// HOST:      thread prog
// HOST-NEXT:   main
// HOST-NEXT:     gpu_step::upload
// HOST-NEXT:     gpu_step::capture_graph
// HOST-NEXT:     gpu_step::launch
// HOST-NEXT:     gpu_step::hidden
// HOST-NEXT:     gpu_step::wait_for_gpu
// HOST-NEXT:     gpu_step::stall
// HOST:          gpu_step::replay_graph
// HOST-NEXT:     gpu_step::lost_launch

// (Which function tops the table depends on the machine: a process
// descheduled inside another function keeps the GPU waiting there too, and
// is charged for it. The stall's own charge is exact: IDLE below.)
// ANSWER:      GPU idle charged to host functions
// ANSWER:      waiting on the host while in
// ANSWER:      gpu_step::stall

// IDLE:      ok: gpu_step::stall charged
// IDLE-NEXT: ok: gpu_step::hidden charged 0.000 ms
// IDLE-NEXT: ok: gpu_step::launch launched 10
// IDLE-NEXT: ok: gpu_step::replay_graph launched 3

// SUMMARY:      cupti=on
// SUMMARY-NEXT: kernel step_kernel(float*, int) calls=10
// SUMMARY:      launcher gpu_step::launch calls=10
// SUMMARY-NEXT: launcher gpu_step::upload calls=1
// SUMMARY-NEXT: launcher gpu_step::replay_graph calls=3
// SUMMARY:      quality unmatched_launches=1 unmatched_gpu_records=1

#include "perfrt_gpu_records.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <thread>
#include <vector>

namespace {

const perfrt_gpu_sink *sink;
std::vector<perfrt_gpu_api> apis;
std::vector<perfrt_gpu_work> work;
std::vector<perfrt_gpu_graph_node> nodes;
uint32_t nextCorrelation = 1;

void spin(uint64_t ns) {
  uint64_t end = sink->now() + ns;
  while (sink->now() < end) {
  }
}

/// A CUDA API call made now, lasting 3 us, as CUPTI would record it.
perfrt_gpu_api call(const char *name) {
  perfrt_gpu_api a{};
  a.start = sink->now();
  spin(3000);
  a.end = sink->now();
  a.correlation = nextCorrelation++;
  a.tid = uint32_t(syscall(SYS_gettid));
  a.name = sink->intern(name);
  apis.push_back(a);
  return a;
}

perfrt_gpu_work record(uint32_t kind, const char *name, uint32_t corr,
                       uint64_t start, uint64_t end, uint32_t stream) {
  perfrt_gpu_work w{};
  w.kind = kind, w.name = sink->intern(name), w.correlation = corr;
  w.start = start, w.end = end, w.stream = stream, w.context = 1;
  w.device = kind == PERFRT_GPU_SYNC ? ~0u : 0;
  w.grid[0] = 128, w.grid[1] = w.grid[2] = 1;
  w.block[0] = 256, w.block[1] = w.block[2] = 1;
  w.registers = 32;
  return w;
}

void node(uint64_t id, uint64_t original) {
  perfrt_gpu_graph_node n{};
  n.time = sink->now(), n.node_id = id, n.original_node_id = original;
  n.graph_id = 4, n.tid = uint32_t(syscall(SYS_gettid));
  nodes.push_back(n);
}

} // namespace

namespace gpu_step {

__attribute__((noinline)) void upload() {
  spin(20000);
  perfrt_gpu_api a = call("cudaMemcpyAsync");
  perfrt_gpu_work w = record(PERFRT_GPU_MEMCPY, "Memcpy HtoD (Pinned -> Device)",
                             a.correlation, a.end + 2000, a.end + 50000, 7);
  w.bytes = 1 << 20;
  work.push_back(w);
  spin(60000); // past the copy
}

__attribute__((noinline)) void capture_graph() {
  spin(20000);
  const char *kernels[] = {"_Z12graph_node_av", "_Z12graph_node_bv",
                           "_Z12graph_node_cv"};
  for (int i = 0; i < 3; ++i) {
    // A launch during capture creates a node, no kernel.
    perfrt_gpu_api a{};
    a.start = sink->now();
    node(100 + i, 0);
    spin(3000);
    a.end = sink->now();
    a.correlation = nextCorrelation++;
    a.tid = uint32_t(syscall(SYS_gettid));
    a.name = sink->intern("cudaLaunchKernel");
    apis.push_back(a);
    (void)kernels;
  }
  spin(20000);
}

/// Launches the step's kernel; returns when it starts on the GPU.
__attribute__((noinline)) perfrt_gpu_api launch() {
  spin(20000);
  perfrt_gpu_api a = call("cudaLaunchKernel");
  spin(20000);
  return a;
}

__attribute__((noinline)) void hidden() { spin(1000000); }

__attribute__((noinline)) void wait_for_gpu(uint64_t kernelEnd) {
  perfrt_gpu_api a{};
  a.start = sink->now();
  while (sink->now() < kernelEnd + 2000) {
  }
  a.end = sink->now();
  a.correlation = nextCorrelation++;
  a.tid = uint32_t(syscall(SYS_gettid));
  a.name = sink->intern("cudaStreamSynchronize");
  apis.push_back(a);
  perfrt_gpu_work s = record(PERFRT_GPU_SYNC, "", a.correlation, a.start, a.end, 7);
  s.sync_kind = sink->intern("Stream Sync");
  work.push_back(s);
}

__attribute__((noinline)) void stall() { spin(2000000); }

__attribute__((noinline)) void replay_graph() {
  spin(20000);
  perfrt_gpu_api a = call("cudaGraphLaunch");
  const char *kernels[] = {"_Z12graph_node_av", "_Z12graph_node_bv",
                           "_Z12graph_node_cv"};
  uint64_t t = a.end + 5000;
  for (int i = 0; i < 3; ++i) {
    node(200 + i, 100 + i); // instantiation's clone of the captured node
    perfrt_gpu_work k =
        record(PERFRT_GPU_KERNEL, kernels[i], a.correlation, t, t + 10000, 2);
    k.graph_id = 4, k.graph_node_id = 200 + i;
    work.push_back(k);
    t += 10000;
  }
  spin(50000);
}

__attribute__((noinline)) void lost_launch() {
  spin(20000);
  call("cudaLaunchKernel"); // its kernel record never comes
  spin(20000);
}

/// Makes a last CUDA call, hands everything over (as CUPTI's exit flush
/// would), and exits inside the call: its span is unfinished, and still
/// owns the call made in it.
[[noreturn]] __attribute__((noinline)) void finish_and_exit(void (*deliver)()) {
  spin(20000);
  call("cudaDeviceSynchronize");
  deliver();
  std::exit(0);
}

} // namespace gpu_step

void deliverEverything();
bool on;

int main(int argc, char **argv) {
  auto lookup = reinterpret_cast<const perfrt_gpu_sink *(*)()>(
      dlsym(RTLD_DEFAULT, PERFRT_GPU_SINK_SYMBOL));
  if (!lookup || !(sink = lookup()) || sink->version != PERFRT_GPU_SINK_VERSION)
    return 1;
  on = sink->policy != 0; // PERFCC_CUPTI=off: an adapter does nothing
  if (on)
    sink->attached(130001, nullptr);
  gpu_step::upload();
  gpu_step::capture_graph();
  uint64_t stalled = 0;
  for (int i = 0; i < 10; ++i) {
    perfrt_gpu_api a = gpu_step::launch();
    gpu_step::hidden();
    // The kernel runs from just after its launch until after `hidden`.
    uint64_t start = a.end + 5000;
    uint64_t end = std::max(start + 3000000, sink->now() + 1000);
    work.push_back(record(PERFRT_GPU_KERNEL, "_Z11step_kernelPfi",
                          a.correlation, start, end, 7));
    gpu_step::wait_for_gpu(end);
    uint64_t before = sink->now();
    gpu_step::stall();
    stalled += sink->now() - before;
  }
  gpu_step::replay_graph();
  gpu_step::lost_launch();
  work.push_back(record(PERFRT_GPU_KERNEL, "_Z6orphani", 999999, sink->now(),
                        sink->now() + 1000, 9));
  if (argc > 1) { // the known answer, for check_idle_answer.py --expect
    FILE *f = std::fopen(argv[1], "w");
    std::fprintf(f, "charged gpu_step::stall %llu 2\n", (unsigned long long)stalled);
    std::fprintf(f, "not-charged gpu_step::hidden 1000\n");
    std::fprintf(f, "launches gpu_step::launch 10\nlaunches gpu_step::replay_graph 3\n");
    std::fclose(f);
  }
  if (!on)
    return 0;
  gpu_step::finish_and_exit(deliverEverything);
}

void deliverEverything() {
  // CUPTI completes buffers on its own threads, in any order.
  std::vector<perfrt_gpu_api> apisBack(apis.rbegin(), apis.rend());
  std::vector<perfrt_gpu_work> workBack(work.rbegin(), work.rend());
  size_t half = workBack.size() / 2;
  std::thread first([&] {
    sink->records(nullptr, 0, workBack.data(), uint32_t(half));
    for (const perfrt_gpu_graph_node &n : nodes)
      sink->graph_node(&n);
  });
  std::thread second([&] {
    sink->records(apisBack.data(), uint32_t(apisBack.size()),
                  workBack.data() + half, uint32_t(workBack.size() - half));
    sink->dropped(2);
  });
  first.join();
  second.join();
}
