// The runtime's settings (runtime/perfrt_flags.cpp) from arbitrary
// environments: the input's lines are NAME=VALUE pairs. A refused setting is
// one line starting "perfcc: "; an accepted set keeps the invariants the
// runtime relies on (an output folder, a frequency and buffers of at least
// one, never a delay without targets).
#include "perfrt_flags.h"
#include "test/fuzz/fuzz_check.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

using fuzz::check;

namespace {

std::map<std::string, std::string> environment;

const char *fuzzGetenv(const char *name) {
  auto it = environment.find(name);
  return it == environment.end() ? nullptr : it->second.c_str();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  environment.clear();
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view line = text.substr(at, end - at);
    size_t eq = line.find('=');
    // The environment holds C strings: a value ends at its first NUL.
    if (eq != std::string_view::npos)
      environment[std::string(line.substr(0, eq)).c_str()] =
          std::string(line.substr(eq + 1)).c_str();
    at = end + 1;
  }
  // The defaults, evaluated at compile time as the runtime's are (a default
  // its parser rejects does not compile).
  static constexpr perfrt::Flags Defaults{};
  perfrt::Flags flags = Defaults;
  std::string error;
  bool ok = perfrt::parseFlags(flags, error, fuzzGetenv);
  if (!ok) {
    check(error.rfind("perfcc: ", 0) == 0, "error does not start 'perfcc: '");
    check(error.find('\n') == std::string::npos, "error is not one line");
    return 0;
  }
  check(!flags.out.empty(), "accepted without an output folder");
  check(flags.frequency >= 1, "accepted a frequency of 0");
  check(flags.bufferMb >= 1, "accepted a buffer of 0");
  check(flags.speedupPercent <= 100, "accepted a speedup over 100%");
  check(!(flags.delayNs && flags.delayTargets.empty()),
        "accepted a delay without targets");
  check(!(flags.traceKeep == perfrt::TraceKeep::Last && flags.traceMaxMb == 0),
        "accepted keeping the last calls without a size");
  return 0;
}
