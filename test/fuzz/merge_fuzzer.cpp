// perfctl merge's trace half (driver/perfctl/merge/TraceMerge.cpp) on
// arbitrary bytes, merged before and after a small well-formed trace of
// another process: a trace it cannot merge is an error naming the file, never
// a crash, an exception out of it or undefined behaviour (ids renumbered
// past the other trace's); a merge it accepts is a trace perfctl's reader
// accepts too.
#include "merge/TraceMerge.h"
#include "test/fuzz/fuzz_check.h"
#include "trace/TraceReader.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using fuzz::check;

namespace {

// One call, a launch and its kernel joined by a flow and a correlation:
// every kind of id the merge renumbers, starting from 1 as the runtime's.
const char *const OtherTrace =
    R"({"traceEvents":[
{"ph":"M","name":"process_name","pid":77,"tid":0,"args":{"name":"other"}},
{"ph":"X","cat":"cpu_op","name":"f","pid":77,"tid":77,"ts":5.000,"dur":9.000},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":77,"tid":77,"ts":6.000,"dur":1.000,"args":{"correlation":1,"external id":1}},
{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":8.000,"dur":2.000,"args":{"device":0,"stream":7,"correlation":1}},
{"ph":"s","id":1,"pid":77,"tid":77,"ts":6.000,"cat":"ac2g","name":"launch"},
{"ph":"f","id":1,"pid":0,"tid":7,"ts":8.000,"cat":"ac2g","name":"launch","bp":"e"}
],"metadata":{"pid":77,"clock_domain":"CLOCK_MONOTONIC"}}
)";

std::string writeFile(const std::string &path, const char *data,
                      std::size_t size) {
  std::FILE *f = std::fopen(path.c_str(), "wb");
  check(f != nullptr, "cannot write", path);
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  return path;
}

/// Merges the two \p files and reads the result back.
void mergeAndRead(const std::vector<std::string> &files) {
  std::FILE *out = std::tmpfile();
  check(out != nullptr, "no temporary file");
  std::vector<perfcc::perfctl::MergedTrace> merged;
  std::string error;
  bool ok = perfcc::perfctl::mergeTraces(files, out, "fuzz", merged, error);
  if (!ok) {
    check(error.find(files[0]) != std::string::npos ||
              error.find(files[1]) != std::string::npos,
          "refused without naming a file:", error);
    std::fclose(out);
    return;
  }
  std::string text;
  std::rewind(out);
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, out));)
    text.append(buffer, n);
  std::fclose(out);
  std::string readError;
  auto model = perfcc::perfctl::parseTrace(text, readError);
  check(model.has_value(), "the merged trace does not read back:", readError);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::string dir = [] {
    const char *tmp = std::getenv("TMPDIR");
    return std::string(tmp && *tmp ? tmp : "/tmp") + "/merge_fuzzer." +
           std::to_string(getpid());
  }();
  static const std::string other = [] {
    std::string path = writeFile(dir + ".other.trace.json", OtherTrace,
                                 std::strlen(OtherTrace));
    std::atexit([] {
      std::remove((dir + ".other.trace.json").c_str());
      std::remove((dir + ".fuzzed.trace.json").c_str());
    });
    return path;
  }();
  std::string fuzzed = writeFile(dir + ".fuzzed.trace.json",
                                 reinterpret_cast<const char *>(data), size);
  mergeAndRead({fuzzed, other});
  mergeAndRead({other, fuzzed});
  return 0;
}
