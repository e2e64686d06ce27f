//===- SpillRecovery.cpp - a trace and summary from a spill ---------------===//
#include "trace/SpillRecovery.h"

#include "trace/TraceReader.h"

#include "perfcc/DurationHistogram.h"
#include "perfcc/OutputSchema.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <memory>
#include <unistd.h>

#ifndef PERFCC_VERSION_STRING
#define PERFCC_VERSION_STRING "unknown"
#endif

namespace perfcc::perfctl {

namespace {

namespace key = perfcc::schema::trace;
namespace skey = perfcc::schema::summary;
using ordered = nlohmann::ordered_json;

/// Ticks to CLOCK_MONOTONIC ns: the least-squares line through the spill's
/// clock pairs (the runtime fits its own through the same kind of pairs).
struct TickClock {
  bool tsc = false;
  double nsPerTick = 1, x0 = 0, y0 = 0;

  std::uint64_t ns(std::uint64_t ticks) const {
    if (!tsc)
      return ticks;
    double v = y0 + (double(ticks) - x0) * nsPerTick;
    return v < 0 ? 0 : std::uint64_t(v);
  }
  std::uint64_t duration(std::uint64_t ticks) const {
    return tsc ? std::uint64_t(double(ticks) * nsPerTick) : ticks;
  }
};

bool fitClock(const SpillIndex &index, TickClock &clock, std::string &error) {
  clock.tsc = index.useTsc;
  if (!clock.tsc)
    return true;
  const auto &pairs = index.clockPairs;
  double n = double(pairs.size()), mx = 0, my = 0;
  for (auto [x, y] : pairs) {
    mx += double(x - pairs[0].first);
    my += double(y - pairs[0].second);
  }
  mx /= n;
  my /= n;
  double sxx = 0, sxy = 0;
  for (auto [x, y] : pairs) {
    double dx = double(x - pairs[0].first) - mx;
    sxx += dx * dx;
    sxy += dx * (double(y - pairs[0].second) - my);
  }
  if (pairs.size() < 2 || sxx <= 0 || sxy <= 0) {
    error = "the spill has no clock readings after start-up: its times "
            "cannot be converted";
    return false;
  }
  clock.nsPerTick = sxy / sxx;
  clock.x0 = double(pairs[0].first) + mx;
  clock.y0 = double(pairs[0].second) + my;
  return true;
}

/// A JSON string literal (invalid UTF-8 replaced, never an exception).
std::string quoted(const std::string &s) {
  return nlohmann::json(s).dump(-1, ' ', false,
                                nlohmann::json::error_handler_t::replace);
}

ordered timeObject(const TickClock &clock, std::uint64_t total,
                   std::uint64_t min, std::uint64_t max,
                   const perfcc::Histogram &h, std::uint64_t calls) {
  auto percentile = [&](double q) {
    auto v = std::uint64_t(h.quantile(q, calls));
    return clock.duration(std::clamp(v, min, max));
  };
  ordered o;
  o[skey::Total] = clock.duration(total);
  o[skey::Mean] = calls ? clock.duration(total / calls) : 0;
  o[skey::P50] = percentile(0.50);
  o[skey::P99] = percentile(0.99);
  o[skey::Min] = clock.duration(min);
  o[skey::Max] = clock.duration(max);
  return o;
}

void statsFields(ordered &o, const TickClock &clock, const perfcc::FnStats &s) {
  o[skey::Calls] = s.calls;
  o[skey::InclusiveNs] =
      timeObject(clock, s.inclTotal, s.inclMin, s.inclMax, s.incl, s.calls);
  o[skey::ExclusiveNs] =
      timeObject(clock, s.exclTotal, s.exclMin, s.exclMax, s.excl, s.calls);
  // Never more CPU than wall time, as the runtime writes it.
  if (s.cpuCalls)
    o[skey::CpuNs] = ordered{
        {skey::Calls, s.cpuCalls},
        {skey::CpuInclusive,
         std::min<std::uint64_t>(s.cpuInclNs, clock.duration(s.inclTotal))},
        {skey::CpuExclusive,
         std::min<std::uint64_t>(s.cpuExclNs, clock.duration(s.exclTotal))}};
}

struct FileCloser {
  void operator()(std::FILE *f) const {
    if (f)
      std::fclose(f);
  }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

/// A new file at \p path: never one already there.
File createNew(const std::string &path, std::string &error) {
  int fd = ::open(path.c_str(),
                  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = errno == EEXIST
                ? path + ": already there (recovered before?); remove it or "
                         "choose another --out"
                : path + ": " + std::strerror(errno);
    return nullptr;
  }
  File f(::fdopen(fd, "w"));
  if (!f) {
    ::close(fd);
    error = path + ": " + std::strerror(errno);
  }
  return f;
}

/// Streams the trace's events.
class TraceWriter {
public:
  TraceWriter(std::FILE *out, const SpillIndex &index, const TickClock &clock)
      : out_(out), index_(index), clock_(clock) {
    fmt::print(out_, "{{\"{}\":[\n", key::Events);
    for (const auto &[id, f] : index.functions)
      names_[id] = Names{quoted(f.name), false};
  }

  /// Writes \p r of thread \p tid, with \p cpu its CPU time record when
  /// it has one; false when the spill never named its function or progress
  /// point.
  bool record(const spill::Record &r, std::uint32_t tid,
              const spill::Record *cpu = nullptr) {
    std::uint64_t start = clock_.ns(r.start), end = clock_.ns(r.end);
    std::uint64_t dur = end > start ? end - start : 0;
    if (r.flags & spill::FlagCounter) {
      auto point = index_.progressPoints.find(r.fn);
      if (point == index_.progressPoints.end())
        return false;
      begin();
      fmt::print(out_,
                 "{{\"{}\":\"{}\",\"{}\":{},\"{}\":{},\"{}\":{},\"{}\":{},"
                 "\"{}\":{{\"{}\":{}}}}}",
                 key::Phase, key::PhaseCounter, key::Name,
                 quoted(point->second.name), key::Pid, index_.pid, key::Tid,
                 tid, key::Ts, nsToMicros(start), key::Args,
                 key::ArgCounterValue, r.exclusive);
      return true;
    }
    auto names = names_.find(r.fn);
    if (names == names_.end())
      return false;
    begin();
    cpuTime_ |= cpu != nullptr;
    if (r.flags & spill::FlagDelay) {
      fmt::print(
          out_,
          "{{\"{}\":\"{}\",\"{}\":\"{}\",\"{}\":\"{}\",\"{}\":{},"
          "\"{}\":{},\"{}\":{},\"{}\":{},\"{}\":{{\"{}\":{},\"{}\":{}{}}}"
          "}}",
          key::Phase, key::PhaseComplete, key::Category, key::CategoryDelay,
          key::Name, key::DelayEventName, key::Pid, index_.pid, key::Tid, tid,
          key::Ts, nsToMicros(start), key::Dur, nsToMicros(dur), key::Args,
          key::ArgFunction, names->second.name, key::ArgRequestedNs,
          clock_.duration(r.exclusive),
          r.flags & spill::FlagHolding
              ? fmt::format(",\"{}\":true", key::ArgHolding)
              : "");
      return true;
    }
    // As the runtime writes them: arguments only where the call has some of
    // its own; its file and line are in metadata's function table.
    std::string flags;
    if (r.flags & spill::FlagUnwind)
      flags += fmt::format(",\"{}\":true", key::ArgUnwind);
    if (r.flags & spill::FlagAbandoned)
      flags += fmt::format(",\"{}\":true", key::ArgAbandoned);
    if (r.flags & spill::FlagUnfinished)
      flags += fmt::format(",\"{}\":true", key::ArgUnfinished);
    names->second.spanned = true;
    fmt::print(out_,
               "{{\"{}\":\"{}\",\"{}\":\"{}\",\"{}\":{},\"{}\":{},\"{}\":{},"
               "\"{}\":{},\"{}\":{}{}{}}}",
               key::Phase, key::PhaseComplete, key::Category,
               key::CategoryCpuOp, key::Name, names->second.name, key::Pid,
               index_.pid, key::Tid, tid, key::Ts, nsToMicros(start), key::Dur,
               nsToMicros(dur),
               cpu ? fmt::format(",\"{}\":{}", key::ThreadDur,
                                 nsToMicros(std::min(cpu->start, dur)))
                   : "",
               flags.empty() ? ""
                             : fmt::format(",\"{}\":{{{}}}", key::Args,
                                           std::string_view(flags).substr(1)));
    return true;
  }

  /// The cut, the names, the metadata; closes the document.
  void finish(const ordered &recovered, std::uint64_t endNs) {
    begin();
    fmt::print(out_,
               "{{\"{}\":\"{}\",\"{}\":\"{}\",\"{}\":\"{}\",\"{}\":{},"
               "\"{}\":{},\"{}\":{},\"{}\":{},\"{}\":{{\"{}\":{}}}}}",
               key::Phase, key::PhaseInstant, key::InstantScope,
               key::InstantScopeGlobal, key::Category, key::CategoryRecovery,
               key::Name, quoted(key::CutEventName), key::Pid, index_.pid,
               key::Tid, 0, key::Ts, nsToMicros(endNs), key::Args,
               key::RecoveredCut, recovered[key::RecoveredCut].dump());
    nameEvent(key::ProcessName, 0, index_.program);
    for (const auto &[tid, name] : index_.threadNames)
      nameEvent(key::ThreadName, tid, name.empty() ? "thread" : name);
    ordered meta;
    meta[key::MetaVersion] = PERFCC_VERSION_STRING;
    meta[key::MetaProgram] = index_.program;
    meta[key::MetaPid] = index_.pid;
    meta[key::MetaClock] = index_.clockReason;
    meta[key::MetaClockDomain] = "CLOCK_MONOTONIC";
    meta[key::MetaNsPerTick] = clock_.tsc ? clock_.nsPerTick : 1.0;
    meta[key::MetaRecovered] = recovered;
    if (cpuTime_)
      meta[key::MetaCpuTime] = true;
    ordered functions = ordered::array();
    for (const auto &[id, names] : names_) {
      if (!names.spanned)
        continue;
      const SpillFunction &f = index_.functions.at(id);
      functions.push_back({{key::Name, f.name},
                           {key::MetaFunctionMangled, f.mangled},
                           {key::ArgFile, f.file},
                           {key::ArgLine, f.line}});
    }
    meta[key::MetaFunctions] = std::move(functions);
    fmt::print(
        out_, "\n],\"{}\":\"ns\",\"{}\":{}}}\n", key::DisplayTimeUnit,
        key::Metadata,
        meta.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }

private:
  struct Names {
    std::string name;     ///< quoted, as events spell it
    bool spanned = false; ///< in metadata's function table
  };
  void begin() {
    if (!first_)
      std::fputs(",\n", out_);
    first_ = false;
  }
  void nameEvent(const char *what, std::uint32_t tid, const std::string &name) {
    begin();
    fmt::print(out_,
               "{{\"{}\":\"{}\",\"{}\":\"{}\",\"{}\":{},\"{}\":{},\"{}\":{{"
               "\"{}\":{}}}}}",
               key::Phase, key::PhaseMetadata, key::Name, what, key::Pid,
               index_.pid, key::Tid, tid, key::Args, key::ArgName,
               quoted(name));
  }

  std::FILE *out_;
  const SpillIndex &index_;
  const TickClock &clock_;
  bool cpuTime_ = false; ///< a span had its CPU time
  std::map<std::uint32_t, Names> names_;
  bool first_ = true;
};

std::string baseName(const std::string &path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

bool recoverSpill(SpillReader &reader, const std::string &spillPath,
                  const std::string &outDir, RecoveredFiles &files,
                  std::string &error) {
  const SpillIndex &index = reader.index();
  TickClock clock;
  if (!fitClock(index, clock, error))
    return false;
  std::string stem = fmt::format("{}/{}.{}", outDir.empty() ? "." : outDir,
                                 baseName(index.program), index.pid);
  files.trace = stem + ".trace.json";
  files.summary = stem + ".summary.json";
  File trace = createNew(files.trace, error);
  if (!trace)
    return false;
  std::vector<char> buffer(1 << 20);
  std::setvbuf(trace.get(), buffer.data(), _IOFBF, buffer.size());

  TraceWriter writer(trace.get(), index, clock);
  // Per function, per thread; and each progress point's last count.
  std::map<std::uint32_t, std::map<std::uint32_t, perfcc::FnStats>> stats;
  std::map<std::uint32_t, std::uint64_t> threadCalls, progressCounts;
  std::uint64_t firstNs = UINT64_MAX;
  bool cpuTime = false;
  std::vector<spill::Record> records;
  for (const SpillChunkRef &chunk : index.chunks) {
    if (!reader.readChunk(chunk, records, error))
      return false;
    for (std::size_t i = 0; i < records.size(); ++i) {
      const spill::Record &r = records[i];
      ++files.records;
      // A CPU time record follows its span in the same chunk: read with it.
      if (r.flags & spill::FlagCpu)
        continue;
      const spill::Record *cpu =
          i + 1 < records.size() && (records[i + 1].flags & spill::FlagCpu) &&
                  records[i + 1].fn == r.fn
              ? &records[i + 1]
              : nullptr;
      if (!writer.record(r, chunk.tid, cpu)) {
        ++files.unnamed;
        continue;
      }
      if (cpu) {
        cpuTime = true;
        stats[r.fn][chunk.tid].addCpu(cpu->start, cpu->end);
      }
      firstNs = std::min(firstNs, clock.ns(r.start));
      files.endNs = std::max(files.endNs, clock.ns(r.end));
      if (r.flags & spill::FlagCounter) {
        auto &count = progressCounts[r.fn];
        count = std::max(count, r.exclusive);
      } else if (!(r.flags & spill::FlagDelay)) {
        stats[r.fn][chunk.tid].add(r.end > r.start ? r.end - r.start : 0,
                                   r.exclusive);
        ++threadCalls[chunk.tid];
        ++files.calls;
      }
    }
  }
  if (firstNs == UINT64_MAX)
    firstNs = files.endNs = clock.ns(index.clockPairs.front().first);

  ordered recovered;
  recovered[key::RecoveredFrom] = spillPath;
  recovered[key::RecoveredCut] =
      index.cut.empty() ? ordered(nullptr) : ordered(index.cut);
  recovered[key::RecoveredEndNs] = files.endNs;
  recovered[key::RecoveredChunks] = index.chunks.size();
  recovered[key::RecoveredBadSlots] = index.badSlots;
  recovered[key::RecoveredUnreadBytes] = index.fileBytes - index.goodBytes;
  recovered[key::RecoveredUnknownRecords] = files.unnamed;
  recovered[key::RecoveredLost] =
      "calls still in the program's memory when it ended (each thread's "
      "last chunk, up to 8191 calls, and what the writer had not taken), "
      "and the measurement window, speed bumps and GPU activity";
  writer.finish(recovered, files.endNs);
  if (std::fflush(trace.get()) != 0 || std::ferror(trace.get())) {
    error = files.trace + ": " + std::strerror(errno);
    return false;
  }
  trace.reset();

  // The summary, hottest function first, as the runtime orders it.
  std::vector<std::pair<std::uint32_t, perfcc::FnStats>> totals;
  for (const auto &[fn, byThread] : stats) {
    perfcc::FnStats sum{};
    for (const auto &[tid, s] : byThread)
      sum.merge(s);
    totals.emplace_back(fn, sum);
  }
  std::stable_sort(totals.begin(), totals.end(),
                   [](const auto &a, const auto &b) {
                     return a.second.inclTotal > b.second.inclTotal;
                   });
  ordered summary;
  summary[skey::Version] = PERFCC_VERSION_STRING;
  summary[skey::Program] = index.program;
  summary[skey::Pid] = index.pid;
  summary[skey::Mode] = "trace";
  summary[skey::CpuTime] = cpuTime;
  summary[skey::TraceFile] = files.trace;
  summary[skey::Clock] = index.clockReason;
  summary[skey::DurationNs] = files.endNs - firstNs;
  summary[skey::FunctionsRegistered] = index.functions.size();
  ordered functions = ordered::array();
  for (const auto &[fn, sum] : totals) {
    const SpillFunction &f = index.functions.at(fn);
    ordered o;
    o[skey::Name] = f.name;
    o[skey::Mangled] = f.mangled;
    o[skey::File] = f.file;
    o[skey::Line] = f.line;
    statsFields(o, clock, sum);
    ordered threads = ordered::array();
    for (const auto &[tid, s] : stats[fn]) {
      ordered t;
      t[skey::Tid] = tid;
      statsFields(t, clock, s);
      threads.push_back(std::move(t));
    }
    o[skey::Threads] = std::move(threads);
    functions.push_back(std::move(o));
  }
  summary[skey::Functions] = std::move(functions);
  ordered progress = ordered::array();
  for (const auto &[id, point] : index.progressPoints) {
    ordered p;
    p[skey::Name] = point.name;
    p[skey::Kind] = point.kind == spill::ProgressLatency ? skey::KindLatency
                                                         : skey::KindThroughput;
    p[skey::Count] = progressCounts.count(id) ? progressCounts[id] : 0;
    progress.push_back(std::move(p));
  }
  summary[skey::Progress] = std::move(progress);
  ordered threads = ordered::array();
  std::map<std::uint32_t, std::string> names = index.threadNames;
  for (const auto &[tid, calls] : threadCalls)
    names.emplace(tid, ""); // every thread with calls, named or not
  for (const auto &[tid, name] : names) {
    ordered t;
    t[skey::Tid] = tid;
    t[skey::ThreadName] = name.empty() ? "thread" : name;
    t[skey::Calls] = threadCalls.count(tid) ? threadCalls[tid] : 0;
    threads.push_back(std::move(t));
  }
  summary[skey::Threads] = std::move(threads);
  summary[key::MetaRecovered] = recovered;
  File out = createNew(files.summary, error);
  if (!out)
    return false;
  std::string text =
      summary.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) +
      "\n";
  if (std::fwrite(text.data(), 1, text.size(), out.get()) != text.size() ||
      std::fflush(out.get()) != 0) {
    error = files.summary + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

} // namespace perfcc::perfctl
