//===- ParsedTrace.h - a test trace read into the model ---------*- C++ -*-===//
//
// The text of a trace the test expects perfctl's reader to accept (a
// TraceBuilder's, usually), read into a TraceModel; a refusal fails the
// test with the reader's message and gives an empty model.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_TEST_UNIT_PERFCTL_PARSEDTRACE_H
#define PERFCC_TEST_UNIT_PERFCTL_PARSEDTRACE_H

#include "trace/TraceReader.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>

namespace perfcc::perfctl::test {

inline TraceModel parsedTrace(const std::string &text) {
  std::string error;
  std::optional<TraceModel> model = parseTrace(text, error);
  EXPECT_TRUE(model.has_value()) << error;
  return model ? std::move(*model) : TraceModel{};
}

} // namespace perfcc::perfctl::test

#endif // PERFCC_TEST_UNIT_PERFCTL_PARSEDTRACE_H
