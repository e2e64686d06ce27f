/* perf/perf.h - the one header an application includes to talk to perfcc.
 *
 * Thread names and an early flush. A program that includes this header but
 * is built without perfcc still compiles, links and runs: the runtime's
 * functions are weak references, null when libperfrt.so is absent, and every
 * call below is then a no-op.
 */
#ifndef PERF_PERF_H
#define PERF_PERF_H

#ifdef __cplusplus
extern "C" {
#endif

/* Implemented by libperfrt.so. Call the perf_* wrappers below instead. */
void perfcc_flush(void) __attribute__((weak));
void perfcc_set_thread_name(const char *name) __attribute__((weak));

#ifdef __cplusplus
}
#endif

/* Writes the trace and the summary now and stops recording: for programs
 * that end without a normal exit (_exit, abort, exec). Later calls and the
 * exit-time flush do nothing. */
static inline void perf_flush(void) {
  if (perfcc_flush)
    perfcc_flush();
}

/* Names the calling thread in the trace and the summary (up to 63 bytes),
 * whatever the thread's kernel name is. */
static inline void perf_thread_name(const char *name) {
  if (perfcc_set_thread_name)
    perfcc_set_thread_name(name);
}

#endif /* PERF_PERF_H */
