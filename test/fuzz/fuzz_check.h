// test/fuzz/fuzz_check.h - the assertion each fuzzer makes of a property
// every input must keep: it aborts, which libFuzzer reports with the input,
// after a line naming the fuzzer (the program) and what failed.
#pragma once

#include <cerrno> // program_invocation_short_name (glibc)
#include <cstdio>
#include <cstdlib>
#include <string>

namespace fuzz {

/// Aborts, saying what failed (and \p detail), unless \p ok.
inline void check(bool ok, const char *what, const std::string &detail = "") {
  if (ok)
    return;
  std::fprintf(stderr, "%s: %s%s%s\n", program_invocation_short_name, what,
               detail.empty() ? "" : " ", detail.c_str());
  std::abort();
}

} // namespace fuzz
