// perfctl report (driver/perfctl/report) on every trace perfctl's reader
// accepts from arbitrary bytes: the analyses, the text and Markdown reports
// and the JSON one finish without a crash or an exception, and what they
// compute holds together: each device's busy and idle time fill its window,
// its idle time is host wait, launch latency and unattributed time, the
// part of the launch latency behind graph launches is no more than all of
// it, and no charge to a function exceeds the idle it was charged from.
#include "report/Analysis.h"
#include "report/JsonReport.h"
#include "report/TextReport.h"
#include "test/fuzz/fuzz_check.h"
#include "trace/TraceReader.h"

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
  if (!model)
    return 0;
  ReportOptions options;
  options.top = 3;
  TraceReport report = analyzeTrace(*model, options);
  for (const DeviceReport &d : report.devices) {
    const DeviceUsage &u = d.usage;
    const DeviceIdleAttribution &a = d.idle;
    check(u.busy >= 0 && u.idle >= 0, "negative busy or idle time");
    check(u.busy + u.idle == u.window.length(),
          "busy and idle do not fill the device's window");
    check(a.idle == u.idle, "the attribution's idle is not the device's");
    check(a.hostWait >= 0 && a.launchLatency >= 0 && a.unattributed >= 0,
          "a negative part of the idle time");
    check(a.hostWait + a.launchLatency + a.unattributed == a.idle,
          "host wait, launch latency and unattributed do not add up");
    check(a.graphLaunchLatency >= 0 && a.graphLaunchLatency <= a.launchLatency,
          "more launch latency behind graph launches than in all");
    for (const IdleCharge &c : a.functions)
      check(c.self >= 0 && c.self <= a.hostWait && c.inclusive >= c.self,
            "a function charged more than the host wait");
  }
  (void)renderReportDocument(*model, report, options, "fuzz",
                             ReportStyle::Text);
  (void)renderReportDocument(*model, report, options, "fuzz",
                             ReportStyle::Markdown);
  (void)reportJson(*model, report, options, "fuzz").dump();
  return 0;
}
