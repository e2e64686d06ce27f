//===- TraceBuilder.h - synthetic perfcc traces for the tests ---*- C++ -*-===//
//
// Builds the text of a Chrome trace as perfcc's runtime writes it (object
// form, ts and dur in microseconds with the nanoseconds as decimals), every
// key spelled through perfcc/OutputSchema.h, with times given in integer
// nanoseconds. shuffled() gives the same events in another order, for the
// tests that the answers do not depend on it.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_TEST_UNIT_PERFCTL_TRACEBUILDER_H
#define PERFCC_TEST_UNIT_PERFCTL_TRACEBUILDER_H

#include "perfcc/OutputSchema.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace perfcc::perfctl::test {

class TraceBuilder {
public:
  using json = nlohmann::json;
  static constexpr std::int64_t HostPid = 4242;
  static constexpr std::int64_t MainTid = 4242;
  /// The GPU's display process; the records' device comes from args.
  static constexpr std::int64_t GpuPid = 0;

  /// A call of \p name on thread \p tid from \p start to \p end (ns).
  /// A call; \p cpuNs, when not negative, its CPU time (tdur).
  TraceBuilder &cpuOp(const std::string &name, std::int64_t tid,
                      std::int64_t start, std::int64_t end,
                      std::int64_t cpuNs = -1) {
    namespace k = schema::trace;
    json e = complete(k::CategoryCpuOp, name, HostPid, tid, start, end);
    if (cpuNs >= 0)
      e[k::ThreadDur] = micros(cpuNs);
    e[k::Args] = {{k::ArgFile, "app.cpp"}, {k::ArgLine, 7}};
    events.push_back(e);
    return *this;
  }
  TraceBuilder &delay(std::int64_t tid, std::int64_t start, std::int64_t end,
                      const std::string &function) {
    namespace k = schema::trace;
    json e =
        complete(k::CategoryDelay, k::DelayEventName, HostPid, tid, start, end);
    e[k::Args] = {{k::ArgFunction, function}, {k::ArgRequestedNs, end - start}};
    events.push_back(e);
    return *this;
  }
  /// A CUDA runtime call (a driver call with \p driver).
  TraceBuilder &api(const std::string &name, std::int64_t tid,
                    std::int64_t start, std::int64_t end,
                    std::int64_t correlation, bool driver = false) {
    namespace k = schema::trace;
    json e = complete(driver ? k::CategoryCudaDriver : k::CategoryCudaRuntime,
                      name, HostPid, tid, start, end);
    e[k::Args] = {{k::ArgCbid, 211}, {k::ArgCorrelation, correlation}};
    events.push_back(e);
    return *this;
  }
  /// A GPU record of \p category (kernel, gpu_memcpy, gpu_memset) on
  /// \p device and \p stream; \p row is its tid (the stream, or an overflow
  /// row). A negative \p correlation writes none.
  TraceBuilder &gpu(const char *category, const std::string &name,
                    std::int64_t device, std::int64_t stream,
                    std::int64_t start, std::int64_t end,
                    std::int64_t correlation, json extra = json::object(),
                    std::int64_t row = -1) {
    namespace k = schema::trace;
    json e = complete(category, name, GpuPid + device, row < 0 ? stream : row,
                      start, end);
    json args = {{k::ArgDevice, device},     {k::ArgContext, 1},
                 {k::ArgStream, stream},     {k::ArgGrid, {128, 1, 1}},
                 {k::ArgBlock, {256, 1, 1}}, {k::ArgRegisters, 32},
                 {k::ArgSharedMemory, 0}};
    if (correlation >= 0)
      args[k::ArgCorrelation] = correlation;
    for (auto it = extra.begin(); it != extra.end(); ++it)
      args[it.key()] = it.value();
    e[k::Args] = args;
    events.push_back(e);
    return *this;
  }
  TraceBuilder &kernel(const std::string &name, std::int64_t stream,
                       std::int64_t start, std::int64_t end,
                       std::int64_t correlation, json extra = json::object()) {
    return gpu(schema::trace::CategoryKernel, name, 0, stream, start, end,
               correlation, std::move(extra));
  }
  TraceBuilder &sync(std::int64_t device, std::int64_t stream,
                     std::int64_t start, std::int64_t end,
                     std::int64_t correlation) {
    namespace k = schema::trace;
    json e = complete(k::CategoryCudaSync, "Stream Sync", GpuPid + device,
                      stream + 1000000, start, end);
    e[k::Args] = {{k::ArgSyncKind, "Stream Sync"},
                  {k::ArgStream, stream},
                  {k::ArgDevice, device},
                  {k::ArgCorrelation, correlation}};
    events.push_back(e);
    return *this;
  }
  TraceBuilder &counter(const std::string &name, std::int64_t tid,
                        std::int64_t ts, double value) {
    namespace k = schema::trace;
    events.push_back({{k::Phase, k::PhaseCounter},
                      {k::Name, name},
                      {k::Pid, HostPid},
                      {k::Tid, tid},
                      {k::Ts, micros(ts)},
                      {k::Args, {{k::ArgCounterValue, value}}}});
    return *this;
  }
  TraceBuilder &flow(bool start, std::int64_t id, std::int64_t pid,
                     std::int64_t tid, std::int64_t ts) {
    namespace k = schema::trace;
    events.push_back({{k::Phase, start ? k::PhaseFlowStart : k::PhaseFlowEnd},
                      {k::Category, k::CategoryFlow},
                      {k::Name, k::FlowName},
                      {k::FlowId, id},
                      {k::Pid, pid},
                      {k::Tid, tid},
                      {k::Ts, micros(ts)}});
    return *this;
  }
  TraceBuilder &threadName(std::int64_t pid, std::int64_t tid,
                           const std::string &name) {
    namespace k = schema::trace;
    events.push_back({{k::Phase, k::PhaseMetadata},
                      {k::Name, k::ThreadName},
                      {k::Pid, pid},
                      {k::Tid, tid},
                      {k::Args, {{k::ArgName, name}}}});
    return *this;
  }
  TraceBuilder &processName(std::int64_t pid, const std::string &name) {
    namespace k = schema::trace;
    events.push_back({{k::Phase, k::PhaseMetadata},
                      {k::Name, k::ProcessName},
                      {k::Pid, pid},
                      {k::Tid, 0},
                      {k::Args, {{k::ArgName, name}}}});
    return *this;
  }
  TraceBuilder &raw(json event) {
    events.push_back(std::move(event));
    return *this;
  }

  /// The trace's text, events in the order added.
  std::string text() const { return document(events).dump(); }
  /// The same events in an order drawn from \p seed.
  std::string shuffled(unsigned seed) const {
    std::vector<json> copy = events;
    std::mt19937 rng(seed);
    std::shuffle(copy.begin(), copy.end(), rng);
    return document(copy).dump();
  }

  std::vector<json> events;
  json metadata = {{schema::trace::MetaVersion, "0.1.0"},
                   {schema::trace::MetaProgram, "app"},
                   {schema::trace::MetaPid, HostPid},
                   {schema::trace::MetaClock, "tsc"},
                   {schema::trace::MetaDroppedSpans, 0},
                   {schema::trace::MetaDepthOverflows, 0},
                   {schema::trace::MetaUnmatchedExits, 0},
                   {schema::trace::MetaAbandonedFrames, 0}};

private:
  /// Nanoseconds as the runtime writes them: microseconds, three decimals.
  /// A double prints its shortest exact form, and below 2^53 ns / 1000 the
  /// nearest double of N/1000 prints as N/1000 exactly.
  static double micros(std::int64_t ns) { return double(ns) / 1000.0; }

  static json complete(const char *category, const std::string &name,
                       std::int64_t pid, std::int64_t tid, std::int64_t start,
                       std::int64_t end) {
    namespace k = schema::trace;
    return {{k::Phase, k::PhaseComplete},
            {k::Category, category},
            {k::Name, name},
            {k::Pid, pid},
            {k::Tid, tid},
            {k::Ts, micros(start)},
            {k::Dur, micros(end - start)}};
  }

  json document(const std::vector<json> &list) const {
    namespace k = schema::trace;
    return {
        {k::Events, list}, {k::DisplayTimeUnit, "ns"}, {k::Metadata, metadata}};
  }
};

} // namespace perfcc::perfctl::test

#endif // PERFCC_TEST_UNIT_PERFCTL_TRACEBUILDER_H
