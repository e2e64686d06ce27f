//===- FunctionRoofline.cpp - bytes and FLOPs per function, per second ---===//
#include "report/FunctionRoofline.h"

#include <algorithm>
#include <unordered_map>

namespace perfcc::perfctl {

std::vector<FunctionRooflineRow>
analyzeFunctionRoofline(const TraceModel &model, const HotFunctions &hot) {
  std::unordered_map<NameId, const FunctionTime *> timeOf;
  for (const FunctionTime &f : hot.process)
    timeOf.emplace(f.name, &f);
  std::vector<FunctionRooflineRow> rows;
  for (const FunctionWork &w : model.work) {
    FunctionRooflineRow r;
    r.name = w.name;
    r.bytes = w.bytes;
    r.flops = w.flops;
    r.reports = w.reports;
    if (auto it = timeOf.find(w.name); it != timeOf.end()) {
      r.calls = it->second->inclusive.count;
      r.inclusive = it->second->inclusive.total;
    }
    double seconds = double(r.inclusive) / 1e9;
    r.bytesPerS = seconds > 0 ? double(r.bytes) / seconds : 0;
    r.flopsPerS = seconds > 0 ? double(r.flops) / seconds : 0;
    r.flopsPerByte = r.bytes ? double(r.flops) / double(r.bytes) : 0;
    rows.push_back(r);
  }
  std::sort(rows.begin(), rows.end(),
            [](const FunctionRooflineRow &a, const FunctionRooflineRow &b) {
              if (a.inclusive != b.inclusive)
                return a.inclusive > b.inclusive;
              return a.name < b.name;
            });
  return rows;
}

} // namespace perfcc::perfctl
