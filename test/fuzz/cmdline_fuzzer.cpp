// perfcc's reading of a compiler command line (driver/perfcc): a response
// file's text tokenized with GNU rules, then classified. Any bytes give
// arguments and a classification, never a crash, and the classification
// agrees with itself.
#include "driver/perfcc/CompilerInvocation.h"
#include "test/fuzz/fuzz_check.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

using fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace perfcc::driver;
  std::string_view text(reinterpret_cast<const char *>(data), size);
  std::vector<std::string> words = tokenizeGNUCommandLine(text);
  std::vector<ExpandedArg> args;
  for (const std::string &w : words) {
    check(!w.empty() || text.find_first_of("'\"") != std::string_view::npos,
          "an empty argument from text without quotes");
    args.push_back({w, {}});
  }
  CompilerInvocation inv = CompilerInvocation::classify(args);
  check(inv.inputs().size() <= args.size(), "more inputs than arguments");
  check(!inv.hasCxxInput() || inv.hasSourceInput() ||
            inv.has(InputKind::CxxHeader),
        "C++ input that is neither source nor header");
  CompilerInvocation again = CompilerInvocation::classify(args);
  check(again.inputs() == inv.inputs() &&
            again.finalPhase() == inv.finalPhase(),
        "classification is not deterministic");
  return 0;
}
