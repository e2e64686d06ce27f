//===- TraceReader.cpp - reads a perfcc Chrome trace into the model -------===//
#include "trace/TraceReader.h"

#include "perfcc/OutputSchema.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>

namespace perfcc::perfctl {

using nlohmann::json;
namespace key = perfcc::schema::trace;

std::optional<TimeNs> microsToNs(std::string_view text) {
  std::size_t at = 0;
  bool negative = false;
  if (at < text.size() && (text[at] == '-' || text[at] == '+'))
    negative = text[at++] == '-';
  // The significant digits (integer and fraction together) and the power of
  // ten that turns them into nanoseconds.
  std::string digits;
  long long power = 3; // microseconds -> nanoseconds
  bool any = false;
  for (; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at) {
    digits += text[at];
    any = true;
  }
  if (at < text.size() && text[at] == '.') {
    for (++at; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at) {
      digits += text[at];
      --power;
      any = true;
    }
  }
  if (!any)
    return std::nullopt;
  if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
    ++at;
    bool expNegative = false;
    if (at < text.size() && (text[at] == '-' || text[at] == '+'))
      expNegative = text[at++] == '-';
    long long exponent = 0;
    bool expDigits = false;
    for (; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at) {
      if (exponent < 100000)
        exponent = exponent * 10 + (text[at] - '0');
      expDigits = true;
    }
    if (!expDigits)
      return std::nullopt;
    power += expNegative ? -exponent : exponent;
  }
  if (at != text.size())
    return std::nullopt;
  std::size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos)
    return TimeNs(0);
  digits.erase(0, first);
  bool roundUp = false;
  if (power < 0) {
    // Drop the digits below a nanosecond, rounding half away from zero:
    // the first dropped digit decides, since any digits after it only add.
    std::size_t drop = std::size_t(-power);
    if (drop > digits.size())
      return TimeNs(0); // below half a nanosecond
    roundUp = digits[digits.size() - drop] >= '5';
    digits.erase(digits.size() - drop);
    power = 0;
  }
  if (digits.size() + std::size_t(power) > 19)
    return std::nullopt;
  digits.append(std::size_t(power), '0');
  unsigned long long value = 0;
  for (char c : digits)
    value = value * 10 + unsigned(c - '0');
  value += roundUp ? 1 : 0;
  if (value >
      static_cast<unsigned long long>(std::numeric_limits<TimeNs>::max()))
    return std::nullopt;
  return negative ? -TimeNs(value) : TimeNs(value);
}

namespace {

/// An integer argument: a JSON integer, an integral float, or a string of
/// decimal digits (some writers quote ids).
std::optional<std::int64_t> intOf(const json &v) {
  if (v.is_number_unsigned()) {
    auto u = v.get<std::uint64_t>();
    if (u > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
      return std::nullopt;
    return std::int64_t(u);
  }
  if (v.is_number_integer())
    return v.get<std::int64_t>();
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e18)
      return std::int64_t(d);
    return std::nullopt;
  }
  if (v.is_string()) {
    const std::string &s = v.get_ref<const std::string &>();
    if (s.empty() || s.size() > 18)
      return std::nullopt;
    std::size_t at = s[0] == '-' ? 1 : 0;
    if (at == s.size())
      return std::nullopt;
    std::int64_t value = 0;
    for (std::size_t i = at; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9')
        return std::nullopt;
      value = value * 10 + (s[i] - '0');
    }
    return at ? -value : value;
  }
  return std::nullopt;
}

std::optional<std::int64_t> intField(const json &object, const char *name) {
  auto it = object.find(name);
  return it == object.end() ? std::nullopt : intOf(*it);
}

std::int64_t intOr(const json &object, const char *name,
                   std::int64_t otherwise = NoValue) {
  return intField(object, name).value_or(otherwise);
}

std::optional<std::uint64_t> countField(const json &object, const char *name) {
  std::optional<std::int64_t> v = intField(object, name);
  if (!v || *v < 0)
    return std::nullopt;
  return std::uint64_t(*v);
}

const std::string *stringField(const json &object, const char *name) {
  auto it = object.find(name);
  return it != object.end() && it->is_string()
             ? &it->get_ref<const std::string &>()
             : nullptr;
}

/// A pid or tid: an integer, or a name some writers use instead ("Spans");
/// a name becomes a stable number of its own, far from real ids.
std::optional<std::int64_t> rowIdOf(const json &object, const char *name) {
  auto it = object.find(name);
  if (it == object.end())
    return std::nullopt;
  if (std::optional<std::int64_t> v = intOf(*it))
    return v;
  if (it->is_string())
    return std::int64_t(
        std::hash<std::string>{}(it->get_ref<const std::string &>()) |
        (std::uint64_t(1) << 62));
  return std::nullopt;
}

bool flagArg(const json &args, const char *name) {
  auto it = args.find(name);
  return it != args.end() && it->is_boolean() && it->get<bool>();
}

std::array<std::int64_t, 3> dim3(const json &args, const char *name) {
  std::array<std::int64_t, 3> out = {0, 0, 0};
  auto it = args.find(name);
  if (it == args.end() || !it->is_array())
    return out;
  for (std::size_t i = 0; i < 3 && i < it->size(); ++i)
    out[i] = intOf((*it)[i]).value_or(0);
  return out;
}

/// Turns one event (its ts and dur already integer nanoseconds) into the
/// model's types.
class EventConverter {
public:
  explicit EventConverter(TraceModel &model) : model(model) {}

  void add(const json &event) {
    if (!event.is_object())
      return malformed();
    const std::string *phase = stringField(event, key::Phase);
    if (!phase)
      return malformed();
    const json &args = argsOf(event);
    if (*phase == key::PhaseComplete)
      return addComplete(event, args);
    if (*phase == key::PhaseCounter)
      return addCounter(event, args);
    if (*phase == key::PhaseMetadata)
      return addMetadataEvent(event, args);
    if (*phase == key::PhaseFlowStart || *phase == key::PhaseFlowEnd)
      return addFlow(event, *phase == key::PhaseFlowStart);
    // The mark perfctl trace recover leaves where the record ends: the
    // metadata says the same (TraceMetadata::recoveredCut).
    const std::string *category = stringField(event, key::Category);
    if (*phase == key::PhaseInstant && category &&
        *category == key::CategoryRecovery)
      return;
    ++model.issues.ignoredEvents;
  }

private:
  TraceModel &model;
  const json emptyArgs = json::object();

  void malformed() { ++model.issues.malformedEvents; }

  const json &argsOf(const json &event) const {
    auto it = event.find(key::Args);
    return it != event.end() && it->is_object() ? *it : emptyArgs;
  }

  NameId optionalName(const json &object, const char *name) {
    const std::string *s = stringField(object, name);
    return s ? model.intern(*s) : NoName;
  }

  bool row(const json &event, ThreadRef &out) {
    std::optional<std::int64_t> pid = rowIdOf(event, key::Pid),
                                tid = rowIdOf(event, key::Tid);
    if (!pid || !tid)
      return false;
    out = ThreadRef{*pid, *tid};
    return true;
  }

  /// The event's ts and ts + dur; false when either is missing or bad.
  bool times(const json &event, TimeNs &start, TimeNs &end) {
    std::optional<std::int64_t> ts = intField(event, key::Ts),
                                dur = intField(event, key::Dur);
    if (!ts || !dur)
      return false;
    if (*dur < 0) {
      ++model.issues.negativeDurations;
      dur = 0;
    }
    if (*ts > std::numeric_limits<TimeNs>::max() - *dur)
      return false;
    start = *ts;
    end = *ts + *dur;
    return true;
  }

  void addComplete(const json &event, const json &args) {
    const std::string *category = stringField(event, key::Category);
    if (!category) {
      ++model.issues.ignoredEvents;
      return;
    }
    const std::string *name = stringField(event, key::Name);
    ThreadRef thread;
    TimeNs start = 0, end = 0;
    bool known =
        *category == key::CategoryCpuOp || *category == key::CategoryDelay ||
        *category == key::CategoryCudaRuntime ||
        *category == key::CategoryCudaDriver ||
        *category == key::CategoryKernel || *category == key::CategoryMemcpy ||
        *category == key::CategoryMemset || *category == key::CategoryCudaSync;
    if (!known) {
      ++model.issues.ignoredEvents;
      return;
    }
    if (!row(event, thread) || !times(event, start, end))
      return malformed();

    if (*category == key::CategoryCpuOp) {
      if (!name)
        return malformed();
      CpuOp op;
      op.name = model.intern(*name);
      op.thread = thread;
      op.start = start;
      op.end = end;
      op.file = optionalName(args, key::ArgFile);
      op.line = intOr(args, key::ArgLine, 0);
      op.externalId = intOr(args, key::ArgExternalId);
      if (std::optional<std::int64_t> cpu = intField(event, key::ThreadDur);
          cpu && *cpu >= 0)
        op.cpuNs = *cpu;
      op.unwind = flagArg(args, key::ArgUnwind);
      op.abandoned = flagArg(args, key::ArgAbandoned);
      op.unfinished = flagArg(args, key::ArgUnfinished);
      model.cpuOps.push_back(op);
    } else if (*category == key::CategoryDelay) {
      model.delays.push_back(
          DelaySpan{thread, start, end, optionalName(args, key::ArgFunction)});
    } else if (*category == key::CategoryCudaRuntime ||
               *category == key::CategoryCudaDriver) {
      if (!name)
        return malformed();
      ApiCall call;
      call.name = model.intern(*name);
      call.driver = *category == key::CategoryCudaDriver;
      call.thread = thread;
      call.start = start;
      call.end = end;
      call.cbid = intOr(args, key::ArgCbid);
      call.correlation = intOr(args, key::ArgCorrelation);
      call.externalId = intOr(args, key::ArgExternalId);
      model.apiCalls.push_back(call);
    } else if (*category == key::CategoryCudaSync) {
      std::optional<std::int64_t> device = intField(args, key::ArgDevice);
      if (!device)
        return malformed();
      GpuSync sync;
      sync.kind = optionalName(args, key::ArgSyncKind);
      sync.device = *device;
      sync.stream = intOr(args, key::ArgStream);
      sync.correlation = intOr(args, key::ArgCorrelation);
      sync.start = start;
      sync.end = end;
      sync.row = thread;
      model.syncs.push_back(sync);
    } else {
      addGpuRecord(*category, name, args, thread, start, end);
    }
  }

  void addGpuRecord(const std::string &category, const std::string *name,
                    const json &args, ThreadRef row, TimeNs start, TimeNs end) {
    // The device and stream come from the arguments: the pid is a display
    // id and the tid may be an overflow row.
    std::optional<std::int64_t> device = intField(args, key::ArgDevice),
                                stream = intField(args, key::ArgStream);
    if (!name || !device || !stream)
      return malformed();
    GpuRecord r;
    r.kind = category == key::CategoryKernel   ? GpuKind::Kernel
             : category == key::CategoryMemcpy ? GpuKind::Memcpy
                                               : GpuKind::Memset;
    r.name = model.intern(*name);
    r.device = *device;
    r.stream = *stream;
    r.context = intOr(args, key::ArgContext);
    r.correlation = intOr(args, key::ArgCorrelation);
    r.externalId = intOr(args, key::ArgExternalId);
    r.launchedBy = optionalName(args, key::ArgLaunchedBy);
    r.capturedBy = optionalName(args, key::ArgCapturedBy);
    r.start = start;
    r.end = end;
    r.row = row;
    r.grid = dim3(args, key::ArgGrid);
    r.block = dim3(args, key::ArgBlock);
    r.registers = intOr(args, key::ArgRegisters);
    r.sharedMemory = intOr(args, key::ArgSharedMemory);
    r.graphId = intOr(args, key::ArgGraphId);
    r.graphNodeId = intOr(args, key::ArgGraphNodeId);
    r.bytes = intOr(args, key::ArgBytes);
    if (auto it = args.find(key::ArgBandwidth);
        it != args.end() && it->is_number())
      r.bandwidthGBs = it->get<double>();
    model.gpuRecords.push_back(r);
  }

  void addCounter(const json &event, const json &args) {
    const std::string *name = stringField(event, key::Name);
    ThreadRef thread;
    std::optional<std::int64_t> ts = intField(event, key::Ts);
    auto value = args.find(key::ArgCounterValue);
    if (!name || !row(event, thread) || !ts || value == args.end() ||
        !value->is_number())
      return malformed();
    model.counters.push_back(
        CounterSample{model.intern(*name), thread, *ts, value->get<double>()});
  }

  void addMetadataEvent(const json &event, const json &args) {
    const std::string *what = stringField(event, key::Name);
    if (!what) {
      ++model.issues.ignoredEvents;
      return;
    }
    bool process = *what == key::ProcessName || *what == key::ProcessSortIndex;
    bool thread = *what == key::ThreadName || *what == key::ThreadSortIndex;
    if (!process && !thread) {
      ++model.issues.ignoredEvents;
      return;
    }
    bool isName = *what == key::ProcessName || *what == key::ThreadName;
    NameId name = NoName;
    std::int64_t sortIndex = NoValue;
    if (isName) {
      const std::string *text = stringField(args, key::ArgName);
      if (!text)
        return malformed();
      name = model.intern(*text);
    } else {
      std::optional<std::int64_t> index = intField(args, key::ArgSortIndex);
      if (!index)
        return malformed();
      sortIndex = *index;
    }
    std::optional<std::int64_t> pid = rowIdOf(event, key::Pid);
    if (!pid)
      return malformed();
    if (process) {
      model.processes.push_back(ProcessInfo{*pid, name, sortIndex});
      return;
    }
    std::optional<std::int64_t> tid = rowIdOf(event, key::Tid);
    if (!tid)
      return malformed();
    model.threads.push_back(ThreadInfo{ThreadRef{*pid, *tid}, name, sortIndex});
  }

  void addFlow(const json &event, bool start) {
    ThreadRef thread;
    std::optional<std::int64_t> ts = intField(event, key::Ts);
    auto id = event.find(key::FlowId);
    if (!row(event, thread) || !ts || id == event.end())
      return malformed();
    std::optional<std::int64_t> number = intOf(*id);
    if (!number && id->is_string())
      number = std::int64_t(
          std::hash<std::string>{}(id->get_ref<const std::string &>()) >> 1);
    if (!number)
      return malformed();
    model.flows.push_back(FlowPoint{start, *number, thread, *ts});
  }
};

void readMetadata(const json &meta, TraceMetadata &out) {
  out.present = true;
  out.raw = meta;
  if (const std::string *s = stringField(meta, key::MetaVersion))
    out.version = *s;
  if (const std::string *s = stringField(meta, key::MetaProgram))
    out.program = *s;
  if (const std::string *s = stringField(meta, key::MetaClock))
    out.clock = *s;
  out.pid = intField(meta, key::MetaPid);
  out.droppedSpans = countField(meta, key::MetaDroppedSpans);
  out.depthOverflows = countField(meta, key::MetaDepthOverflows);
  out.unmatchedExits = countField(meta, key::MetaUnmatchedExits);
  out.abandonedFrames = countField(meta, key::MetaAbandonedFrames);
  auto cpuTime = meta.find(key::MetaCpuTime);
  out.cpuTime =
      cpuTime != meta.end() && cpuTime->is_boolean() && cpuTime->get<bool>();
  auto recovered = meta.find(key::MetaRecovered);
  if (recovered != meta.end() && recovered->is_object()) {
    const std::string *cut = stringField(*recovered, key::RecoveredCut);
    out.recoveredCut = cut ? *cut : "";
  }
  auto gpu = meta.find(key::MetaGpu);
  if (gpu == meta.end() || !gpu->is_object())
    return;
  GpuCollection g;
  if (const std::string *s = stringField(*gpu, key::MetaCupti))
    g.cupti = *s;
  if (const std::string *s = stringField(*gpu, key::MetaCuptiReason))
    g.reason = *s;
  g.records = countField(*gpu, key::MetaGpuRecords);
  g.droppedRecords = countField(*gpu, key::MetaGpuDroppedRecords);
  g.unmatchedLaunches = countField(*gpu, key::MetaGpuUnmatchedLaunches);
  g.unmatchedGpuRecords = countField(*gpu, key::MetaGpuUnmatchedGpuRecords);
  g.recordsOutsideRun = countField(*gpu, key::MetaGpuOutsideRun);
  g.startsBeforeLaunch = countField(*gpu, key::MetaGpuStartsBeforeLaunch);
  g.overlapRowsUsed = countField(*gpu, key::MetaGpuOverlapMoves);
  g.zeroTimestamps = countField(*gpu, key::MetaGpuZeroTimestamps);
  out.gpu = g;
}

/// The work perf_work reported per function (the table's "work" objects),
/// summed over entries of one name; malformed ones are skipped.
void readFunctionWork(const json &table, TraceModel &model) {
  namespace work = perfcc::schema::summary;
  std::map<NameId, FunctionWork> byName;
  for (const json &f : table) {
    if (!f.is_object())
      continue;
    const std::string *name = stringField(f, key::Name);
    auto w = f.find(key::MetaFunctionWork);
    if (!name || w == f.end() || !w->is_object())
      continue;
    auto count = [&](const char *field) -> std::optional<std::uint64_t> {
      auto v = w->find(field);
      if (v == w->end() || !v->is_number_integer() ||
          (!v->is_number_unsigned() && v->get<std::int64_t>() < 0))
        return std::nullopt;
      return v->get<std::uint64_t>();
    };
    auto bytes = count(work::WorkBytes), flops = count(work::WorkFlops),
         reports = count(work::WorkReports);
    if (!bytes || !flops || !reports)
      continue;
    FunctionWork &sum = byName[model.intern(*name)];
    sum.bytes += *bytes;
    sum.flops += *flops;
    sum.reports += *reports;
  }
  for (auto &[name, w] : byName) {
    w.name = name;
    model.work.push_back(w);
  }
}

/// Gives each call without a file and line of its own (every call the
/// runtime writes: a call's location is its function's) its function's from
/// metadata's table; where overloads share a name, the first one listed, as
/// the exports keep one location per name.
void locateCalls(const json &meta, TraceModel &model) {
  auto table = meta.find(key::MetaFunctions);
  if (table == meta.end() || !table->is_array())
    return;
  struct Location {
    NameId file;
    std::int64_t line;
  };
  std::unordered_map<NameId, Location> byName;
  for (const json &f : *table) {
    if (!f.is_object())
      continue;
    const std::string *name = stringField(f, key::Name);
    const std::string *file = stringField(f, key::ArgFile);
    if (!name || !file)
      continue;
    byName.try_emplace(
        model.intern(*name),
        Location{model.intern(*file), intOr(f, key::ArgLine, 0)});
  }
  readFunctionWork(*table, model);
  for (CpuOp &op : model.cpuOps) {
    if (op.file != NoName)
      continue;
    if (auto it = byName.find(op.name); it != byName.end()) {
      op.file = it->second.file;
      op.line = it->second.line;
    }
  }
}

/// Builds the document token by token like nlohmann's own DOM parser, with
/// two differences: an event's ts and dur become integer nanoseconds from
/// their text (microsToNs), and each event, once complete, is handed to the
/// converter and removed, so only one event at a time is held.
class TraceSax : public nlohmann::json_sax<json> {
public:
  explicit TraceSax(const TraceEventSink &sink) : sink(sink) {}

  json root;
  bool sawEvents = false;
  /// The top-level value is complete: an error after it is trailing
  /// garbage, not a file cut short.
  bool complete = false;
  static constexpr std::size_t MaxDepth = 64;
  bool tooDeep = false;
  // The parse error, if any.
  bool failed = false;
  std::size_t errorPosition = 0;
  std::string errorMessage;

  bool null() override { return put(json(nullptr)); }
  bool boolean(bool v) override { return put(json(v)); }
  bool number_integer(number_integer_t v) override {
    if (atEventTime())
      return put(v >= std::numeric_limits<std::int64_t>::min() / 1000
                     ? json(std::int64_t(v) * 1000)
                     : json(nullptr));
    return put(json(v));
  }
  bool number_unsigned(number_unsigned_t v) override {
    if (atEventTime())
      return put(v <= std::uint64_t(std::numeric_limits<std::int64_t>::max()) /
                             1000
                     ? json(std::int64_t(v) * 1000)
                     : json(nullptr));
    return put(json(v));
  }
  bool number_float(number_float_t v, const string_t &text) override {
    if (atEventTime()) {
      std::optional<TimeNs> ns = microsToNs(text);
      return put(ns ? json(*ns) : json(nullptr));
    }
    return put(json(v));
  }
  bool string(string_t &v) override { return put(json(std::move(v))); }
  bool binary(binary_t &v) override { return put(json(std::move(v))); }
  bool key(string_t &k) override {
    pendingKey = std::move(k);
    return true;
  }
  bool start_object(std::size_t) override {
    if (!deepEnough())
      return false;
    stack.push_back(place(json::object()));
    return true;
  }
  bool end_object() override { return endContainer(); }
  bool start_array(std::size_t) override {
    if (!deepEnough())
      return false;
    bool isEvents =
        stack.empty() || (stack.size() == 1 && stack[0] == &root &&
                          root.is_object() && pendingKey == key::Events);
    json *array = place(json::array());
    if (isEvents && !events) {
      events = array;
      sawEvents = true;
    }
    stack.push_back(array);
    return true;
  }
  bool end_array() override { return endContainer(); }
  bool parse_error(std::size_t position, const std::string &,
                   const nlohmann::detail::exception &ex) override {
    failed = true;
    errorPosition = position;
    errorMessage = ex.what();
    return false;
  }

private:
  const TraceEventSink &sink;
  std::vector<json *> stack;
  std::string pendingKey;
  json *events = nullptr;

  /// Whether one more level of nesting is allowed. A perfcc trace nests
  /// four levels deep; far deeper JSON is refused rather than held, since
  /// copying and printing a document recurse once per level.
  bool deepEnough() {
    if (stack.size() < MaxDepth)
      return true;
    tooDeep = true;
    return false;
  }

  /// Whether the next value is an event's ts or dur.
  bool atEventTime() const {
    return events && stack.size() >= 2 && stack[stack.size() - 2] == events &&
           stack.back()->is_object() &&
           (pendingKey == key::Ts || pendingKey == key::Dur ||
            pendingKey == key::ThreadDur);
  }

  json *place(json &&value) {
    if (stack.empty()) {
      root = std::move(value);
      return &root;
    }
    json &parent = *stack.back();
    if (parent.is_array()) {
      parent.push_back(std::move(value));
      return &parent.back();
    }
    json &slot = parent[pendingKey];
    slot = std::move(value);
    return &slot;
  }

  bool put(json &&value) {
    if (!stack.empty() && stack.back() == events) {
      // Not an object, so not an event: the sink counts it.
      sink(value);
      return true;
    }
    place(std::move(value));
    complete = stack.empty();
    return true;
  }

  bool endContainer() {
    json *done = stack.back();
    stack.pop_back();
    if (!stack.empty() && stack.back() == events) {
      // A complete event: hand it over and let it go.
      sink(*done);
      events->get_ref<json::array_t &>().pop_back();
    }
    complete = stack.empty();
    return true;
  }
};

/// nlohmann's message without its "[json.exception.parse_error.101] parse
/// error at line 1, column 5: " prefix.
std::string shortParseMessage(const std::string &what) {
  std::size_t colon = what.find(": ");
  std::string message =
      colon == std::string::npos ? what : what.substr(colon + 2);
  return message;
}

} // namespace

bool streamTrace(std::string_view text, const TraceEventSink &sink,
                 nlohmann::json &rest, std::string &error) {
  TraceSax sax(sink);
  bool ok = false;
  try {
    ok = json::sax_parse(text.begin(), text.end(), &sax);
  } catch (const std::exception &e) {
    error = fmt::format("cannot be read: {}", e.what());
    return false;
  }
  if (sax.tooDeep) {
    error = fmt::format("not a Chrome trace: JSON nested more than {} levels "
                        "deep",
                        TraceSax::MaxDepth);
    return false;
  }
  if (!ok || sax.failed) {
    // The input ran out before the top-level value was complete: the file
    // stops in the middle, as one a killed run was writing does.
    if (!sax.complete && sax.errorPosition >= text.size())
      error =
          fmt::format("truncated: the JSON stops after byte {} in the "
                      "middle of {} (was the run killed while writing "
                      "it?)",
                      text.size(), sax.sawEvents ? "the events" : "the trace");
    else
      error = fmt::format("malformed JSON at byte {}: {}", sax.errorPosition,
                          shortParseMessage(sax.errorMessage));
    return false;
  }
  if (!sax.root.is_object() && !sax.root.is_array()) {
    error = fmt::format("not a Chrome trace: the file holds a JSON {}, not "
                        "an object with \"{}\"",
                        sax.root.type_name(), key::Events);
    return false;
  }
  if (!sax.sawEvents) {
    error = fmt::format("not a Chrome trace: no \"{}\" array", key::Events);
    return false;
  }
  rest = std::move(sax.root);
  return true;
}

std::optional<TraceModel> parseTrace(std::string_view text,
                                     std::string &error) {
  TraceModel model;
  EventConverter converter(model);
  json rest;
  if (!streamTrace(
          text, [&converter](const json &event) { converter.add(event); }, rest,
          error))
    return std::nullopt;
  if (rest.is_object()) {
    auto meta = rest.find(key::Metadata);
    if (meta != rest.end() && meta->is_object()) {
      readMetadata(*meta, model.metadata);
      locateCalls(*meta, model);
    }
  }
  model.canonicalize();
  return model;
}

namespace {

/// Hands \p path's whole text to \p use (mapped when it can be), or says
/// why it cannot be read.
bool readTraceText(const std::string &path,
                   const std::function<bool(std::string_view)> &use,
                   std::string &error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = fmt::format("cannot read: {}", std::strerror(errno));
    return false;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    error = S_ISDIR(st.st_mode)
                ? std::string("cannot read: is a directory")
                : fmt::format("cannot read: {}", std::strerror(errno));
    ::close(fd);
    return false;
  }
  auto isEmpty = [](std::string_view text) {
    return text.find_first_not_of(" \t\r\n") == std::string_view::npos;
  };
  // A regular file is mapped, not copied: a trace can be hundreds of
  // megabytes, and the model needs the memory more.
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    std::size_t size = std::size_t(st.st_size);
    void *mapped = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapped != MAP_FAILED) {
      ::close(fd);
      ::madvise(mapped, size, MADV_SEQUENTIAL);
      std::string_view text(static_cast<const char *>(mapped), size);
      bool ok = false;
      if (isEmpty(text))
        error = "empty file: no trace in it";
      else
        ok = use(text);
      ::munmap(mapped, size);
      return ok;
    }
  }
  // A pipe, or a file that cannot be mapped: read it whole.
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      error = fmt::format("cannot read: {}", std::strerror(errno));
      ::close(fd);
      return false;
    }
    if (n == 0)
      break;
    text.append(buffer, std::size_t(n));
  }
  ::close(fd);
  if (isEmpty(text)) {
    error = "empty file: no trace in it";
    return false;
  }
  return use(text);
}

} // namespace

std::optional<TraceModel> readTraceFile(const std::string &path,
                                        std::string &error) {
  std::optional<TraceModel> model;
  readTraceText(
      path,
      [&](std::string_view text) {
        model = parseTrace(text, error);
        return model.has_value();
      },
      error);
  return model;
}

bool streamTraceFile(const std::string &path, const TraceEventSink &sink,
                     nlohmann::json &rest, std::string &error) {
  return readTraceText(
      path,
      [&](std::string_view text) {
        return streamTrace(text, sink, rest, error);
      },
      error);
}

} // namespace perfcc::perfctl
