//===- CompilerInvocation.cpp - what a clang command line asks for --------===//
//
// Reads a GCC/clang command line for perfcc: its inputs, their languages and
// the compiler's final phase. See CompilerInvocation.h.
//
//===----------------------------------------------------------------------===//
#include "CompilerInvocation.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <optional>

namespace perfcc::driver {

namespace {

/// Options whose value is the next argument. Without this list the value of
/// `-o out.c` or `-MF deps.o` would be read as an input file. Joined forms
/// (`-Ifoo`, `--output=x`) need no entry. The list follows clang's Options.td
/// (its Separate and JoinedOrSeparate options), Darwin linker options
/// included: a miss there would only misread a file name.
// Packed by hand: clang-format would put each entry on a line of its own.
// clang-format off
constexpr std::string_view OneValueOptions[] = {
    "-o", "-x", "-I", "-D", "-U", "-L", "-l", "-F", "-B", "-A", "-T", "-u",
    "-e", "-z", "-G", "-MF", "-MT", "-MQ", "-MJ", "-Xlinker", "-Xassembler",
    "-Xpreprocessor", "-Xclang", "-Xanalyzer", "-Xcuda-fatbinary",
    "-Xcuda-ptxas", "-Xopenmp-target", "-Xarch_device", "-Xarch_host",
    "-Xoffload-linker", "-Xparser", "-mllvm", "-target", "-arch", "-include",
    "-include-pch", "-imacros", "-isystem", "-isystem-after", "-cxx-isystem",
    "-iquote", "-idirafter", "-iprefix", "-iwithprefix", "-iwithprefixbefore",
    "-iwithsysroot", "-isysroot", "-iframework", "-iframeworkwithsysroot",
    "-imultilib", "-ivfsoverlay", "-serialize-diagnostics",
    "--serialize-diagnostics", "-dependency-file", "-dependency-dot",
    "-module-dependency-dir", "-working-directory", "-gcc-toolchain",
    "-ccc-gcc-name", "-ccc-install-dir", "-resource-dir", "-rpath", "-init",
    "--config", "--param", "--output", "--language", "--include",
    "--include-directory", "--include-directory-after", "--include-prefix",
    "--include-with-prefix", "--include-with-prefix-after",
    "--include-with-prefix-before", "--imacros", "--define-macro",
    "--undefine-macro", "--library-directory", "--sysroot", "--prefix",
    "--for-linker", "--force-link", "--assert", "-install_name", "-filelist",
    "-framework", "-weak_framework", "-weak_library", "-lazy_framework",
    "-lazy_library", "-reexport_framework", "-reexport_library",
    "-exported_symbols_list", "-unexported_symbols_list", "-dylib_file",
    "-dylinker_install_name", "-allowable_client", "-bundle_loader",
    "-client_name", "-compatibility_version", "-current_version",
    "-image_base", "-multiply_defined", "-multiply_defined_unused",
    "-pagezero_size", "-read_only_relocs", "-seg1addr", "-seg_addr_table",
    "-seg_addr_table_filename", "-segs_read_only_addr",
    "-segs_read_write_addr", "-sub_library", "-sub_umbrella", "-umbrella",
    "-undefined", "-weak_reference_mismatches"};
// clang-format on

/// Darwin linker options that take more than one value.
struct MultiValueOption {
  std::string_view name;
  int values;
};
constexpr MultiValueOption MultiValueOptions[] = {
    {"-segaddr", 2},    {"-sectobjectsymbols", 2}, {"-sectalign", 3},
    {"-sectcreate", 3}, {"-sectorder", 3},         {"-segcreate", 3},
    {"-segprot", 3}};

/// How many following arguments \p arg consumes as its value.
int separateValueCount(std::string_view arg) {
  // -Xarch_<arch> <arg> and -Xopenmp-target=<triple> <arg> take any
  // architecture or triple, joined, and then a value of their own.
  if (arg.substr(0, 7) == "-Xarch_" || arg.substr(0, 16) == "-Xopenmp-target=")
    return 1;
  for (std::string_view name : OneValueOptions)
    if (name == arg)
      return 1;
  for (const MultiValueOption &option : MultiValueOptions)
    if (option.name == arg)
      return option.values;
  return 0;
}

/// True when \p text ends with \p suffix.
bool endsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.substr(text.size() - suffix.size()) == suffix;
}

/// The kind of an input named with `-x LANG`; nullopt for `-x none` (back to
/// extensions). Unknown names are clang's to reject; they count as linker
/// inputs here, which adds nothing that could change its diagnostic.
std::optional<InputKind> kindOfLanguage(std::string_view lang) {
  if (lang == "none")
    return std::nullopt;
  if (lang == "c" || lang == "cpp-output" || lang == "objective-c" ||
      lang == "objc-cpp-output" || lang == "objective-c-cpp-output" ||
      lang == "cl" || lang == "renderscript")
    return InputKind::CSource;
  if (lang == "c++" || lang == "c++-cpp-output" || lang == "objective-c++" ||
      lang == "objc++-cpp-output" || lang == "objective-c++-cpp-output" ||
      lang == "cuda" || lang == "cuda-cpp-output" || lang == "hip" ||
      lang == "hip-cpp-output" || lang == "clcpp" || lang == "c++-module")
    return InputKind::CxxSource;
  if (lang == "c-header" || lang == "objective-c-header" || lang == "cl-header")
    return InputKind::CHeader;
  if (endsWith(lang, "-header")) // c++-header, c++-user-header, cuda-header...
    return InputKind::CxxHeader;
  if (lang == "assembler")
    return InputKind::Assembly;
  if (lang == "assembler-with-cpp")
    return InputKind::AssemblyCpp;
  if (lang == "ir" || lang == "ast")
    return InputKind::LLVMIR;
  return InputKind::Linker;
}

/// The kind clang gives a file by its extension (case matters: `.C` is C++).
/// Anything clang does not know goes to the linker, as clang does it.
InputKind kindOfFile(std::string_view path) {
  std::size_t slash = path.rfind('/');
  std::string_view name =
      slash == std::string_view::npos ? path : path.substr(slash + 1);
  std::size_t dot = name.rfind('.');
  if (dot == std::string_view::npos)
    return InputKind::Linker;
  std::string_view ext = name.substr(dot + 1);
  for (std::string_view e : {"c", "i", "m", "mi"})
    if (ext == e)
      return InputKind::CSource;
  for (std::string_view e :
       {"cc", "cp", "cxx", "cpp", "CPP", "c++", "C", "ii", "mm", "M", "mii",
        "cu", "cui", "hip", "cppm", "ccm", "cxxm", "c++m"})
    if (ext == e)
      return InputKind::CxxSource;
  if (ext == "h")
    return InputKind::CHeader;
  for (std::string_view e : {"hh", "hpp", "hxx", "h++", "H", "cuh"})
    if (ext == e)
      return InputKind::CxxHeader;
  if (ext == "s")
    return InputKind::Assembly;
  if (ext == "S" || ext == "sx")
    return InputKind::AssemblyCpp;
  if (ext == "ll" || ext == "bc")
    return InputKind::LLVMIR;
  return InputKind::Linker;
}

/// Appends the expansion of \p arg to \p out; \p active holds the response
/// files being expanded, to stop at recursion.
void expandInto(const std::string &arg, const std::string &from,
                std::vector<std::string> &active,
                std::vector<ExpandedArg> &out) {
  if (arg.size() < 2 || arg[0] != '@') {
    out.push_back({arg, from});
    return;
  }
  std::string path = arg.substr(1);
  std::ifstream file(path, std::ios::binary);
  bool recursive =
      std::find(active.begin(), active.end(), path) != active.end();
  if (!file || recursive) {
    out.push_back({arg, from});
    return;
  }
  std::string text((std::istreambuf_iterator<char>(file)),
                   std::istreambuf_iterator<char>());
  // Editors on some systems save a UTF-8 byte-order mark; clang skips it.
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0)
    text.erase(0, 3);
  active.push_back(path);
  for (const std::string &inner : tokenizeGNUCommandLine(text))
    expandInto(inner, path, active, out);
  active.pop_back();
}

} // namespace

std::vector<std::string> tokenizeGNUCommandLine(std::string_view text) {
  // Follows llvm::cl::TokenizeGNUCommandLine so that perfcc reads a response
  // file exactly as the clang it runs will: in particular an empty quoted
  // string yields no argument there, and therefore none here.
  std::vector<std::string> args;
  std::string token;
  auto isSpace = [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
  };
  for (std::size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < e) {
      token.push_back(text[++i]);
      continue;
    }
    if (c == '"' || c == '\'') {
      for (++i; i < e && text[i] != c; ++i) {
        if (text[i] == '\\' && i + 1 < e)
          ++i;
        token.push_back(text[i]);
      }
      continue;
    }
    if (isSpace(c)) {
      if (!token.empty())
        args.push_back(std::move(token));
      token.clear();
      continue;
    }
    token.push_back(c);
  }
  if (!token.empty())
    args.push_back(std::move(token));
  return args;
}

std::vector<ExpandedArg>
expandResponseFiles(const std::vector<std::string> &args) {
  std::vector<ExpandedArg> out;
  std::vector<std::string> active;
  for (const std::string &arg : args)
    expandInto(arg, "", active, out);
  return out;
}

CompilerInvocation
CompilerInvocation::classify(const std::vector<ExpandedArg> &args) {
  CompilerInvocation inv;
  std::optional<InputKind> language; // from -x; nullopt: by extension
  bool onlyInputsFollow = false;     // after `--`
  auto stopAt = [&inv](FinalPhase phase) {
    inv.phase = std::min(inv.phase, phase);
  };

  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string &arg = args[i].text;
    bool isOption = !onlyInputsFollow && arg.size() > 1 && arg[0] == '-';
    if (!isOption) {
      if (!onlyInputsFollow && arg == "--") {
        onlyInputsFollow = true;
        continue;
      }
      if (language)
        inv.inputKinds.push_back(*language);
      else if (arg == "-") // stdin: clang reads it as C when no -x is given
        inv.inputKinds.push_back(InputKind::CSource);
      else
        inv.inputKinds.push_back(kindOfFile(arg));
      continue;
    }

    if (int values = separateValueCount(arg)) {
      if (arg == "-x" || arg == "--language")
        if (i + 1 < args.size())
          language = kindOfLanguage(args[i + 1].text);
      i += values;
      continue;
    }
    if (arg.compare(0, 2, "-x") == 0) {
      language = kindOfLanguage(std::string_view(arg).substr(2));
      continue;
    }
    if (arg.compare(0, 11, "--language=") == 0) {
      language = kindOfLanguage(std::string_view(arg).substr(11));
      continue;
    }

    // -M and -MM imply -E (clang runs -Eonly); -MD and -MMD do not.
    if (arg == "-E" || arg == "-M" || arg == "-MM" || arg == "--preprocess" ||
        arg == "--dependencies" || arg == "--user-dependencies")
      stopAt(FinalPhase::Preprocess);
    else if (arg == "-fsyntax-only" || arg == "--precompile" ||
             arg == "-emit-ast" || arg == "--analyze" ||
             arg == "-module-file-info" || arg == "-verify-pch" ||
             arg == "-rewrite-objc" || arg == "-rewrite-legacy-objc")
      stopAt(FinalPhase::Frontend);
    else if (arg == "-S" || arg == "-c" || arg == "--assemble" ||
             arg == "--compile")
      stopAt(FinalPhase::Compile);
    else if (arg == "--version")
      inv.versionRequested = true;
    else if (arg == "-r")
      inv.relocatable = true;
    else if (arg == "-static" || arg == "--static" || arg == "-static-pie")
      inv.staticLink = true;
  }
  return inv;
}

bool CompilerInvocation::has(InputKind kind) const {
  return std::find(inputKinds.begin(), inputKinds.end(), kind) !=
         inputKinds.end();
}

bool CompilerInvocation::hasCxxInput() const {
  return has(InputKind::CxxSource) || has(InputKind::CxxHeader);
}

bool CompilerInvocation::hasSourceInput() const {
  return has(InputKind::CSource) || has(InputKind::CHeader) || hasCxxInput();
}

bool CompilerInvocation::generatesCode() const {
  return phase >= FinalPhase::Compile &&
         (has(InputKind::CSource) || has(InputKind::CxxSource) ||
          has(InputKind::LLVMIR));
}

bool CompilerInvocation::preprocesses() const {
  return hasSourceInput() || has(InputKind::AssemblyCpp);
}

bool CompilerInvocation::links() const {
  // A relocatable link (-r) makes an object, not a program: the runtime is
  // linked later, into whatever that object ends up in.
  // Headers alone make precompiled headers even without -c.
  return phase == FinalPhase::Link && !relocatable &&
         std::any_of(inputKinds.begin(), inputKinds.end(), [](InputKind kind) {
           return kind != InputKind::CHeader && kind != InputKind::CxxHeader;
         });
}

} // namespace perfcc::driver
