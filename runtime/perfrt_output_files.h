//===- perfrt_output_files.h - the output folder and its files, safely ----===//
//
// Every file the runtime writes (trace, summary, spill) lies in PERFCC_OUT,
// which may be a shared folder such as /tmp: a file is opened without
// following a symbolic link, and a file already there is reused only when it
// is a regular file of this user (a leftover of an earlier process that had
// the same pid); anything else is refused, never written through. The folder
// is checked at start-up, before main, so a run whose output could not be
// written stops at once (exit status 2) instead of losing its data at exit.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_OUTPUT_FILES_H
#define PERFRT_OUTPUT_FILES_H

#include <string>

namespace perfrt {

/// Output path for \p kind ("trace" or "summary") of this process.
void outputPath(const char *kind, char *path, unsigned pathSize);

/// Creates the output folder (and parents). Returns errno or 0.
int makeOutputDir();

/// Opens \p path for writing from its start (read and write when
/// \p readBack), created with \p permissions. -1 with errno set when it
/// cannot be, or when it is a link, not a regular file, or another user's
/// (ELOOP, EINVAL and EPERM then).
int openOutputFile(const char *path, int permissions, bool readBack);

/// Start-up check: the folder exists or is created, and a file can really
/// be created and removed in it. Empty when it can; else the problem, as
/// one line naming the setting and the folder.
std::string checkOutputDir();

} // namespace perfrt

#endif // PERFRT_OUTPUT_FILES_H
