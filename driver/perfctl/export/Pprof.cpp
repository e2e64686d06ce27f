//===- Pprof.cpp - the pprof export ---------------------------------------===//
#include "export/Pprof.h"

#include "profile.pb.h"

#include <google/protobuf/io/gzip_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>

namespace perfcc::perfctl {

namespace {

namespace pb = perftools::profiles;

/// The profile's string table: index 0 is "", as the format requires.
class StringTable {
public:
  explicit StringTable(pb::Profile &p) : profile(p) { (*this)(""); }
  std::int64_t operator()(std::string_view s) {
    auto [it, added] = ids.try_emplace(std::string(s), ids.size());
    if (added)
      profile.add_string_table(it->first);
    return std::int64_t(it->second);
  }

private:
  pb::Profile &profile;
  std::map<std::string, std::size_t, std::less<>> ids;
};

} // namespace

std::string pprofProfile(const TraceModel &model, const CallTree &tree,
                         const std::string &comment) {
  pb::Profile profile;
  StringTable str(profile);
  // pprof's names: "wall" for wall time, "cpu" for CPU time.
  const char *timeType = tree.time == CallTime::Cpu ? "cpu" : "wall";
  for (auto [type, unit] :
       {std::pair{"calls", "count"}, std::pair{timeType, "nanoseconds"}}) {
    pb::ValueType *t = profile.add_sample_type();
    t->set_type(str(type));
    t->set_unit(str(unit));
  }
  profile.set_default_sample_type(str(timeType));
  profile.add_comment(str(comment));

  pb::Mapping *mapping = profile.add_mapping();
  mapping->set_id(1);
  mapping->set_filename(str(model.metadata.program));
  mapping->set_has_functions(true);
  mapping->set_has_filenames(true);
  mapping->set_has_line_numbers(true);

  // One function and one location per traced function, numbered from 1 in
  // name order (0 means none in the format).
  std::map<NameId, std::uint64_t> locationOf;
  for (const auto &[name, cost] : tree.functions) {
    std::uint64_t id = locationOf.size() + 1;
    locationOf[name] = id;
    pb::Function *f = profile.add_function();
    f->set_id(id);
    f->set_name(str(model.name(name)));
    f->set_system_name(str(model.name(name)));
    f->set_filename(str(model.name(cost.file)));
    f->set_start_line(std::max<std::int64_t>(cost.line, 0));
    pb::Location *l = profile.add_location();
    l->set_id(id);
    l->set_mapping_id(1);
    pb::Line *line = l->add_line();
    line->set_function_id(id);
    line->set_line(std::max<std::int64_t>(cost.line, 0));
  }

  // A sample per call path, in the folded stacks' order (threads by id,
  // then depth first, callees by name); its stack leaf first, as the format
  // orders it.
  std::int64_t threadKey = str("thread");
  for (std::size_t r = 0; r < tree.roots.size(); ++r) {
    std::int64_t threadLabel = str(tree.rootLabels[r]);
    const std::vector<std::int32_t> &top =
        tree.paths[std::size_t(tree.roots[r])].children;
    std::vector<std::int32_t> pending(top.rbegin(), top.rend());
    while (!pending.empty()) {
      std::int32_t at = pending.back();
      pending.pop_back();
      const CallPath &path = tree.paths[std::size_t(at)];
      pending.insert(pending.end(), path.children.rbegin(),
                     path.children.rend());
      pb::Sample *s = profile.add_sample();
      for (std::int32_t p = at; tree.paths[std::size_t(p)].parent >= 0;
           p = tree.paths[std::size_t(p)].parent)
        s->add_location_id(locationOf.at(tree.paths[std::size_t(p)].function));
      constexpr auto Max =
          std::uint64_t(std::numeric_limits<std::int64_t>::max());
      s->add_value(std::int64_t(std::min(path.calls, Max)));
      s->add_value(path.self);
      pb::Label *label = s->add_label();
      label->set_key(threadKey);
      label->set_str(threadLabel);
    }
  }

  TimeNs first = std::numeric_limits<TimeNs>::max(), last = 0;
  for (const CpuOp &op : model.cpuOps) {
    first = std::min(first, op.start);
    last = std::max(last, op.end);
  }
  if (last > first)
    profile.set_duration_nanos(std::int64_t(last - first));

  std::string out;
  {
    google::protobuf::io::StringOutputStream raw(&out);
    google::protobuf::io::GzipOutputStream::Options options;
    options.format = google::protobuf::io::GzipOutputStream::GZIP;
    google::protobuf::io::GzipOutputStream gzip(&raw, options);
    if (!profile.SerializeToZeroCopyStream(&gzip) || !gzip.Close())
      throw std::runtime_error("could not encode the pprof profile: " +
                               std::string(gzip.ZlibErrorMessage()
                                               ? gzip.ZlibErrorMessage()
                                               : "protobuf refused it"));
  }
  return out;
}

} // namespace perfcc::perfctl
