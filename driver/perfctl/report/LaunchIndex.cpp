//===- LaunchIndex.cpp - each GPU record's launch, by correlation ---------===//
#include "report/LaunchIndex.h"

#include <unordered_map>

namespace perfcc::perfctl {

bool launchesGpuWork(std::string_view name) {
  auto startsWith = [&](std::string_view prefix) {
    return name.substr(0, prefix.size()) == prefix;
  };
  // A host function run in stream order: no GPU record.
  if (startsWith("cudaLaunchHostFunc") || startsWith("cuLaunchHostFunc"))
    return false;
  for (std::string_view prefix :
       {"cudaLaunch", "cudaGraphLaunch", "cudaMemcpy", "cudaMemset", "cuLaunch",
        "cuGraphLaunch", "cuMemcpy", "cuMemset"})
    if (startsWith(prefix))
      return true;
  return false;
}

bool launchesGraph(std::string_view name) {
  for (std::string_view prefix : {"cudaGraphLaunch", "cuGraphLaunch"})
    if (name.substr(0, prefix.size()) == prefix)
      return true;
  return false;
}

LaunchIndex::LaunchIndex(const TraceModel &model) {
  std::unordered_map<std::int64_t, std::size_t> byCorrelation;
  for (std::size_t i = 0; i < model.apiCalls.size(); ++i) {
    std::int64_t c = model.apiCalls[i].correlation;
    if (c == NoValue)
      continue;
    // The model's order is canonical, so "the first" does not depend on
    // the file's event order.
    if (!byCorrelation.emplace(c, i).second)
      ++duplicateCorrelations;
  }
  recordsOf.assign(model.apiCalls.size(), 0);
  launchOf.assign(model.gpuRecords.size(), -1);
  for (std::size_t r = 0; r < model.gpuRecords.size(); ++r) {
    const GpuRecord &record = model.gpuRecords[r];
    auto it = record.correlation == NoValue
                  ? byCorrelation.end()
                  : byCorrelation.find(record.correlation);
    if (it == byCorrelation.end()) {
      ++recordsWithoutLaunch;
      continue;
    }
    launchOf[r] = std::int64_t(it->second);
    ++recordsOf[it->second];
    if (record.start < model.apiCalls[it->second].start)
      ++recordsBeforeLaunch;
  }
  // Calls are sorted by thread, then start (the longer first): the runtime
  // call a driver call lies in comes before it.
  const ApiCall *runtimeCall = nullptr;
  for (std::size_t i = 0; i < model.apiCalls.size(); ++i) {
    const ApiCall &call = model.apiCalls[i];
    if (runtimeCall && !(runtimeCall->thread == call.thread))
      runtimeCall = nullptr;
    bool insideRuntime = call.driver && runtimeCall &&
                         runtimeCall->start <= call.start &&
                         call.end <= runtimeCall->end;
    if (!call.driver && (!runtimeCall || call.end > runtimeCall->end))
      runtimeCall = &call;
    if (recordsOf[i] == 0 && !insideRuntime &&
        launchesGpuWork(model.name(call.name)))
      launchesWithoutRecords.push_back(i);
  }
}

} // namespace perfcc::perfctl
