//===- Table.h - the text and Markdown forms of one report ------*- C++ -*-===//
//
// The report's text and Markdown renderings say the same things in the same
// order; only the markup differs. A Document collects sections, sentences,
// list items and tables, and writes them as aligned plain text (titles as
// they are, tables indented two spaces, numbers right-aligned) or as
// GitHub Markdown (## titles, "- " items, pipe tables with code spans for
// names, '|' escaped).
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_REPORT_TABLE_H
#define PERFCC_DRIVER_PERFCTL_REPORT_TABLE_H

#include <string>
#include <vector>

namespace perfcc::perfctl {

enum class ReportStyle { Text, Markdown };

/// Rows of cells under a header. Column 0 is left-aligned, the rest right-
/// aligned; columns flagged as names are code spans in Markdown.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> nameColumns; ///< per column; missing: false
};

class Document {
public:
  explicit Document(ReportStyle style) : style(style) {}
  /// A section title; \p top: the document's own (# in Markdown).
  void title(const std::string &text, bool top = false);
  /// A subsection title.
  void subtitle(const std::string &text);
  /// A sentence on its own line.
  void line(const std::string &text);
  /// An item of a list.
  void item(const std::string &text);
  void table(const Table &table);
  std::string str() const { return out; }
  ReportStyle style;

private:
  std::string out;
  bool inList = false;
  void endList();
};

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_REPORT_TABLE_H
