//===- Table.cpp - the text and Markdown forms of one report --------------===//
#include "report/Table.h"

#include <algorithm>

namespace perfcc::perfctl {

namespace {

std::string markdownCell(const std::string &text, bool name) {
  std::string escaped;
  for (char c : text) {
    if (c == '|')
      escaped += '\\';
    escaped += c;
  }
  if (!name || text.empty() || text.front() == '(')
    return escaped;
  // A code span needs a fence longer than any run of backticks inside.
  std::size_t run = 0, longest = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string fence(longest + 1, '`');
  return fence + (longest ? " " : "") + escaped + (longest ? " " : "") + fence;
}

} // namespace

void Document::endList() {
  if (inList && style == ReportStyle::Markdown)
    out += "\n";
  inList = false;
}

void Document::title(const std::string &text, bool top) {
  endList();
  // One blank line before a title, however the block above ended.
  if (!out.empty() &&
      out.compare(out.size() - std::min<std::size_t>(2, out.size()), 2,
                  "\n\n") != 0)
    out += "\n";
  if (style == ReportStyle::Markdown)
    out += (top ? "# " : "## ") + text + "\n\n";
  else
    out += text + "\n";
}

void Document::subtitle(const std::string &text) {
  endList();
  if (style == ReportStyle::Markdown)
    out += "### " + text + "\n\n";
  else
    out += "  " + text + "\n";
}

void Document::line(const std::string &text) {
  endList();
  out += style == ReportStyle::Markdown ? text + "\n\n" : "  " + text + "\n";
}

void Document::item(const std::string &text) {
  inList = true;
  out +=
      style == ReportStyle::Markdown ? "- " + text + "\n" : "  " + text + "\n";
}

void Document::table(const Table &t) {
  endList();
  std::size_t columns = t.header.size();
  auto isName = [&](std::size_t c) {
    return c < t.nameColumns.size() && t.nameColumns[c];
  };
  if (style == ReportStyle::Markdown) {
    auto row = [&](const std::vector<std::string> &cells, bool header) {
      out += "|";
      for (std::size_t c = 0; c < columns; ++c) {
        std::string cell = c < cells.size() ? cells[c] : "";
        out += " " + markdownCell(cell, !header && isName(c)) + " |";
      }
      out += "\n";
    };
    row(t.header, true);
    out += "|";
    for (std::size_t c = 0; c < columns; ++c)
      out += c == 0 ? " --- |" : " ---: |";
    out += "\n";
    for (const auto &r : t.rows)
      row(r, false);
    out += "\n";
    return;
  }
  std::vector<std::size_t> width(columns, 0);
  auto measure = [&](const std::vector<std::string> &cells) {
    for (std::size_t c = 0; c < columns && c < cells.size(); ++c)
      width[c] = std::max(width[c], cells[c].size());
  };
  measure(t.header);
  for (const auto &r : t.rows)
    measure(r);
  auto row = [&](const std::vector<std::string> &cells) {
    std::string line = "  ";
    for (std::size_t c = 0; c < columns; ++c) {
      std::string cell = c < cells.size() ? cells[c] : "";
      std::string pad(width[c] - cell.size(), ' ');
      if (c > 0)
        line += "  ";
      line += c == 0 ? cell + pad : pad + cell;
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out += line + "\n";
  };
  row(t.header);
  for (const auto &r : t.rows)
    row(r);
}

} // namespace perfcc::perfctl
