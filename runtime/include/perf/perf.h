/* perf/perf.h - the one header an application includes to talk to perfcc.
 *
 * Progress points (what a speed-bump experiment measures), the work a call
 * did (bytes and FLOPs, for a roofline per function), waits perfcc cannot
 * see, thread names and an early flush. A program that includes this header but
 * is built without perfcc still compiles, links and runs: the runtime's
 * functions are weak references, null when libperfrt.so is absent, and every
 * call below is then a no-op.
 */
#ifndef PERF_PERF_H
#define PERF_PERF_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PERF_PROGRESS_THROUGHPUT 0u
#define PERF_PROGRESS_LATENCY 1u

/* One per progress-point site (the macros below make it static). Sites with
 * the same name count into the same point. */
struct perf_progress_point {
  const char *name;
  uint32_t id; /* 0 until the runtime first sees the site */
};

/* Implemented by libperfrt.so. Use the macros and wrappers below instead. */
void perfcc_flush(void) __attribute__((weak));
void perfcc_set_thread_name(const char *name) __attribute__((weak));
void perfcc_progress(struct perf_progress_point *point) __attribute__((weak));
void perfcc_latency_begin(struct perf_progress_point *point)
    __attribute__((weak));
void perfcc_latency_end(struct perf_progress_point *point)
    __attribute__((weak));
void perfcc_work(uint64_t bytes, uint64_t flops) __attribute__((weak));
void perfcc_wait_begin(void) __attribute__((weak));
void perfcc_wait_end(void) __attribute__((weak));
void perfcc_wake(void) __attribute__((weak));

#ifdef __cplusplus
}
#endif

/* A throughput point: one unit of work done ("token generated"). The
 * summary reports its count and rate inside the measurement window. */
#define PERF_PROGRESS(name)                                                    \
  do {                                                                         \
    static struct perf_progress_point perf_point_ = {(name), 0};               \
    if (perfcc_progress)                                                       \
      perfcc_progress(&perf_point_);                                           \
  } while (0)

/* A latency point: PERF_BEGIN when a request arrives, PERF_END (same name)
 * when it is done, on any threads. The summary reports the completion rate
 * and the mean latency (Little's law over the window). */
#define PERF_BEGIN(name)                                                       \
  do {                                                                         \
    static struct perf_progress_point perf_point_ = {(name), 0};               \
    if (perfcc_latency_begin)                                                  \
      perfcc_latency_begin(&perf_point_);                                      \
  } while (0)
#define PERF_END(name)                                                         \
  do {                                                                         \
    static struct perf_progress_point perf_point_ = {(name), 0};               \
    if (perfcc_latency_end)                                                    \
      perfcc_latency_end(&perf_point_);                                        \
  } while (0)

/* Writes the trace and the summary now and stops recording: for programs
 * that end without a normal exit (_exit, abort, exec). Later calls and the
 * exit-time flush do nothing. */
static inline void perf_flush(void) {
  if (perfcc_flush)
    perfcc_flush();
}

/* The work the innermost instrumented call open on this thread did: bytes
 * it moved (read and written) and floating-point operations. Summed per
 * function into the summary and the trace's function table, where perfctl
 * report divides them by the function's time (GB/s, FLOP/s). Call it once a
 * call (a matmul: its weights, inputs and outputs, 2*m*n*k), not per row. */
static inline void perf_work(uint64_t bytes, uint64_t flops) {
  if (perfcc_work)
    perfcc_work(bytes, flops);
}

/* A wait for another thread that perfcc cannot see: a spin on an atomic, a
 * futex called directly (pthread mutexes, condition variables and joins it
 * sees itself). Bracket the wait with perf_wait_begin() and perf_wait_end(),
 * and call perf_wake() just before the store that ends another thread's
 * wait. In an experiment the wait then counts as time blocked on another
 * thread, not as the work of the function it is in, and a virtual speedup
 * treats it as it treats a blocked mutex (Coz's rule: the pause owed is
 * paid before the wait and before the wake, and what accrued while the
 * thread waited, up to its wake, is forgiven). Without them, a thread that
 * spins while a sped-up function runs pays for that whole call, and the
 * predicted gain comes out low. Call them once per wait, not per spin.
 * Declare waits between stages (a queue), not a fork-join's wait for its own
 * parts: a declared wait is not the own work of the function it is in. */
static inline void perf_wait_begin(void) {
  if (perfcc_wait_begin)
    perfcc_wait_begin();
}
static inline void perf_wait_end(void) {
  if (perfcc_wait_end)
    perfcc_wait_end();
}
static inline void perf_wake(void) {
  if (perfcc_wake)
    perfcc_wake();
}

/* Names the calling thread in the trace and the summary (up to 63 bytes),
 * whatever the thread's kernel name is. */
static inline void perf_thread_name(const char *name) {
  if (perfcc_set_thread_name)
    perfcc_set_thread_name(name);
}

#endif /* PERF_PERF_H */
