//===- CallTree.cpp - a trace's calls merged by call path -----------------===//
#include "export/CallTree.h"

#include "report/ThreadTimeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace perfcc::perfctl {

namespace {

/// "name (tid 42)", with the pid too when the trace holds several
/// processes (a merged trace).
std::string rootLabel(const TraceModel &model, const ThreadRef &thread,
                      bool severalProcesses) {
  std::string name(model.name(model.threadName(thread)));
  std::string id = severalProcesses
                       ? fmt::format("pid {} tid {}", thread.pid, thread.tid)
                       : fmt::format("tid {}", thread.tid);
  if (name.empty())
    return "thread (" + id + ")";
  return name + " (" + id + ")";
}

} // namespace

const char *callTimeName(CallTime time) {
  return time == CallTime::Cpu ? "CPU" : "wall";
}

CallTree buildCallTree(const TraceModel &model, CallTime time) {
  CallTree tree;
  tree.time = time;
  HostTimelines timelines(model);
  std::set<std::int64_t> pids;
  for (const ThreadTimeline &t : timelines.all())
    pids.insert(t.thread.pid);
  // (parent path, function) -> child path.
  std::map<std::pair<std::int32_t, NameId>, std::int32_t> childOf;
  for (const ThreadTimeline &t : timelines.all()) {
    auto root = std::int32_t(tree.paths.size());
    tree.paths.push_back(CallPath{});
    tree.roots.push_back(root);
    tree.rootLabels.push_back(rootLabel(model, t.thread, pids.size() > 1));
    tree.improperlyNested += t.improperlyNested;
    // Each node's path; a node's parent comes before it in the timeline.
    std::vector<std::int32_t> pathOfNode(t.nodes.size(), -1);
    for (std::size_t i = 0; i < t.nodes.size(); ++i) {
      const ThreadTimeline::Node &node = t.nodes[i];
      const CpuOp &op = model.cpuOps[node.op];
      // A parent is always an earlier node (the timeline's order); a path
      // not known yet would be a bug, so the call goes to the root.
      std::int32_t parentPath = node.parent < 0 || std::size_t(node.parent) >= i
                                    ? root
                                    : pathOfNode[std::size_t(node.parent)];
      auto [it, added] = childOf.try_emplace({parentPath, op.name},
                                             std::int32_t(tree.paths.size()));
      if (added) {
        CallPath p;
        p.function = op.name;
        p.parent = parentPath;
        p.depth = tree.paths[std::size_t(parentPath)].depth + 1;
        tree.paths.push_back(p);
        tree.paths[std::size_t(parentPath)].children.push_back(it->second);
      }
      std::int32_t here = it->second;
      pathOfNode[i] = here;
      bool cpu = time == CallTime::Cpu;
      TimeNs inclusive = cpu ? node.cpu : op.end - op.start;
      TimeNs exclusive = cpu ? node.cpuExclusive : node.exclusive;
      CallPath &path = tree.paths[std::size_t(here)];
      ++path.calls;
      path.total += inclusive;
      path.self += exclusive;
      if (parentPath == root) {
        ++tree.paths[std::size_t(root)].calls;
        tree.paths[std::size_t(root)].total += inclusive;
      } else {
        const CpuOp &caller =
            model.cpuOps[t.nodes[std::size_t(node.parent)].op];
        CallEdge &edge = tree.edges[{caller.name, op.name}];
        ++edge.calls;
        edge.inclusive += inclusive;
      }
      FunctionCost &f = tree.functions[op.name];
      if (f.calls == 0) {
        f.file = op.file;
        f.line = op.line;
      }
      ++f.calls;
      f.self += exclusive;
      tree.selfTotal += exclusive;
      ++tree.calls;
    }
  }
  for (CallPath &p : tree.paths)
    std::sort(p.children.begin(), p.children.end(),
              [&tree](std::int32_t a, std::int32_t b) {
                return tree.paths[std::size_t(a)].function <
                       tree.paths[std::size_t(b)].function;
              });
  return tree;
}

} // namespace perfcc::perfctl
