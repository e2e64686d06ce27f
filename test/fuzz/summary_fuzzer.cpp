// perfctl's readers of the runtime's summaries on arbitrary bytes: the run
// reader (driver/perfctl/run/Result.cpp), `perfctl filter`'s overhead budget
// (filter/OverheadBudget.cpp) and `perfctl merge`'s summary half
// (merge/SummaryMerge.cpp). Malformed JSON, or JSON of the wrong shape, is an
// error naming the file (or, for the budget, what the summary lacks), never
// a crash or an exception of another kind out of the reader.
#include "filter/OverheadBudget.h"
#include "merge/SummaryMerge.h"
#include "run/Result.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

namespace {

void failUnlessNamed(const std::string &error, const char *file,
                     const char *reader) {
  if (error.find(file) != std::string::npos)
    return;
  std::fprintf(stderr,
               "summary_fuzzer: %s's error does not name the file: %s\n",
               reader, error.c_str());
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  std::string error;
  auto m = perfcc::perfctl::parseSummary(text, "fuzz.summary.json", error);
  if (!m)
    failUnlessNamed(error, "fuzz.summary.json", "the run reader");

  // The filter and merge parse the file themselves, as their commands do.
  nlohmann::json summary = nlohmann::json::parse(text, nullptr, false);
  if (summary.is_object()) {
    try {
      perfcc::perfctl::decideBudget(summary, 30.0, 0.05);
    } catch (const std::runtime_error &) {
      // What the summary lacks, said; FilterCommand prefixes the file.
    }
  }
  nlohmann::ordered_json ordered =
      nlohmann::ordered_json::parse(text, nullptr, false);
  if (!ordered.is_discarded()) {
    try {
      perfcc::perfctl::mergeSummaries(
          {{"a.summary.json", ordered}, {"b.summary.json", ordered}}, "fuzz");
    } catch (const std::runtime_error &e) {
      std::string what = e.what();
      if (what.find("a.summary.json") == std::string::npos &&
          what.find("b.summary.json") == std::string::npos)
        failUnlessNamed(what, "a.summary.json", "merge");
    }
  }
  return 0;
}
