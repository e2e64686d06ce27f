// perfctl's reader of the runtime's summaries (driver/perfctl/run/Result.cpp)
// on arbitrary bytes: malformed JSON, or JSON of the wrong shape, is an error
// naming the file, never a crash or an exception out of the reader.
#include "run/Result.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  std::string error;
  auto m = perfcc::perfctl::parseSummary(text, "fuzz.summary.json", error);
  if (!m && error.find("fuzz.summary.json") == std::string::npos) {
    std::fprintf(stderr, "summary_fuzzer: error does not name the file: %s\n",
                 error.c_str());
    std::abort();
  }
  return 0;
}
