// The selection language and Score-P filter files (common/Selection.cpp) on
// arbitrary bytes: a malformed file is an error naming the file, line and
// column, never a crash; a well-formed one parses the same twice, and every
// match names a rule the file has.
#include "perfcc/Selection.h"
#include "test/fuzz/fuzz_check.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

using fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  std::string error;
  std::optional<perfcc::Selection> selection =
      perfcc::Selection::parse(text, "fuzz.targets", error);
  if (!selection) {
    check(error.rfind("fuzz.targets:", 0) == 0, "error does not name the file");
    check(error.find(": error: ") != std::string::npos,
          "error is not a compiler-style diagnostic");
    return 0;
  }
  std::string again;
  std::optional<perfcc::Selection> second =
      perfcc::Selection::parse(text, "fuzz.targets", again);
  check(second && second->rules().size() == selection->rules().size(),
        "parsing is not deterministic");
  // Names from the input itself (each line, and halves of it) and fixed ones,
  // so the globs are matched against strings they were written for.
  const std::string_view fixed[] = {
      "main", "ns::Class::method", "_ZN2ns5Class6methodEv",
      "",     "src/lib/file.cpp",  "/abs/path/x.c"};
  auto matchAll = [&](std::string_view name, std::string_view file) {
    perfcc::SymbolRef ref{name, name, file};
    int rule = -2;
    perfcc::Verdict v = selection->match(ref, rule);
    check(rule >= -1 && rule < int(selection->rules().size()),
          "deciding rule out of range");
    check((v == perfcc::Verdict::NoMatch) == (rule == -1) ||
              selection->isScoreP(),
          "a verdict without its rule");
    check(selection->match(ref) == v, "the two match() overloads disagree");
  };
  for (std::string_view name : fixed)
    for (std::string_view file : fixed)
      matchAll(name, file);
  for (size_t at = 0; at < text.size() && at < 4096;) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view line = text.substr(at, end - at);
    matchAll(line, line);
    matchAll(line.substr(0, line.size() / 2), line.substr(line.size() / 2));
    at = end + 1;
  }
  std::vector<bool> none(selection->rules().size(), false);
  check(selection->unusedRuleWarnings(none).size() == selection->rules().size(),
        "not one warning per unused rule");
  return 0;
}
