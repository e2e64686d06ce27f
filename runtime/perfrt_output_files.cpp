//===- perfrt_output_files.cpp - the output folder and its files, safely --===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_output_files.h"

#include "perfrt_runtime.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace perfrt {

void outputPath(const char *kind, char *path, unsigned size) {
  std::snprintf(path, size, "%s/%s.%d.%s.json", gRt.flags.out.c_str(),
                gRt.program, gRt.pid, kind);
}

int makeOutputDir() {
  char dir[4096];
  std::snprintf(dir, sizeof dir, "%s", gRt.flags.out.c_str());
  for (char *p = dir + 1; *p; ++p) {
    if (*p != '/')
      continue;
    *p = '\0';
    mkdir(dir, 0755);
    *p = '/';
  }
  if (mkdir(dir, 0755) != 0 && errno != EEXIST)
    return errno;
  struct stat st;
  if (stat(dir, &st) != 0)
    return errno;
  return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
}

int openOutputFile(const char *path, int permissions, bool readBack) {
  int access = readBack ? O_RDWR : O_WRONLY;
  // New: created here, so it is ours and no link.
  int fd = ::open(path, access | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  permissions);
  if (fd >= 0 || errno != EEXIST)
    return fd;
  // There already: reused only if it is a regular file of this user.
  fd = ::open(path, access | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return -1;
  struct stat st;
  int problem = 0;
  if (fstat(fd, &st) != 0)
    problem = errno;
  else if (!S_ISREG(st.st_mode))
    problem = EINVAL;
  else if (st.st_uid != geteuid())
    problem = EPERM;
  else if (ftruncate(fd, 0) != 0)
    problem = errno;
  if (problem) {
    ::close(fd);
    errno = problem;
    return -1;
  }
  return fd;
}

std::string checkOutputDir() {
  const char *dir = gRt.flags.out.c_str();
  auto problem = [dir](const char *what, int err) {
    return std::string("perfcc: PERFCC_OUT='") + dir + "': " + what + ": " +
           std::strerror(err) + " (no output could be written; nothing ran)";
  };
  if (int err = makeOutputDir())
    return problem("cannot create the folder", err);
  char probe[4096];
  std::snprintf(probe, sizeof probe, "%s/.perfcc-check.%d", dir, int(getpid()));
  int fd =
      ::open(probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return problem("cannot create a file in the folder", errno);
  ::close(fd);
  ::unlink(probe);
  return {};
}

} // namespace perfrt

PERFRT_NOINSTR_END
