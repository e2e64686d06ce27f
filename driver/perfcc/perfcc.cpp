//===- perfcc.cpp - the compiler wrapper that builds probes in ------------===//
//
// perfcc stands in for clang and clang++ (CMAKE_C_COMPILER and
// CMAKE_CXX_COMPILER alike, or CC/CXX) and runs the clang that matches the
// LLVM the pass plugin was built against. On a command line that generates
// code it adds `-fpass-plugin=libperfpass.so`; on one that links it adds the
// probe runtime libperfrt.so (with an rpath, so programs run from the build
// tree); wherever sources are preprocessed it adds the folder holding
// <perf/perf.h>. It takes its own --perf-* flags and hands them to the plugin
// as PERFCC_BUILD_* environment variables; everything else reaches clang
// unchanged, response files included, and clang replaces perfcc (execv), so
// its exit status and signals are the caller's to see.
//
// Usage: perfcc [--perf-targets=FILE] [--perf-threshold=N]
//               [--perf-stage=early|late] [--perf-report=FILE] CLANG-ARGS...
//        perfcc++ ...            (always drives clang++)
//        PERFCC_DISABLE=1 perfcc ...   (plain clang, nothing added)
//
//===----------------------------------------------------------------------===//
#include "BuildSettings.h"
#include "CompilerInvocation.h"
#include "TargetsCoverage.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

#ifndef PERFCC_CLANG
#error "PERFCC_CLANG must name the clang matching the plugin's LLVM"
#endif
#ifndef PERFCC_CLANGXX
#error "PERFCC_CLANGXX must name the clang++ matching the plugin's LLVM"
#endif
#ifndef PERFCC_VERSION_STRING
#define PERFCC_VERSION_STRING "unknown"
#endif
#ifndef PERFCC_LLVM_VERSION_STRING
#define PERFCC_LLVM_VERSION_STRING "unknown"
#endif

using namespace perfcc::driver;

namespace {

/// Prints \p line to stderr and ends perfcc with status 2, the status every
/// perfcc usage error has, before anything ran.
[[noreturn]] void fail(const std::string &line) {
  std::fprintf(stderr, "%s\n", line.c_str());
  std::exit(2);
}

/// True when \p text ends with \p suffix.
bool endsWith(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// The path up to (not including) its last '/' ("." when there is none).
std::string parentOf(const std::string &path) {
  std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

/// The folder holding perfcc's bin/, lib/ and include/ (the build folder, or
/// the install prefix). Found from /proc/self/exe rather than argv[0]: that
/// is already absolute and free of symlinks, so perfcc works when called
/// through PATH, through the perfcc++ link or through a link elsewhere.
std::string installPrefix() {
  std::string exe(PATH_MAX, '\0');
  ssize_t length = readlink("/proc/self/exe", exe.data(), exe.size());
  if (length <= 0 || static_cast<std::size_t>(length) >= exe.size())
    fail(std::string("perfcc: error: cannot find its own executable "
                     "through /proc/self/exe: ") +
         std::strerror(errno));
  exe.resize(length);
  return parentOf(parentOf(exe));
}

/// True when PERFCC_DISABLE asks for a plain compiler. A value other than 0
/// or 1 is an error rather than a guess, as for every other perfcc setting.
bool disabledByEnvironment() {
  const char *value = std::getenv("PERFCC_DISABLE");
  if (!value || !*value || std::strcmp(value, "0") == 0)
    return false;
  if (std::strcmp(value, "1") == 0)
    return true;
  fail(std::string("perfcc: error: PERFCC_DISABLE: '") + value +
       "' is not 0 or 1");
}

/// The clang driver to run: clang++ when called as perfcc++ (or any name
/// ending in "++"), when any input is C++, and for a link step with no C
/// source among its inputs. That last rule is what lets one perfcc serve as
/// both CMake compilers: CMake links C++ objects without naming a source, and
/// only clang++ adds libstdc++. The cost is that a C program linked from
/// objects through perfcc also gets libstdc++. A link that compiles C sources
/// keeps clang, since clang++ would compile them as C++.
std::string chooseCompiler(const std::string &argv0,
                           const CompilerInvocation &inv) {
  std::string name = argv0.substr(argv0.find_last_of('/') + 1);
  bool cxx = endsWith(name, "++") || inv.hasCxxInput() ||
             (inv.links() && !inv.has(InputKind::CSource));
  // An empty override counts as unset, as the PERFCC_BUILD_* variables do.
  const char *override = std::getenv(cxx ? "PERFCC_CLANGXX" : "PERFCC_CLANG");
  if (override && *override)
    return override;
  return cxx ? PERFCC_CLANGXX : PERFCC_CLANG;
}

/// Replaces perfcc by \p compiler with \p args; returns only on failure.
[[noreturn]] void run(const std::string &compiler,
                      const std::vector<std::string> &args) {
  // clang derives its mode (C or C++) and its installation folder from
  // argv[0], so argv[0] must be the compiler's own path, not perfcc's.
  std::vector<char *> argv;
  argv.push_back(const_cast<char *>(compiler.c_str()));
  for (const std::string &arg : args)
    argv.push_back(const_cast<char *>(arg.c_str()));
  argv.push_back(nullptr);
  std::fflush(stdout);
  // execvp so that PERFCC_CLANG=clang-19 is looked up on PATH; the built-in
  // paths are absolute, where execvp is execv.
  execvp(compiler.c_str(), argv.data());
  int error = errno;
  std::fprintf(stderr, "perfcc: error: cannot run '%s': %s\n", compiler.c_str(),
               std::strerror(error));
  // The shell's statuses for a command not found and not executable.
  std::exit(error == ENOENT ? 127 : 126);
}

/// The arguments perfcc adds for \p inv, given its install \p prefix.
std::vector<std::string> additions(const CompilerInvocation &inv,
                                   const std::string &prefix) {
  std::string lib = prefix + "/lib";
  std::vector<std::string> extra;
  // Also for -E and -M: dependency scanning and preprocessing must resolve
  // #include <perf/perf.h> exactly as the compile will.
  if (inv.preprocesses()) {
    extra.push_back("-isystem");
    extra.push_back(prefix + "/include");
  }
  if (inv.generatesCode()) {
    extra.push_back("-fpass-plugin=" + lib + "/libperfpass.so");
    // Clang records no_instrument_function in IR only through the
    // attributes this flag adds (to every function but those); the plugin
    // reads them and removes them, so LLVM's own __cyg_profile_* hooks are
    // never inserted.
    extra.push_back("-finstrument-functions-after-inlining");
  }
  if (inv.links()) {
    if (inv.linksStatically())
      fail("perfcc: error: -static: the probe runtime libperfrt.so must be "
           "one shared instance per process and cannot be linked statically "
           "(link dynamically, or build with PERFCC_DISABLE=1)");
    // Shared libraries get the runtime too, so an instrumented DSO records
    // into the same runtime instance as the program that loads it.
    extra.push_back("-L" + lib);
    extra.push_back("-Wl,-rpath," + lib);
    // --no-as-needed: <perf/perf.h> must also link without perfcc, so its
    // calls may be weak references, and weak references do not count as a
    // need: under the user's --as-needed a program would silently lose the
    // runtime. push/pop-state keeps the user's setting for what follows.
    extra.push_back("-Wl,--push-state,--no-as-needed");
#ifdef PERFCC_SANITIZER_RUNTIME
    extra.push_back(PERFCC_SANITIZER_RUNTIME); // first: see CMakeLists.txt
#endif
    extra.push_back("-lperfrt");
    extra.push_back("-Wl,--pop-state");
  }
  return extra;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  bool disabled = disabledByEnvironment();

  BuildSettings settings;
  std::string error;
  if (!takePerfFlags(args, /*validate=*/!disabled, settings, error))
    fail(error);

  std::vector<ExpandedArg> expanded = expandResponseFiles(args);
  // clang reads response files itself, so a --perf-* flag inside one would
  // reach clang as an unknown argument: say so in perfcc's words instead.
  for (const ExpandedArg &arg : expanded)
    if (!arg.responseFile.empty() && isPerfFlag(arg.text))
      fail("perfcc: error: '" + arg.text + "' in response file '" +
           arg.responseFile +
           "': give perfcc's --perf-* flags on the command line");

  CompilerInvocation inv = CompilerInvocation::classify(expanded);
  std::string compiler = chooseCompiler(argv[0], inv);

  if (disabled)
    run(compiler, args);

  if (inv.printsVersion()) {
    std::printf("perfcc %s (plugin built for LLVM %s)\n", PERFCC_VERSION_STRING,
                PERFCC_LLVM_VERSION_STRING);
    run(compiler, args);
  }

  // Variables already in the environment stay as they are unless a flag
  // names them.
  for (const auto &[variable, value] : settings.environment)
    setenv(variable.c_str(), value.c_str(), /*overwrite=*/1);
  const char *targets = std::getenv("PERFCC_BUILD_TARGETS");

  std::vector<std::string> extra = additions(inv, installPrefix());
  // additions() gives clang -finstrument-functions-after-inlining; the plugin
  // must know, or it cannot read a file whose every function is
  // no_instrument_function (clang then marks none).
  if (inv.generatesCode())
    setenv("PERFCC_BUILD_INSTRUMENT_ATTRS", "1", /*overwrite=*/1);
  // The targets file decides what every object contains, so it is one of
  // the object's inputs: listed in the dependency file (-MD, -M), it makes
  // make, ninja and CMake rebuild what it affects when it changes.
  if (inv.preprocesses() && targets && *targets) {
    extra.push_back("-Xclang");
    extra.push_back(
        "-fdepfile-entry=" +
        std::filesystem::absolute(targets).lexically_normal().string());
  }
  // Options after a top-level `--` would be read as input files.
  auto at = args.begin();
  while (at != args.end() && *at != "--")
    ++at;
  args.insert(at, extra.begin(), extra.end());

  // The compiles of this build are done when it links: the report tells
  // which patterns of the targets file matched nothing anywhere.
  const char *report = std::getenv("PERFCC_BUILD_REPORT");
  if (inv.links() && targets && *targets && report && *report)
    for (const std::string &warning :
         perfcc::unusedTargetsWarnings(targets, report))
      std::fprintf(stderr, "perfcc: %s (no function in %s)\n", warning.c_str(),
                   report);
  run(compiler, args);
}
