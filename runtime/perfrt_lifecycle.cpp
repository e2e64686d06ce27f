//===- perfrt_lifecycle.cpp - start-up, registration, exit, signals, fork -===//
//
// Start-up reads and validates the settings before main (a bad one: one line
// on stderr and exit status 2). Output is written once: at normal exit (the
// library destructor, after the program's own static destructors), on SIGINT
// or SIGTERM (then the signal is re-raised so the exit status is kept), or
// when the program calls perf_flush(). A forked child records on its own and
// writes its own files.
//
//===----------------------------------------------------------------------===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_clock.h"
#include "perfrt_delay.h"
#include "perfrt_gpu_attach.h"
#include "perfrt_gpu_output.h"
#include "perfrt_gpu_raw.h"
#include "perfrt_gpu_store.h"
#include "perfrt_locks.h"
#include "perfrt_output_files.h"
#include "perfrt_progress.h"
#include "perfrt_record.h"
#include "perfrt_registry.h"
#include "perfrt_signals.h"
#include "perfrt_speedup.h"
#include "perfrt_spill.h"
#include "perfrt_summary.h"
#include "perfrt_trace_writer.h"
#include "perfrt_work.h"

#include "perfcc/ABI.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <pthread.h>
#include <string>
#include <type_traits>
#include <unistd.h>

namespace perfrt {

Runtime gRt;
static_assert(std::is_trivially_destructible<Runtime>::value,
              "the exit-time flush reads gRt after static destructors");

namespace {

pthread_once_t initOnce = PTHREAD_ONCE_INIT;

void writeStderr(const std::string &line) {
  std::string text = line + "\n";
  ssize_t ignored = ::write(2, text.data(), text.size());
  (void)ignored;
}

// secure_getenv: a setuid or setgid program ignores the settings (and runs
// with the defaults), so an unprivileged caller cannot point a privileged
// program's output at a file of its choosing.
const char *settingsGetenv(const char *name) { return secure_getenv(name); }

/// One line per reason calls are in the summary but not in the trace, with
/// the setting that would have kept them: a long run that filled its caps
/// should not find out by reading the metadata.
void warnDroppedSpans() {
  uint64_t memory = 0;
  for (ThreadState *t = allThreads(); t; t = t->next)
    memory += t->droppedSpans;
  uint64_t disk = traceDroppedSpans();
  if (disk)
    writeStderr(
        "perfcc: " + std::to_string(disk) +
        " calls are in the summary but not in the trace: PERFCC_TRACE_MAX_MB=" +
        std::to_string(gRt.flags.traceMaxMb) +
        (gRt.flags.traceKeep == TraceKeep::Last
             ? " was reached and the trace keeps the run's last calls; raise "
               "it to keep more"
             : " was reached and the trace keeps the run's first calls; "
               "PERFCC_TRACE_KEEP=last keeps its last ones, a larger "
               "PERFCC_TRACE_MAX_MB more of them"));
  if (memory)
    writeStderr("perfcc: " + std::to_string(memory) +
                " calls are in the summary but not in the trace: the writer "
                "fell behind and PERFCC_BUFFER_MB=" +
                std::to_string(gRt.flags.bufferMb) +
                " filled; raise it, or record fewer functions "
                "(PERFCC_TARGETS)");
}

void afterForkInChild() {
  gRt.pid = getpid();
  speedupAfterFork(); // before threadsAfterFork: a new state reads it
  threadsAfterFork();
  spansAfterFork();
  traceAfterFork();
  progressAfterFork();
  workAfterFork();
  gpuStoreAfterFork();
  gpuRawAfterFork();
  signalsAfterFork();
}

void initOnceBody() {
  std::string error;
  if (!parseFlags(gRt.flags, error, settingsGetenv)) {
    writeStderr(error);
    _exit(2);
  }
  if (gRt.flags.help)
    writeStderr(flagsHelp());
  if (!gRt.flags.targets.empty()) {
    std::optional<perfcc::Selection> targets =
        perfcc::Selection::parseFile(gRt.flags.targets.c_str(), error);
    if (!targets) {
      writeStderr("perfcc: PERFCC_TARGETS: " + error);
      _exit(2);
    }
    gRt.targets = new perfcc::Selection(std::move(*targets));
  }
  if (!gRt.flags.delayTargets.empty()) {
    std::optional<perfcc::Selection> delays =
        perfcc::Selection::parseFile(gRt.flags.delayTargets.c_str(), error);
    if (!delays) {
      writeStderr("perfcc: PERFCC_DELAY_TARGETS: " + error);
      _exit(2);
    }
    if (delays->rules().empty()) {
      writeStderr(std::string("perfcc: PERFCC_DELAY_TARGETS: ") +
                  gRt.flags.delayTargets.c_str() +
                  ": selects nothing to delay");
      _exit(2);
    }
    gRt.delayTargets = new perfcc::Selection(std::move(*delays));
  }
  std::snprintf(gRt.program, sizeof gRt.program, "%s",
                program_invocation_short_name);
  gRt.pid = getpid();
  gRt.trace = gRt.flags.mode == Mode::Trace;
  gRt.spans = gRt.flags.mode != Mode::Off;
  clockInit(gRt.flags.clock);
  spansInit(size_t(gRt.flags.bufferMb) << 20);
  threadsInit();
  pthread_atfork(nullptr, nullptr, afterForkInChild);
  if (gRt.flags.mode != Mode::Off)
    signalsInstall();
  gRt.startTicks = nowTicks();
  delayInit(gRt.flags);
  if (gRt.flags.cpuTime)
    threadCpuCalibrate();
  speedupInit(gRt.flags);
  locksInit(!gRt.flags.delayTargets.empty());
  // Last: with PERFCC_CUPTI=on it may refuse to start, and it must see the
  // settings above.
  gpuAttachInit();
  // Before main, after every setting is known good (so a refused setting
  // leaves no folder behind): a run whose output cannot be written stops
  // here, not after it has run for an hour.
  if (gRt.flags.mode != Mode::Off) {
    std::string problem = checkOutputDir();
    if (problem.empty())
      problem = gpuRawOpen();
    if (!problem.empty()) {
      writeStderr(problem);
      _exit(2);
    }
  }
  if (gRt.trace)
    spillReportLeftovers();
  gRt.state.store(Lifecycle::Running);
  gRt.recording.store(gRt.flags.mode != Mode::Off, std::memory_order_release);
}

/// After the writer stopped: the spans it never took, the queue's (oldest
/// first) and then each thread's current chunk, to \p use.
void handOverUnwrittenSpans(void (*use)(SpanChunk *)) {
  spansDrainQueue(use);
  for (ThreadState *t = allThreads(); t; t = t->next)
    if (t->chunk && !t->busy.load(std::memory_order_acquire))
      use(t->chunk);
}

/// Reads a thread's kernel name (for threads still alive at the flush).
void readComm(ThreadState *t) {
  if (t->namedByApi)
    return;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%u/comm", t->tid);
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  char name[sizeof t->name] = {};
  ssize_t n = ::read(fd, name, sizeof name - 1);
  ::close(fd);
  if (n > 0 && name[n - 1] == '\n')
    name[n - 1] = '\0';
  if (n > 0)
    setThreadName(t, name);
}

void sleepMs(long ms) {
  timespec ts{0, ms * 1000000};
  nanosleep(&ts, nullptr);
}

} // namespace

void runtimeInit() { pthread_once(&initOnce, initOnceBody); }

void runtimeFinish(bool inSignal) {
  Lifecycle expected = Lifecycle::Running;
  if (!gRt.state.compare_exchange_strong(expected, Lifecycle::Finished))
    return;
  if (gRt.flags.mode == Mode::Off)
    return; // nothing was recorded, so nothing is written
  gRt.recording.store(false, std::memory_order_seq_cst);
  // A probe that read `recording` just before has set its guard by the time
  // this pause ends (store buffers drain in nanoseconds); then wait for
  // those probes to finish, boundedly.
  sleepMs(1);
  ThreadState *self = tlsState;
  for (ThreadState *t = allThreads(); t; t = t->next)
    for (int i = 0; i < 100 && t != self && !t->dead &&
                    t->busy.load(std::memory_order_acquire);
         ++i)
      sleepMs(1);

  uint64_t now = nowTicks();
  // GPU records first: CUPTI's last buffers are flushed into the store
  // before the spans that their API calls are charged to are written.
  clockCalibrate();
  if (!inSignal) // dlopen is not async-signal-safe
    gpuAttachCheckAtExit();
  gpuBeginOutput(ticksToNs(gRt.startTicks), ticksToNs(now), inSignal);
  for (ThreadState *t = allThreads(); t; t = t->next) {
    if (t->dead || t->busy.load(std::memory_order_acquire))
      continue; // finished already, or interrupted mid-probe by this signal
    if (t != self)
      readComm(t);
    else if (!t->name[0] || !inSignal)
      refreshThreadName(t);
    while (t->depth)
      popFrame(t, now, SpanUnfinished);
  }

  char tracePath[4096] = {}, summaryPath[4096] = {};
  bool traceOk = true;
  if (gRt.trace) {
    if (spansStopWriter(inSignal)) {
      // Oldest first, so each thread's spans reach the trace in order.
      traceConvertSpill();
      handOverUnwrittenSpans(traceConvertChunk);
      traceOk = traceFinish(tracePath, sizeof tracePath);
    } else {
      traceOk = false;
    }
  } else if (gRt.spans && spansStopWriter(inSignal)) {
    // Summary mode: the writer charged the chunks it took; the rest, here.
    handOverUnwrittenSpans(traceChargeChunk);
  }
  bool summaryOk =
      summaryWrite(summaryPath, sizeof summaryPath, gRt.trace ? tracePath : "");

  // A trace written makes the spill redundant; one that was not leaves it
  // for perfctl trace recover, which the exit names.
  const char *spillLeft = nullptr;
  if (gRt.trace && traceOk)
    spillRemove();
  else if (gRt.trace)
    spillLeft = spillLeftBehind();
  std::string line = "perfcc: ";
  if (gRt.trace)
    line += traceOk ? std::string("wrote ") + tracePath + " and "
                    : std::string("could not write the trace; wrote ");
  line += summaryOk ? std::string(gRt.trace ? "" : "wrote ") + summaryPath
                    : std::string("no summary (") + summaryPath + ": " +
                          std::strerror(errno) + ")";
  writeStderr(line);
  if (spillLeft)
    writeStderr(std::string("perfcc: the calls written to disk during the "
                            "run are in ") +
                spillLeft + "; recover them with: perfctl trace recover " +
                spillLeft);
  if (gRt.trace && !inSignal)
    warnDroppedSpans();
  if (const char *gpuLoss = gpuLossWarning(); *gpuLoss)
    writeStderr(gpuLoss);
  if (const char *raw = gpuRawFinish())
    writeStderr(std::string("perfcc: kept CUPTI's buffers raw in ") + raw);

  if (gSpeedup.on && !inSignal && speedupSawGpu())
    writeStderr("perfcc: PERFCC_SPEEDUP_PERCENT: the process loaded a CUDA "
                "driver; a GPU cannot be paused by delaying CPU threads, so "
                "this virtual speedup is marked invalid in the summary (use "
                "speed bumps: PERFCC_DELAY_NS)");
  if (gRt.targets && !inSignal)
    for (const std::string &w : gRt.targets->unusedRuleWarnings(
             gRegistry.usedRules(gRt.targets->rules().size())))
      writeStderr("perfcc: PERFCC_TARGETS: " + w);
  // PERFCC_CUPTI=on and CUPTI was not to be had: the output is written, and
  // the status says the run is not what was asked for.
  if (gpuAttachFailedRequired() && !inSignal) {
    writeStderr("perfcc: PERFCC_CUPTI='on': no GPU activity was recorded; "
                "exiting with status 2");
    _exit(2);
  }
}

} // namespace perfrt

PERFRT_NOINSTR_END
