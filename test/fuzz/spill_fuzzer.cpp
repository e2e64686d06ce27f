// perfctl's spill reader and recovery (driver/perfctl/trace/SpillReader.h,
// SpillRecovery.h) on arbitrary bytes, as a crash can leave them: a spill
// that is torn, corrupt or no spill at all is an error or a cut, never a
// crash; a spill it accepts has chunks that read back as indexed, every
// whole frame before the cut, and a recovery that writes a trace and a
// summary or says why not.
#include "test/fuzz/fuzz_check.h"
#include "trace/SpillReader.h"
#include "trace/SpillRecovery.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

using fuzz::check;

namespace {

std::string scratchDir() {
  static std::string dir = [] {
    char path[] = "/tmp/spill-fuzzer.XXXXXX";
    check(mkdtemp(path) != nullptr, "no scratch folder");
    return std::string(path);
  }();
  return dir;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace perfcc::perfctl;
  int fd = memfd_create("spill", 0);
  check(fd >= 0, "no memfd");
  check(write(fd, data, size) == ssize_t(size), "short write");
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  SpillReader reader;
  std::string error;
  if (!reader.open(path, error)) {
    check(!error.empty(), "refused without saying why");
    close(fd);
    return 0;
  }
  const SpillIndex &index = reader.index();
  check(index.goodBytes <= index.fileBytes, "more good bytes than bytes");
  check(index.cut.empty() == (index.cutOffset == 0) || index.ring,
        "a cut without its offset");
  std::vector<perfcc::spill::Record> records;
  for (const SpillChunkRef &chunk : index.chunks) {
    check(chunk.offset + uint64_t(chunk.count) * 32 <= index.fileBytes,
          "a chunk past the end of the file");
    check(reader.readChunk(chunk, records, error), "an indexed chunk unread");
  }
  RecoveredFiles files;
  if (recoverSpill(reader, path, scratchDir(), files, error)) {
    check(files.calls + files.unnamed <= files.records, "calls miscounted");
    std::remove(files.trace.c_str());
    std::remove(files.summary.c_str());
  } else {
    check(!error.empty(), "a recovery failed without saying why");
  }
  close(fd);
  return 0;
}
