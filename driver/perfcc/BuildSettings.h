//===- BuildSettings.h - perfcc's own --perf-* flags ------------*- C++ -*-===//
//
// perfcc takes four flags of its own that clang must never see. The pass
// plugin cannot receive options through clang (`-mllvm` does not reach a
// plugin loaded with -fpass-plugin: llvm/llvm-project#56137), so each flag
// becomes an environment variable of the compiler process, the same one a
// user of plain `clang -fpass-plugin=libperfpass.so` would set by hand:
//
//   --perf-targets=FILE        PERFCC_BUILD_TARGETS   (made absolute)
//   --perf-threshold=N         PERFCC_BUILD_THRESHOLD
//   --perf-stage=early|late    PERFCC_BUILD_STAGE
//   --perf-report=FILE         PERFCC_BUILD_REPORT    (made absolute)
//
// Usage: std::string err; BuildSettings s;
//        if (!takePerfFlags(args, /*validate=*/true, s, err)) fail(err);
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCC_BUILDSETTINGS_H
#define PERFCC_DRIVER_PERFCC_BUILDSETTINGS_H

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perfcc::driver {

/// What perfcc's flags ask of the compiler's environment.
struct BuildSettings {
  /// (variable, value) pairs, at most one per variable: the last flag wins,
  /// as with compiler flags.
  std::vector<std::pair<std::string, std::string>> environment;
};

/// True for an argument in perfcc's flag namespace (`--perf-...`).
bool isPerfFlag(std::string_view arg);

/// Removes every `--perf-*` argument from \p args and records it in
/// \p settings. With \p validate, each value is checked first (a targets file
/// is parsed); on the first problem returns false with \p error set to the one
/// line to print. Without it, flags are only removed, so a build configured
/// with them still works when instrumentation is switched off.
bool takePerfFlags(std::vector<std::string> &args, bool validate,
                   BuildSettings &settings, std::string &error);

} // namespace perfcc::driver

#endif // PERFCC_DRIVER_PERFCC_BUILDSETTINGS_H
