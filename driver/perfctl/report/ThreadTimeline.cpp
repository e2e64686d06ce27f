//===- ThreadTimeline.cpp - the nesting of one thread's calls -------------===//
#include "report/ThreadTimeline.h"

#include <algorithm>

namespace perfcc::perfctl {

ThreadTimeline::ThreadTimeline(const TraceModel &model, std::size_t first,
                               std::size_t last)
    : model(&model) {
  if (first < last)
    thread = model.cpuOps[first].thread;
  nodes.reserve(last - first);
  std::vector<std::int32_t> stack;
  TimeNs cursor = first < last ? model.cpuOps[first].start : 0;
  // The innermost open call owns [cursor, t).
  auto ownUntil = [&](TimeNs t, std::int32_t node) {
    if (t > cursor) {
      segments.push_back(Segment{cursor, t, node});
      cursor = t;
    }
  };
  auto opOf = [&](std::int32_t node) -> const CpuOp & {
    return model.cpuOps[nodes[std::size_t(node)].op];
  };
  for (std::size_t i = first; i < last; ++i) {
    const CpuOp &op = model.cpuOps[i];
    while (!stack.empty()) {
      const CpuOp &top = opOf(stack.back());
      if (op.start >= top.start && op.end <= top.end)
        break; // a child of the top
      if (top.end <= op.start) {
        ownUntil(top.end, stack.back());
      } else {
        // Starts inside the top, ends after it: cannot nest.
        ++improperlyNested;
        ownUntil(op.start, stack.back());
      }
      stack.pop_back();
    }
    ownUntil(op.start, stack.empty() ? -1 : stack.back());
    Node node;
    node.op = i;
    node.parent = stack.empty() ? -1 : stack.back();
    nodes.push_back(node);
    stack.push_back(std::int32_t(nodes.size() - 1));
  }
  while (!stack.empty()) {
    ownUntil(opOf(stack.back()).end, stack.back());
    stack.pop_back();
  }
  for (const Segment &s : segments)
    if (s.node >= 0)
      nodes[std::size_t(s.node)].exclusive += s.end - s.start;
  // CPU times: a parent comes before its children, so a pass backwards
  // finishes every child before its parent takes its CPU time off.
  std::vector<TimeNs> childCpu(nodes.size(), 0);
  for (Node &node : nodes) {
    std::int64_t cpu = model.cpuOps[node.op].cpuNs;
    node.cpu = cpu == NoValue ? 0 : cpu;
  }
  for (std::size_t i = nodes.size(); i-- > 0;) {
    Node &node = nodes[i];
    node.cpuExclusive = node.cpu > childCpu[i] ? node.cpu - childCpu[i] : 0;
    if (node.parent >= 0)
      childCpu[std::size_t(node.parent)] += node.cpu;
  }
}

std::int32_t ThreadTimeline::innermostContaining(TimeNs start,
                                                 TimeNs end) const {
  auto it =
      std::upper_bound(segments.begin(), segments.end(), start,
                       [](TimeNs t, const Segment &s) { return t < s.start; });
  if (it == segments.begin())
    return -1;
  --it;
  if (start >= it->end)
    return -1;
  std::int32_t node = it->node;
  while (node >= 0) {
    const CpuOp &op = model->cpuOps[nodes[std::size_t(node)].op];
    if (op.start <= start && end <= op.end)
      return node;
    node = nodes[std::size_t(node)].parent;
  }
  return -1;
}

void ThreadTimeline::charge(TimeNs start, TimeNs end,
                            std::map<NameId, Charge> &out) const {
  if (end <= start)
    return;
  TimeNs inside = 0;
  auto it =
      std::upper_bound(segments.begin(), segments.end(), start,
                       [](TimeNs t, const Segment &s) { return t < s.start; });
  if (it != segments.begin())
    --it;
  std::vector<NameId> stackNames;
  for (; it != segments.end() && it->start < end; ++it) {
    TimeNs length = std::min(it->end, end) - std::max(it->start, start);
    if (length <= 0 || it->node < 0)
      continue;
    inside += length;
    stackNames.clear();
    for (std::int32_t n = it->node; n >= 0; n = nodes[std::size_t(n)].parent) {
      NameId name = model->cpuOps[nodes[std::size_t(n)].op].name;
      if (n == it->node)
        out[name].self += length;
      // A recursive function is on the stack once for this instant.
      if (std::find(stackNames.begin(), stackNames.end(), name) ==
          stackNames.end()) {
        stackNames.push_back(name);
        out[name].inclusive += length;
      }
    }
  }
  TimeNs outside = (end - start) - inside;
  if (outside > 0) {
    out[NoName].self += outside;
    out[NoName].inclusive += outside;
  }
}

HostTimelines::HostTimelines(const TraceModel &model) {
  std::size_t first = 0;
  for (std::size_t i = 1; i <= model.cpuOps.size(); ++i)
    if (i == model.cpuOps.size() ||
        !(model.cpuOps[i].thread == model.cpuOps[first].thread)) {
      timelines.emplace_back(model, first, i);
      first = i;
    }
}

const ThreadTimeline *HostTimelines::find(const ThreadRef &thread) const {
  auto it = std::lower_bound(
      timelines.begin(), timelines.end(), thread,
      [](const ThreadTimeline &t, const ThreadRef &r) { return t.thread < r; });
  return it != timelines.end() && it->thread == thread ? &*it : nullptr;
}

} // namespace perfcc::perfctl
