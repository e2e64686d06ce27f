// perfctl's trace reader (driver/perfctl/trace) on arbitrary bytes: a
// malformed or truncated trace is an error, never a crash or an exception
// out of the reader; in a trace it accepts every name an event carries is
// one the model holds, and no operation ends before it starts (the reader
// counts those as negative durations instead). Every accepted trace also
// goes through perfctl export: its call tree's self times add up to its
// total, each format is written without a crash, and the pprof profile
// reads back with a sample per call path.
#include "export/CallTree.h"
#include "export/Callgrind.h"
#include "export/FlameGraph.h"
#include "export/FoldedStacks.h"
#include "export/Pprof.h"
#include "profile.pb.h"
#include "test/fuzz/fuzz_check.h"
#include "trace/TraceReader.h"

#include <google/protobuf/io/gzip_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

using fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace perfcc::perfctl;
  std::string_view text(reinterpret_cast<const char *>(data), size);
  std::string error;
  std::optional<TraceModel> model = parseTrace(text, error);
  if (!model) {
    check(!error.empty(), "refused without saying why");
    return 0;
  }
  auto known = [&](NameId id) {
    return id == NoName || id < model->nameCount();
  };
  for (const CpuOp &op : model->cpuOps) {
    check(known(op.name) && known(op.file), "a cpu_op names no known string");
    check(op.end >= op.start, "a cpu_op ends before it starts");
    (void)model->name(op.name);
  }
  for (const GpuRecord &r : model->gpuRecords)
    check(known(r.name) && known(r.launchedBy) && known(r.capturedBy),
          "a GPU record names no known string");
  for (const ApiCall &c : model->apiCalls)
    check(known(c.name), "an API call names no known string");
  CallTree tree = buildCallTree(*model);
  TimeNs self = 0;
  for (const CallPath &p : tree.paths)
    self += p.self;
  check(self == tree.selfTotal, "the call tree's self times do not add up");
  check(tree.calls == model->cpuOps.size(), "the call tree lost calls");
  (void)foldedStacks(*model, tree);
  (void)callgrindProfile(*model, tree, "fuzz");
  (void)flameGraphSvg(*model, tree, "fuzz");
  std::string pprof = pprofProfile(*model, tree, "fuzz");
  google::protobuf::io::ArrayInputStream raw(pprof.data(), int(pprof.size()));
  google::protobuf::io::GzipInputStream gzip(&raw);
  perftools::profiles::Profile profile;
  check(profile.ParseFromZeroCopyStream(&gzip),
        "the pprof profile is unreadable");
  check(std::size_t(profile.sample_size()) ==
            tree.paths.size() - tree.roots.size(),
        "the pprof profile has not one sample per call path");
  return 0;
}
