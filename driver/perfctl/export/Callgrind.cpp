//===- Callgrind.cpp - the callgrind export -------------------------------===//
#include "export/Callgrind.h"

#include <fmt/format.h>

#include <map>

namespace perfcc::perfctl {

namespace {

/// callgrind's name compression: "(id) name" the first time a name is
/// written, "(id)" after.
class Compressed {
public:
  std::string operator()(const std::string &name) {
    auto [it, added] = ids.try_emplace(name, ids.size() + 1);
    return added ? fmt::format("({}) {}", it->second, name)
                 : fmt::format("({})", it->second);
  }

private:
  std::map<std::string, std::size_t> ids;
};

/// A line break would end the record: names are one line.
std::string oneLine(std::string_view text) {
  std::string s(text);
  for (char &c : s)
    if (c == '\n' || c == '\r')
      c = ' ';
  return s;
}

} // namespace

std::string callgrindProfile(const TraceModel &model, const CallTree &tree,
                             const std::string &creator) {
  std::string out = "# callgrind format\nversion: 1\n";
  out += fmt::format("creator: {}\n", oneLine(creator));
  if (model.metadata.pid)
    out += fmt::format("pid: {}\n", *model.metadata.pid);
  if (!model.metadata.program.empty())
    out += fmt::format("cmd: {}\n", oneLine(model.metadata.program));
  // The event's name says which time it is.
  out += fmt::format("positions: line\nevents: {}\n\n",
                     tree.time == CallTime::Cpu ? "cpu_ns" : "ns");
  Compressed files, functions;
  auto fileOf = [&model](const FunctionCost &f) {
    std::string file = oneLine(model.name(f.file));
    return file.empty() ? std::string("???") : file;
  };
  // Each caller's edges, in callee name order.
  std::map<NameId, std::vector<std::pair<NameId, CallEdge>>> callees;
  for (const auto &[pair, edge] : tree.edges)
    callees[pair.first].push_back({pair.second, edge});
  for (const auto &[name, f] : tree.functions) {
    std::int64_t line = f.line > 0 ? f.line : 0;
    out += fmt::format("fl={}\nfn={}\n{} {}\n", files(fileOf(f)),
                       functions(oneLine(model.name(name))), line, f.self);
    for (const auto &[callee, edge] : callees[name]) {
      const FunctionCost &c = tree.functions.at(callee);
      std::int64_t calleeLine = c.line > 0 ? c.line : 0;
      // A callee in the caller's file gets no cfl=, as callgrind writes it
      // (and callgrind_annotate then names it as it names the caller).
      if (c.file != f.file)
        out += fmt::format("cfl={}\n", files(fileOf(c)));
      out += fmt::format("cfn={}\ncalls={} {}\n{} {}\n",
                         functions(oneLine(model.name(callee))), edge.calls,
                         calleeLine, line, edge.inclusive);
    }
    out += "\n";
  }
  out += fmt::format("totals: {}\n", tree.selfTotal);
  return out;
}

} // namespace perfcc::perfctl
