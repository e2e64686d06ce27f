//===- MergeCommand.cpp - perfctl merge: its options and its run ----------===//
#include "merge/MergeCommand.h"

#include "merge/SummaryMerge.h"
#include "merge/TraceMerge.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <optional>
#include <unistd.h>

namespace perfcc::perfctl {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view TraceSuffix = ".trace.json";
constexpr std::string_view SummarySuffix = ".summary.json";

/// "perfctl: merge: FILE: PROBLEM" on stderr; returns \p status.
int mergeError(const std::string &problem, int status = 1) {
  fmt::print(stderr, "perfctl: merge: {}\n", problem);
  return status;
}

bool endsWith(const std::string &s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// The summary the runtime writes beside \p trace ("app.1.trace.json" ->
/// "app.1.summary.json"); empty when the name is not a trace's.
std::string summaryBeside(const std::string &trace) {
  if (!endsWith(trace, TraceSuffix))
    return "";
  return trace.substr(0, trace.size() - TraceSuffix.size()) +
         std::string(SummarySuffix);
}

bool samePath(const std::string &a, const std::string &b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec) && !ec;
}

/// The traces named by \p inputs: files as given, folders' `*.trace.json`
/// in name order, never \p out itself (merging into the folder it reads).
bool expandInputs(const std::vector<std::string> &inputs,
                  const std::string &out, std::vector<std::string> &traces,
                  std::string &error) {
  for (const std::string &input : inputs) {
    std::error_code ec;
    if (!fs::is_directory(input, ec)) {
      traces.push_back(input);
      continue;
    }
    std::vector<std::string> found;
    for (const fs::directory_entry &e : fs::directory_iterator(input, ec)) {
      std::string path = e.path().string();
      if (e.is_regular_file(ec) && endsWith(path, TraceSuffix) &&
          !samePath(path, out))
        found.push_back(path);
    }
    if (ec) {
      error = fmt::format("{}: cannot list it: {}", input, ec.message());
      return false;
    }
    std::sort(found.begin(), found.end());
    traces.insert(traces.end(), found.begin(), found.end());
  }
  return true;
}

/// Writes \p path through a file beside it, renamed into place once whole,
/// so that a failed merge leaves no half-written output.
class AtomicFile {
public:
  explicit AtomicFile(std::string path)
      : path(std::move(path)),
        temp(fmt::format("{}.part.{}", this->path, ::getpid())) {}
  ~AtomicFile() {
    if (file)
      std::fclose(file);
    if (!done)
      std::remove(temp.c_str());
  }
  std::FILE *open(std::string &error) {
    file = std::fopen(temp.c_str(), "wbx");
    if (!file)
      error =
          fmt::format("{}: cannot create it: {}", path, std::strerror(errno));
    return file;
  }
  bool commit(std::string &error) {
    bool ok = std::fflush(file) == 0 && !std::ferror(file);
    int saved = errno;
    ok = std::fclose(file) == 0 && ok;
    file = nullptr;
    if (!ok) {
      error = fmt::format("{}: cannot write it: {}", path,
                          std::strerror(saved ? saved : errno));
      return false;
    }
    if (std::rename(temp.c_str(), path.c_str()) != 0) {
      error =
          fmt::format("{}: cannot write it: {}", path, std::strerror(errno));
      return false;
    }
    done = true;
    return true;
  }

private:
  std::string path, temp;
  std::FILE *file = nullptr;
  bool done = false;
};

int merge(const MergeArgs &args) {
  std::vector<std::string> traces;
  std::string error;
  if (!expandInputs(args.inputs, args.out, traces, error))
    return mergeError(error);
  if (traces.size() < 2)
    return mergeError(
        fmt::format("needs two traces or more to merge, found {}{}",
                    traces.size(),
                    traces.empty() ? "" : " (" + traces.front() + ")"),
        2);
  for (const std::string &t : traces)
    if (samePath(t, args.out))
      return mergeError(fmt::format("{}: is the output too: give -o another "
                                    "name",
                                    t),
                        2);

  // The summaries first: small, and a bad one stops the merge before any
  // output is written.
  std::vector<SummaryFile> summaries;
  std::string missing;
  for (const std::string &t : traces) {
    std::string path = summaryBeside(t);
    std::error_code ec;
    if (path.empty() || !fs::exists(path, ec)) {
      if (missing.empty())
        missing = path.empty() ? t + " (not named *.trace.json)" : path;
      continue;
    }
    std::ifstream in(path);
    nlohmann::ordered_json doc =
        nlohmann::ordered_json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded())
      return mergeError(fmt::format("{}: not JSON (a run cut short while "
                                    "writing it?)",
                                    path));
    summaries.emplace_back(path, std::move(doc));
  }
  std::string summaryOut = endsWith(args.out, TraceSuffix)
                               ? summaryBeside(args.out)
                               : args.out + std::string(SummarySuffix);
  nlohmann::ordered_json summary;
  if (missing.empty()) {
    try {
      summary = mergeSummaries(summaries, PERFCC_VERSION_STRING);
    } catch (const std::runtime_error &e) {
      return mergeError(e.what());
    }
  }

  AtomicFile traceFile(args.out);
  std::FILE *out = traceFile.open(error);
  if (!out)
    return mergeError(error);
  std::vector<MergedTrace> merged;
  if (!mergeTraces(traces, out, PERFCC_VERSION_STRING, merged, error))
    return mergeError(error);
  std::optional<AtomicFile> summaryFile;
  if (missing.empty()) {
    summaryFile.emplace(summaryOut);
    std::FILE *s = summaryFile->open(error);
    if (!s)
      return mergeError(error);
    std::string text =
        summary.dump(1, ' ', false,
                     nlohmann::ordered_json::error_handler_t::replace) +
        "\n";
    std::fwrite(text.data(), 1, text.size(), s);
  }
  if (!traceFile.commit(error) || (summaryFile && !summaryFile->commit(error)))
    return mergeError(error);

  std::uint64_t calls = 0;
  std::string pids;
  for (const MergedTrace &m : merged) {
    calls += m.calls;
    pids += fmt::format("{}{} {}", pids.empty() ? "" : ", ",
                        m.program.empty() ? "pid" : m.program, m.pid);
  }
  fmt::print(stderr, "perfctl: merged {} traces ({}; {} calls) into {}{}\n",
             merged.size(), pids, calls, args.out,
             missing.empty() ? " and " + summaryOut : "");
  if (!missing.empty())
    fmt::print(stderr,
               "perfctl: merge: warning: no summary at {}: wrote no merged "
               "summary\n",
               missing);
  return 0;
}

} // namespace

int runMergeCommand(const MergeArgs &args) {
  try {
    return merge(args);
  } catch (const std::bad_alloc &) {
    return mergeError("out of memory");
  } catch (const std::exception &e) {
    return mergeError(e.what());
  }
}

CLI::App *addMergeCommand(CLI::App &app, MergeArgs &args) {
  CLI::App *cmd = app.add_subcommand(
      "merge", "merge several processes' traces (a program and its forked "
               "children, a server and its workers) into one trace on their "
               "shared clock, one process track each, and their summaries "
               "into one summary");
  cmd->add_option("inputs", args.inputs,
                  "traces (<program>.<pid>.trace.json), or folders whose "
                  "*.trace.json are all merged")
      ->required()
      ->type_name("TRACE|DIR");
  cmd->add_option("-o,--out", args.out,
                  "the merged trace; the merged summary goes beside it "
                  "(NAME.trace.json -> NAME.summary.json)")
      ->required()
      ->type_name("FILE");
  cmd->footer("\nExample:\n  perfctl merge -o all.trace.json perfcc-out/\n"
              "  perfctl merge -o run.trace.json server.41.trace.json "
              "worker.42.trace.json\n\nSee docs/perfctl.md.");
  return cmd;
}

} // namespace perfcc::perfctl
