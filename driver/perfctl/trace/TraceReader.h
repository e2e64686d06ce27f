//===- TraceReader.h - reads a perfcc trace into the model ------*- C++ -*-===//
//-*-===//
//
// Parses the Chrome Trace Event Format as perfcc's runtime writes it (the
// object form {"traceEvents": [...], "displayTimeUnit": "ns", "metadata":
// {...}}; the bare array form is read too) into a TraceModel, every key
// spelled through perfcc/OutputSchema.h.
//
// Timestamps are microseconds with the nanoseconds as three decimals
// ("ts":12345.678). They are read from the number's text, not through a
// double, so a CLOCK_MONOTONIC time of a machine up for months still comes
// out to the exact nanosecond; more decimals are rounded to the nearest
// nanosecond.
//
// The file is read as a stream of JSON tokens (nlohmann's SAX interface):
// each event is converted as soon as it is complete and then dropped, so a
// large trace never exists twice in memory. A file that is not JSON, stops
// in the middle (a run killed while writing it), or is JSON but not a trace
// is an error of one phrase; events the model has no place for are counted,
// not errors (TraceModel::issues).
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_TRACE_TRACEREADER_H
#define PERFCC_DRIVER_PERFCTL_TRACE_TRACEREADER_H

#include "trace/TraceModel.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace perfcc::perfctl {

/// Parses \p text, a whole trace, into a canonicalized model. On failure
/// returns nullopt and sets \p error to the problem, without a file name
/// ("truncated at byte 812 of 812: ...", "malformed JSON at byte 3: ...",
/// "not a Chrome trace: ...").
std::optional<TraceModel> parseTrace(std::string_view text, std::string &error);

/// Reads and parses the file \p path. Errors as parseTrace's, and "cannot
/// read: REASON" when the file cannot be read, "empty file" when it is.
std::optional<TraceModel> readTraceFile(const std::string &path,
                                        std::string &error);

/// Receives each event of a streamed trace, once complete: a JSON value of
/// the events array (an object, unless the file is malformed), with its ts
/// and dur already integer nanoseconds.
using TraceEventSink = std::function<void(const nlohmann::json &)>;

/// Reads \p text event by event for a caller that keeps its own form of the
/// events (perfctl merge): each goes to \p sink as it completes and is then
/// dropped; \p rest receives the document without them (the metadata, an
/// empty event list). False, with \p error as parseTrace's, when the text is
/// not a whole trace; the sink may have seen events before the problem.
bool streamTrace(std::string_view text, const TraceEventSink &sink,
                 nlohmann::json &rest, std::string &error);

/// streamTrace over the file \p path, with readTraceFile's errors.
bool streamTraceFile(const std::string &path, const TraceEventSink &sink,
                     nlohmann::json &rest, std::string &error);

/// A Chrome trace time, microseconds as JSON number text ("12345.678",
/// "12", "-0.5", "1.2e3"), in whole nanoseconds, rounded half away from
/// zero. Nullopt when \p text is not a number or does not fit.
std::optional<TimeNs> microsToNs(std::string_view text);

/// The inverse: nanoseconds as the runtime writes a trace time, microseconds
/// with three decimals ("12345.678", "-0.500"), exact. Inline, so that
/// what writes traces without reading them (spill recovery) needs no more.
inline std::string nsToMicros(TimeNs ns) {
  std::uint64_t magnitude =
      ns < 0 ? std::uint64_t(-(ns + 1)) + 1 : std::uint64_t(ns);
  return fmt::format("{}{}.{:03}", ns < 0 ? "-" : "", magnitude / 1000,
                     magnitude % 1000);
}

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_TRACE_TRACEREADER_H
