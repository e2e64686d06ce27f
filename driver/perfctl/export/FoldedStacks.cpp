//===- FoldedStacks.cpp - the folded-stacks export ------------------------===//
#include "export/FoldedStacks.h"

#include <fmt/format.h>

namespace perfcc::perfctl {

namespace {

/// Appends the lines of \p path and its callees; \p prefix holds the
/// frames above it.
void fold(const TraceModel &model, const CallTree &tree, std::int32_t path,
          const std::string &prefix, std::string &out) {
  const CallPath &p = tree.paths[std::size_t(path)];
  std::string stack =
      prefix + ";" + foldedFrame(std::string(model.name(p.function)));
  if (p.self > 0)
    out += fmt::format("{} {}\n", stack, p.self);
  for (std::int32_t child : p.children)
    fold(model, tree, child, stack, out);
}

} // namespace

std::string foldedFrame(std::string name) {
  for (char &c : name)
    if (c == ';' || c == '\n' || c == '\r')
      c = ' ';
  return name;
}

std::string foldedStacks(const TraceModel &model, const CallTree &tree) {
  std::string out;
  for (std::size_t r = 0; r < tree.roots.size(); ++r) {
    std::string root = foldedFrame(tree.rootLabels[r]);
    for (std::int32_t child : tree.paths[std::size_t(tree.roots[r])].children)
      fold(model, tree, child, root, out);
  }
  return out;
}

} // namespace perfcc::perfctl
