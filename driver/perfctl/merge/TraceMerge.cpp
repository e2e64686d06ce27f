//===- TraceMerge.cpp - several processes' traces as one ------------------===//
#include "merge/TraceMerge.h"

#include "trace/TraceReader.h"

#include "perfcc/OutputSchema.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace perfcc::perfctl {

namespace {

using nlohmann::json;
namespace key = perfcc::schema::trace;

/// The ids a GPU trace numbers from 1 in each process, which the merge
/// offsets so that they stay unique: flows, CUPTI correlations, External ids.
struct Ids {
  std::int64_t flow = 0, correlation = 0, external = 0;
};

/// What the first reading of a trace learns, so that the second can write
/// it: the host process, the other (GPU) tracks, the ids' range.
struct Survey {
  std::string file;
  json metadata = json::object();
  std::optional<std::int64_t> hostPid;
  std::set<std::int64_t> pids;
  Ids maxIds;
  std::uint64_t events = 0, calls = 0;
};

std::optional<std::int64_t> intAt(const json &object, const char *name) {
  auto it = object.find(name);
  if (it == object.end() || !it->is_number_integer())
    return std::nullopt;
  return it->get<std::int64_t>();
}

const json *argsOf(const json &event) {
  auto it = event.find(key::Args);
  return it != event.end() && it->is_object() ? &*it : nullptr;
}

bool isHostCategory(const json &event) {
  auto cat = event.find(key::Category);
  return cat != event.end() && cat->is_string() &&
         (*cat == key::CategoryCpuOp || *cat == key::CategoryDelay ||
          *cat == key::CategoryCudaRuntime || *cat == key::CategoryCudaDriver);
}

bool survey(const std::string &file, Survey &s, std::string &error) {
  s.file = file;
  std::optional<std::int64_t> firstHostPid;
  auto sink = [&](const json &event) {
    if (!event.is_object())
      return;
    ++s.events;
    std::optional<std::int64_t> pid = intAt(event, key::Pid);
    if (pid)
      s.pids.insert(*pid);
    if (pid && !firstHostPid && isHostCategory(event))
      firstHostPid = pid;
    auto cat = event.find(key::Category);
    if (cat != event.end() && *cat == key::CategoryCpuOp)
      ++s.calls;
    if (std::optional<std::int64_t> id = intAt(event, key::FlowId))
      s.maxIds.flow = std::max(s.maxIds.flow, *id);
    if (const json *args = argsOf(event)) {
      if (auto c = intAt(*args, key::ArgCorrelation))
        s.maxIds.correlation = std::max(s.maxIds.correlation, *c);
      if (auto x = intAt(*args, key::ArgExternalId))
        s.maxIds.external = std::max(s.maxIds.external, *x);
    }
  };
  json rest;
  std::string problem;
  if (!streamTraceFile(file, sink, rest, problem)) {
    error = fmt::format("{}: {}", file, problem);
    return false;
  }
  if (rest.is_object()) {
    auto meta = rest.find(key::Metadata);
    if (meta != rest.end() && meta->is_object())
      s.metadata = *meta;
  }
  s.hostPid = intAt(s.metadata, key::MetaPid);
  if (!s.hostPid)
    s.hostPid = firstHostPid;
  if (!s.hostPid && s.pids.size() == 1)
    s.hostPid = *s.pids.begin();
  if (!s.hostPid) {
    error = fmt::format("{}: names no process (no metadata pid and no "
                        "host event): not a perfcc trace to merge",
                        file);
    return false;
  }
  return true;
}

/// One event's text: its ts, dur and tdur (integer nanoseconds once read) back
/// in microseconds, the rest as it was.
std::string eventText(json &event) {
  std::string times;
  for (const char *name : {key::Ts, key::Dur, key::ThreadDur}) {
    auto it = event.find(name);
    if (it == event.end())
      continue;
    if (it->is_number_integer())
      times +=
          fmt::format("\"{}\":{},", name, nsToMicros(it->get<std::int64_t>()));
    else
      times += fmt::format("\"{}\":{},", name, it->dump());
    event.erase(it);
  }
  std::string rest = event.dump(-1, ' ', false, json::error_handler_t::replace);
  if (times.empty())
    return rest;
  if (rest == "{}")
    times.pop_back(); // its trailing comma
  return "{" + times + rest.substr(1);
}

/// Adds \p offset to the integer \p name of \p object, if it has one.
void offsetId(json &object, const char *name, std::int64_t offset) {
  auto it = object.find(name);
  if (offset && it != object.end() && it->is_number_integer())
    *it = it->get<std::int64_t>() + offset;
}

/// The metadata of the merged trace: drop counts summed, what every trace
/// agrees on kept, each trace's own under "merged".
json mergedMetadata(const std::vector<Survey> &surveys,
                    const std::string &version) {
  json meta = json::object();
  meta[key::MetaVersion] = version;
  std::set<std::string> programs;
  for (const Survey &s : surveys)
    if (auto p = s.metadata.find(key::MetaProgram);
        p != s.metadata.end() && p->is_string())
      programs.insert(p->get<std::string>());
  std::string program;
  for (const std::string &p : programs)
    program += (program.empty() ? "" : " + ") + p;
  meta[key::MetaProgram] = program;
  for (const char *name : {key::MetaClock, key::MetaClockDomain}) {
    std::set<std::string> values;
    for (const Survey &s : surveys)
      if (auto v = s.metadata.find(name);
          v != s.metadata.end() && v->is_string())
        values.insert(v->get<std::string>());
    if (values.size() == 1)
      meta[name] = *values.begin();
  }
  for (const char *name : {key::MetaDroppedSpans, key::MetaDepthOverflows,
                           key::MetaUnmatchedExits, key::MetaAbandonedFrames}) {
    std::uint64_t sum = 0;
    for (const Survey &s : surveys)
      if (auto v = s.metadata.find(name); v != s.metadata.end() &&
                                          v->is_number_integer() &&
                                          v->get<std::int64_t>() >= 0)
        sum += v->get<std::uint64_t>();
    meta[name] = sum;
  }
  // A recovered trace's cut stays visible in the merge: "FILE: CUT".
  std::string cuts;
  bool recovered = false;
  for (const Survey &s : surveys) {
    auto r = s.metadata.find(key::MetaRecovered);
    if (r == s.metadata.end() || !r->is_object())
      continue;
    recovered = true;
    auto cut = r->find(key::RecoveredCut);
    if (cut != r->end() && cut->is_string())
      cuts +=
          (cuts.empty() ? "" : "; ") + s.file + ": " + cut->get<std::string>();
  }
  if (recovered)
    meta[key::MetaRecovered] = {
        {key::RecoveredCut, cuts.empty() ? json(nullptr) : json(cuts)}};
  // One function table for all: each function once, in the order the
  // traces list them (a reader takes a name's first location).
  json functions = json::array();
  std::set<std::string> listed;
  for (const Survey &s : surveys) {
    auto table = s.metadata.find(key::MetaFunctions);
    if (table == s.metadata.end() || !table->is_array())
      continue;
    for (const json &f : *table)
      if (listed.insert(f.dump()).second)
        functions.push_back(f);
  }
  if (!functions.empty())
    meta[key::MetaFunctions] = std::move(functions);
  json each = json::array();
  for (const Survey &s : surveys) {
    json m = s.metadata;
    m.erase(key::MetaFunctions);
    m[key::MergedFile] = s.file;
    each.push_back(std::move(m));
  }
  meta[key::MetaMerged] = std::move(each);
  return meta;
}

class Writer {
public:
  explicit Writer(std::FILE *out) : out(out) {}
  bool ok = true;
  void event(const std::string &text) {
    put(first ? "\n" : ",\n");
    first = false;
    put(text);
  }
  void put(const std::string &text) {
    ok = ok && std::fwrite(text.data(), 1, text.size(), out) == text.size();
  }

private:
  std::FILE *out;
  bool first = true;
};

} // namespace

bool mergeTraces(const std::vector<std::string> &files, std::FILE *out,
                 const std::string &version, std::vector<MergedTrace> &merged,
                 std::string &error) {
  std::vector<Survey> surveys(files.size());
  std::map<std::int64_t, std::string> hostOf; // pid -> its file
  std::string domain, domainFile;
  for (std::size_t i = 0; i < files.size(); ++i) {
    Survey &s = surveys[i];
    if (!survey(files[i], s, error))
      return false;
    auto [it, added] = hostOf.try_emplace(*s.hostPid, files[i]);
    if (!added) {
      error = fmt::format("{}: process {} is in {} too: two traces of one "
                          "process cannot be merged (the same run twice?)",
                          files[i], *s.hostPid, it->second);
      return false;
    }
    if (auto d = s.metadata.find(key::MetaClockDomain);
        d != s.metadata.end() && d->is_string()) {
      if (domain.empty()) {
        domain = d->get<std::string>();
        domainFile = files[i];
      } else if (*d != domain) {
        error =
            fmt::format("{}: its clock is {}, {}'s is {}: no common "
                        "timeline",
                        files[i], d->get<std::string>(), domainFile, domain);
        return false;
      }
    }
  }
  // Each trace's ids are offset past the earlier traces' largest: ids so
  // large that the sum leaves the integers are refused here, before a byte
  // is written, rather than wrapped round to collide with others.
  std::vector<Ids> offsets(surveys.size());
  Ids next;
  for (std::size_t i = 0; i < surveys.size(); ++i) {
    const Survey &s = surveys[i];
    offsets[i] = next;
    for (auto [kind, own, sum] :
         {std::tuple{"flow", s.maxIds.flow, &next.flow},
          std::tuple{"CUPTI correlation", s.maxIds.correlation,
                     &next.correlation},
          std::tuple{"External", s.maxIds.external, &next.external}})
      if (__builtin_add_overflow(*sum, own, sum)) {
        error = fmt::format("{}: its {} ids go up to {}: renumbered past the "
                            "earlier traces' they would not fit in 64 bits",
                            s.file, kind, own);
        return false;
      }
  }

  // Every process's host pid stays; its other tracks (GPUs) get pids past
  // any a process can have, one per process and track.
  std::int64_t nextTrackPid = std::int64_t(1) << 32;

  Writer w(out);
  w.put(fmt::format("{{\"{}\":[", key::Events));
  for (std::size_t i = 0; i < surveys.size(); ++i) {
    const Survey &s = surveys[i];
    const Ids &offset = offsets[i];
    std::int64_t host = *s.hostPid;
    std::map<std::int64_t, std::int64_t> trackPid;
    for (std::int64_t pid : s.pids)
      if (pid != host)
        trackPid[pid] = nextTrackPid++;
    MergedTrace m;
    m.file = s.file;
    m.pid = host;
    m.calls = s.calls;
    if (auto p = s.metadata.find(key::MetaProgram);
        p != s.metadata.end() && p->is_string())
      m.program = p->get<std::string>();
    // The processes in the order given, above their GPUs.
    w.event(fmt::format("{{\"ph\":\"{}\",\"name\":\"{}\",\"pid\":{},\"tid\":0,"
                        "\"args\":{{\"{}\":{}}}}}",
                        key::PhaseMetadata, key::ProcessSortIndex, host,
                        key::ArgSortIndex, i));
    auto sink = [&](const json &original) {
      if (!original.is_object())
        return; // the reader of the merged trace would skip it too
      json event = original;
      ++m.events;
      std::optional<std::int64_t> pid = intAt(event, key::Pid);
      auto track = pid ? trackPid.find(*pid) : trackPid.end();
      if (track != trackPid.end()) {
        event[key::Pid] = track->second;
        auto name = event.find(key::Name);
        auto args = event.find(key::Args);
        if (name != event.end() && *name == key::ProcessName &&
            args != event.end() && args->is_object()) {
          auto label = args->find(key::ArgName);
          if (label != args->end() && label->is_string())
            *label =
                fmt::format("{} (pid {})", label->get<std::string>(), host);
        }
      }
      offsetId(event, key::FlowId, offset.flow);
      if (auto args = event.find(key::Args);
          args != event.end() && args->is_object()) {
        offsetId(*args, key::ArgCorrelation, offset.correlation);
        offsetId(*args, key::ArgExternalId, offset.external);
      }
      w.event(eventText(event));
    };
    json rest;
    std::string problem;
    if (!streamTraceFile(s.file, sink, rest, problem)) {
      // It read a moment ago: changed meanwhile (a run still writing?).
      error = fmt::format("{}: {}", s.file, problem);
      return false;
    }
    merged.push_back(std::move(m));
  }
  w.put(fmt::format("\n],\"{}\":\"ns\",\"{}\":{}}}\n", key::DisplayTimeUnit,
                    key::Metadata,
                    mergedMetadata(surveys, version)
                        .dump(-1, ' ', false, json::error_handler_t::replace)));
  if (!w.ok) {
    error = "the merged trace could not be written";
    return false;
  }
  return true;
}

} // namespace perfcc::perfctl
