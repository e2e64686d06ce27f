//===- perfrt_signals.cpp - SIGINT and SIGTERM: output, then death --------===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_signals.h"

#include "perfrt_runtime.h"
#include "perfrt_thread.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

namespace perfrt {

namespace {

// The handler writes the signal's number into `request`; the writing thread
// closes `done`'s write end when the output is written, which wakes every
// handler waiting (two signals may arrive on two threads).
int gRequest[2] = {-1, -1};
int gDone[2] = {-1, -1};
bool gWriterThread = false; // the thread runs in this process

bool readWhole(int fd, void *data, size_t size) {
  for (;;) {
    ssize_t n = ::read(fd, data, size);
    if (n == ssize_t(size))
      return true;
    if (n < 0 && errno == EINTR)
      continue;
    return false;
  }
}

void *outputWriter(void *) {
  tlsRuntimeThread = true;
  unsigned char sig = 0;
  if (readWhole(gRequest[0], &sig, 1))
    runtimeFinish(true); // other threads, the interrupted one too, run on
  ::close(gDone[1]);
  return nullptr;
}

void onSignal(int sig) {
  int saved = errno;
  unsigned char byte = static_cast<unsigned char>(sig);
  if (gWriterThread && ::write(gRequest[1], &byte, 1) == 1) {
    // Wait for the output (EOF on `done`), however long a large trace takes.
    char ignored;
    while (::read(gDone[0], &ignored, 1) < 0 && errno == EINTR) {
    }
  } else {
    runtimeFinish(true); // a forked child: no writer thread here
  }
  errno = saved;
  // Die of the same signal, so the parent sees the status it expects.
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

bool installHandler(int sig) {
  struct sigaction old;
  if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL)
    return false; // ignored (nohup) or handled by someone else: leave it
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = onSignal;
  sigemptyset(&sa.sa_mask);
  // A second Ctrl-C kills at once, whatever the first is still writing.
  sa.sa_flags = SA_RESETHAND;
  return sigaction(sig, &sa, nullptr) == 0;
}

/// The writing thread, with every signal blocked (the program's signals are
/// for the program's threads). False when it cannot be had: the handlers
/// then write the output themselves.
bool startWriterThread() {
  if (pipe2(gRequest, O_CLOEXEC) != 0)
    return false;
  if (pipe2(gDone, O_CLOEXEC) != 0) {
    ::close(gRequest[0]);
    ::close(gRequest[1]);
    return false;
  }
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 256 << 10);
  pthread_t thread;
  bool started = pthread_create(&thread, &attr, outputWriter, nullptr) == 0;
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (started)
    pthread_setname_np(thread, "perfcc-signal");
  return started;
}

} // namespace

void signalsInstall() {
  bool interrupt = installHandler(SIGINT);
  bool terminate = installHandler(SIGTERM);
  if (interrupt || terminate)
    gWriterThread = startWriterThread();
}

void signalsAfterFork() { gWriterThread = false; }

} // namespace perfrt

PERFRT_NOINSTR_END
