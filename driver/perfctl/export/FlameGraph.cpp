//===- FlameGraph.cpp - the interactive SVG flame graph -------------------===//
#include "export/FlameGraph.h"

#include "report/Units.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

namespace perfcc::perfctl {

namespace {

constexpr double SidePx = 10, TopPx = 60, BottomPx = 10;
constexpr double CharWidthPx = 7.2; // 12 px monospace

/// A warm color from the name alone, so a function has the same color in
/// every graph.
std::string colorOf(std::string_view name) {
  std::uint64_t h = 1469598103934665603ull; // FNV-1a
  for (unsigned char c : name)
    h = (h ^ c) * 1099511628211ull;
  unsigned r = 205 + unsigned(h % 50), g = unsigned((h >> 8) % 230),
           b = unsigned((h >> 16) % 55);
  return fmt::format("rgb({},{},{})", r, g, b);
}

/// The label that fits \p widthPx, or "" when not even "ab.." would.
std::string labelFor(const std::string &name, double widthPx) {
  auto fits = std::size_t(std::max(0.0, (widthPx - 6) / CharWidthPx));
  if (fits < 3)
    return "";
  if (name.size() <= fits)
    return name;
  return name.substr(0, fits - 2) + "..";
}

struct Layout {
  const TraceModel *model;
  const CallTree *tree;
  double pxPerNs = 0;
  double heightPx = 0;
  TimeNs all = 0;
  std::uint64_t omitted = 0;
  std::string frames;
};

void frame(Layout &l, const std::string &name, std::uint64_t calls,
           TimeNs total, TimeNs self, TimeNs x, std::uint32_t depth) {
  double w = double(total) * l.pxPerNs;
  double px = SidePx + double(x) * l.pxPerNs;
  double py = l.heightPx - BottomPx - double(depth + 1) * FrameHeightPx;
  std::string title =
      fmt::format("{} ({} call{}, total {}, {:.2f}%, self {})", name, calls,
                  calls == 1 ? "" : "s", humanNs(double(total)),
                  l.all ? 100.0 * double(total) / double(l.all) : 0.0,
                  humanNs(double(self)));
  l.frames += fmt::format(
      "<g class=\"f\" data-x=\"{}\" data-w=\"{}\" data-d=\"{}\" "
      "data-n=\"{}\"><title>{}</title>"
      "<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" "
      "fill=\"{}\" rx=\"2\"/><text x=\"{:.2f}\" y=\"{:.1f}\">{}</text></g>\n",
      x, total, depth, xmlEscaped(name), xmlEscaped(title), px, py, w,
      FrameHeightPx - 1, colorOf(name), px + 3, py + FrameHeightPx - 4.5,
      xmlEscaped(labelFor(name, w)));
}

/// Draws \p path at \p x and its callees above it.
void drawPath(Layout &l, std::int32_t path, TimeNs x) {
  const CallPath &p = l.tree->paths[std::size_t(path)];
  if (double(p.total) * l.pxPerNs < MinFrameWidthPx) {
    ++l.omitted;
    return;
  }
  frame(l, std::string(l.model->name(p.function)), p.calls, p.total, p.self, x,
        p.depth + 1);
  for (std::int32_t child : p.children) {
    drawPath(l, child, x);
    x += l.tree->paths[std::size_t(child)].total;
  }
}

// Zoom: every frame keeps its position in nanoseconds (data-x, data-w) and
// depth (data-d); a click recomputes x and width of each against the
// clicked frame's range, hides what lies outside it, and stretches its
// callers across the whole width.
constexpr const char *ZoomScript = R"JS(
var W = %WIDTH%, SIDE = %SIDE%, CHAR = %CHAR%;
function frames() { return document.querySelectorAll('g.f'); }
function label(g, w) {
  var name = g.dataset.n;
  var fits = Math.floor((w - 6) / CHAR);
  if (fits < 3) return '';
  return name.length <= fits ? name : name.substring(0, fits - 2) + '..';
}
function place(g, x, w) {
  var r = g.querySelector('rect'), t = g.querySelector('text');
  r.setAttribute('x', x.toFixed(2)); r.setAttribute('width', w.toFixed(2));
  t.setAttribute('x', (x + 3).toFixed(2)); t.textContent = label(g, w);
  g.style.display = '';
}
function zoom(target) {
  var x0 = +target.dataset.x, w0 = +target.dataset.w, d0 = +target.dataset.d;
  var scale = W / w0;
  frames().forEach(function (g) {
    var x = +g.dataset.x, w = +g.dataset.w, d = +g.dataset.d;
    if (d < d0 && x <= x0 && x + w >= x0 + w0) place(g, SIDE, W);
    else if (d >= d0 && x >= x0 && x + w <= x0 + w0)
      place(g, SIDE + (x - x0) * scale, w * scale);
    else g.style.display = 'none';
  });
  document.getElementById('reset').style.display = d0 > 0 ? '' : 'none';
}
frames().forEach(function (g) {
  g.addEventListener('click', function () { zoom(g); });
});
document.getElementById('reset').addEventListener('click', function () {
  zoom(document.querySelector('g.f[data-d="0"]'));
});
)JS";

std::string replaced(std::string text, const std::string &what,
                     const std::string &with) {
  for (std::size_t at; (at = text.find(what)) != std::string::npos;)
    text.replace(at, what.size(), with);
  return text;
}

} // namespace

std::string xmlEscaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&apos;";
      break;
    default:
      // XML 1.0 has no place for other control characters.
      out += (static_cast<unsigned char>(c) < 0x20 && c != '\t') ? ' ' : c;
    }
  }
  return out;
}

std::string flameGraphSvg(const TraceModel &model, const CallTree &tree,
                          const std::string &title) {
  Layout l;
  l.model = &model;
  l.tree = &tree;
  std::uint32_t depth = 0;
  for (std::int32_t root : tree.roots)
    l.all += tree.paths[std::size_t(root)].total;
  for (const CallPath &p : tree.paths)
    depth = std::max(depth, p.depth);
  l.pxPerNs = l.all ? FlameGraphWidthPx / double(l.all) : 0;
  l.heightPx = TopPx + BottomPx + double(depth + 2) * FrameHeightPx;
  frame(l, "all", tree.calls, l.all, 0, 0, 0);
  TimeNs x = 0;
  for (std::size_t r = 0; r < tree.roots.size(); ++r) {
    const CallPath &root = tree.paths[std::size_t(tree.roots[r])];
    if (double(root.total) * l.pxPerNs < MinFrameWidthPx) {
      ++l.omitted;
    } else {
      frame(l, tree.rootLabels[r], root.calls, root.total, 0, x, 1);
      TimeNs cx = x;
      for (std::int32_t child : root.children) {
        drawPath(l, child, cx);
        cx += tree.paths[std::size_t(child)].total;
      }
    }
    x += root.total;
  }
  double width = FlameGraphWidthPx + 2 * SidePx;
  std::string script =
      replaced(ZoomScript, "%WIDTH%", fmt::format("{}", FlameGraphWidthPx));
  script = replaced(script, "%SIDE%", fmt::format("{}", SidePx));
  script = replaced(script, "%CHAR%", fmt::format("{}", CharWidthPx));
  std::string subtitle = fmt::format(
      "{} time of every call in the trace: {} calls, {} in calls{}; width "
      "is total time, click a frame to zoom",
      callTimeName(tree.time), tree.calls, humanNs(double(l.all)),
      l.omitted ? fmt::format(", {} frames under {} px left out", l.omitted,
                              MinFrameWidthPx)
                : "");
  return fmt::format(
      "<?xml version=\"1.0\" standalone=\"no\"?>\n"
      "<svg version=\"1.1\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
      "viewBox=\"0 0 {0:.0f} {1:.0f}\" xmlns=\"http://www.w3.org/2000/svg\">\n"
      "<style>text {{ font-family: monospace; font-size: 12px; "
      "pointer-events: none; }} g.f {{ cursor: pointer; }} "
      "g.f:hover rect {{ stroke: black; stroke-width: 0.5; }} "
      "#reset {{ cursor: pointer; fill: blue; }}</style>\n"
      "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" "
      "fill=\"#f8f8f0\"/>\n"
      "<text x=\"{2:.0f}\" y=\"22\" text-anchor=\"middle\" "
      "style=\"font-size: 16px\">{3}</text>\n"
      "<text x=\"{2:.0f}\" y=\"40\" text-anchor=\"middle\">{4}</text>\n"
      "<text id=\"reset\" x=\"{5:.0f}\" y=\"22\" style=\"display: none; "
      "pointer-events: auto\">Reset zoom</text>\n"
      "{6}<script type=\"text/ecmascript\"><![CDATA[{7}]]></script>\n"
      "</svg>\n",
      width, l.heightPx, width / 2, xmlEscaped(title), xmlEscaped(subtitle),
      SidePx, l.frames, script);
}

} // namespace perfcc::perfctl
