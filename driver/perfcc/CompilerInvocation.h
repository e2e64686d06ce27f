//===- CompilerInvocation.h - what a clang command line asks ----*- C++ -*-===//
//
// perfcc decides what to add to a compiler command line (the pass plugin, the
// runtime, the perf/perf.h include folder) and which driver to run (clang or
// clang++) from what the command line asks the compiler to do. This file reads
// a GCC/clang command line for exactly that: which inputs it names and in what
// language, and how far it goes (preprocess, compile, link). It never rewrites
// the command line; response files are expanded for reading only, since clang
// reads them itself.
//
// Usage: CompilerInvocation inv = CompilerInvocation::classify(
//            expandResponseFiles(args));
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCC_COMPILERINVOCATION_H
#define PERFCC_DRIVER_PERFCC_COMPILERINVOCATION_H

#include <string>
#include <string_view>
#include <vector>

namespace perfcc::driver {

/// One argument after response-file expansion.
struct ExpandedArg {
  std::string text;
  /// The response file it was read from; empty for the command line itself.
  std::string responseFile;
};

/// Splits the text of a response file into arguments with GNU rules, as
/// clang's driver does: whitespace separates, single and double quotes group,
/// a backslash takes the next character literally (inside quotes too).
std::vector<std::string> tokenizeGNUCommandLine(std::string_view text);

/// Replaces every readable `@FILE` by the arguments it holds, recursively. A
/// nested `@FILE` is found relative to the working directory, as clang 14
/// does; one that cannot be read, or that would recurse, stays as written
/// (clang then reports it as a missing input).
std::vector<ExpandedArg>
expandResponseFiles(const std::vector<std::string> &args);

/// How perfcc treats one input file.
enum class InputKind {
  CSource,     ///< C or Objective-C, preprocessed or not: generates code
  CxxSource,   ///< C++, Objective-C++, CUDA, HIP: generates code
  LLVMIR,      ///< .ll / .bc: generates code, no language
  CHeader,     ///< headers become precompiled headers, never code
  CxxHeader,   ///< C++ header (as above)
  Assembly,    ///< .s: assembled only
  AssemblyCpp, ///< .S: preprocessed, then assembled
  Linker,      ///< objects, archives, shared libraries, anything else
};

/// How far the compiler goes, mirroring clang's final phase.
enum class FinalPhase {
  Preprocess, ///< -E, -M, -MM
  Frontend,   ///< -fsyntax-only, --precompile, -emit-ast, --analyze
  Compile,    ///< -S or -c: stops before linking
  Link,
};

/// The facts perfcc's decisions need, read from one command line.
class CompilerInvocation {
public:
  /// Reads \p args (already expanded, without argv[0]).
  static CompilerInvocation classify(const std::vector<ExpandedArg> &args);

  const std::vector<InputKind> &inputs() const { return inputKinds; }
  FinalPhase finalPhase() const { return phase; }

  /// True when some input is of \p kind.
  bool has(InputKind kind) const;
  /// True when some input is C++ source or a C++ header.
  bool hasCxxInput() const;
  /// True when some input is source code of either language (or a header).
  bool hasSourceInput() const;

  /// True when code is generated from some input, so the pass runs.
  bool generatesCode() const;
  /// True when some input goes through the preprocessor.
  bool preprocesses() const;
  /// True when the linker runs on the inputs (-r excluded: see .cpp).
  bool links() const;

  bool printsVersion() const { return versionRequested; }
  bool linksStatically() const { return staticLink; }

private:
  std::vector<InputKind> inputKinds;
  FinalPhase phase = FinalPhase::Link;
  bool versionRequested = false;
  bool relocatable = false;
  bool staticLink = false;
};

} // namespace perfcc::driver

#endif // PERFCC_DRIVER_PERFCC_COMPILERINVOCATION_H
