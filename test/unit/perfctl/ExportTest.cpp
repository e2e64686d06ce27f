//===- ExportTest.cpp - perfctl export's call tree and its formats --------===//
//
// A synthetic trace whose call tree is known to the nanosecond: the main
// thread's outer() calls inner() twice and rec(), which recurses twice; a
// second thread, named with a ';', calls inner() and a function whose name
// needs escaping. The call tree, the folded stacks and the callgrind file
// are checked whole, the pprof profile decoded field by field; the flame
// graph's frames, widths and escaping; frames too narrow to see are left out
// and counted; several processes' threads are told apart by pid.
//
//===----------------------------------------------------------------------===//
#include "export/CallTree.h"
#include "export/Callgrind.h"
#include "export/FlameGraph.h"
#include "export/FoldedStacks.h"
#include "export/Pprof.h"
#include "trace/TraceReader.h"

#include "ParsedTrace.h"
#include "TraceBuilder.h"

#include <gtest/gtest.h>

#include "profile.pb.h"

#include <google/protobuf/io/gzip_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <fmt/format.h>

#include <map>
#include <regex>

using namespace perfcc::perfctl;
using perfcc::perfctl::test::parsedTrace;
using perfcc::perfctl::test::TraceBuilder;

namespace {

TraceBuilder knownTree() {
  TraceBuilder b;
  const std::int64_t main = TraceBuilder::MainTid;
  b.threadName(TraceBuilder::HostPid, main, "main-thread")
      .threadName(TraceBuilder::HostPid, 7, "w;x")
      .cpuOp("outer", main, 0, 1000)
      .cpuOp("inner", main, 100, 300)
      .cpuOp("inner", main, 400, 500)
      .cpuOp("rec", main, 600, 900)
      .cpuOp("rec", main, 650, 850)
      .cpuOp("rec", main, 700, 800)
      .cpuOp("inner", 7, 0, 50)
      .cpuOp("a<b>", 7, 60, 80);
  return b;
}

std::size_t count(const std::string &text, const std::string &what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + 1))
    ++n;
  return n;
}

} // namespace

TEST(CallTree, MergesCallsByPathWithSelfTimeAndEdges) {
  TraceModel model = parsedTrace(knownTree().text());
  CallTree tree = buildCallTree(model);
  EXPECT_EQ(tree.calls, 8u);
  EXPECT_EQ(tree.selfTotal, 1070);
  ASSERT_EQ(tree.roots.size(), 2u);
  EXPECT_EQ(tree.rootLabels[0], "w;x (tid 7)"); // threads by id
  EXPECT_EQ(tree.rootLabels[1], "main-thread (tid 4242)");
  EXPECT_EQ(tree.paths[std::size_t(tree.roots[1])].total, 1000);
  const FunctionCost &rec = tree.functions.at(model.find("rec"));
  EXPECT_EQ(rec.calls, 3u);
  EXPECT_EQ(rec.self, 300);
  EXPECT_EQ(model.name(rec.file), "app.cpp");
  EXPECT_EQ(rec.line, 7);
  const CallEdge &self = tree.edges.at({model.find("rec"), model.find("rec")});
  EXPECT_EQ(self.calls, 2u);
  EXPECT_EQ(self.inclusive, 300);
  const CallEdge &inner =
      tree.edges.at({model.find("outer"), model.find("inner")});
  EXPECT_EQ(inner.calls, 2u);
  EXPECT_EQ(inner.inclusive, 300);
  // Top-level calls have no caller.
  EXPECT_EQ(tree.edges.size(), 3u);
}

TEST(CallTree, TheSameInAnyEventOrder) {
  std::string first =
      foldedStacks(parsedTrace(knownTree().text()),
                   buildCallTree(parsedTrace(knownTree().text())));
  for (unsigned seed = 1; seed <= 5; ++seed) {
    TraceModel model = parsedTrace(knownTree().shuffled(seed));
    EXPECT_EQ(foldedStacks(model, buildCallTree(model)), first) << seed;
  }
}

TEST(FoldedStacks, OneLinePerPathWithSelfTime) {
  TraceModel model = parsedTrace(knownTree().text());
  EXPECT_EQ(foldedStacks(model, buildCallTree(model)),
            "w x (tid 7);a<b> 20\n"
            "w x (tid 7);inner 50\n"
            "main-thread (tid 4242);outer 400\n"
            "main-thread (tid 4242);outer;inner 300\n"
            "main-thread (tid 4242);outer;rec 100\n"
            "main-thread (tid 4242);outer;rec;rec 100\n"
            "main-thread (tid 4242);outer;rec;rec;rec 100\n");
}

TEST(Callgrind, TheFileCallgrindWouldWrite) {
  TraceModel model = parsedTrace(knownTree().text());
  EXPECT_EQ(callgrindProfile(model, buildCallTree(model), "test"),
            "# callgrind format\n"
            "version: 1\n"
            "creator: test\n"
            "pid: 4242\n"
            "cmd: app\n"
            "positions: line\n"
            "events: ns\n"
            "\n"
            "fl=(1) app.cpp\n"
            "fn=(1) a<b>\n"
            "7 20\n"
            "\n"
            "fl=(1)\n"
            "fn=(2) inner\n"
            "7 350\n"
            "\n"
            "fl=(1)\n"
            "fn=(3) outer\n"
            "7 400\n"
            "cfn=(2)\n"
            "calls=2 7\n"
            "7 300\n"
            "cfn=(4) rec\n"
            "calls=1 7\n"
            "7 300\n"
            "\n"
            "fl=(1)\n"
            "fn=(4)\n"
            "7 300\n"
            "cfn=(4)\n"
            "calls=2 7\n"
            "7 300\n"
            "\n"
            "totals: 1070\n");
}

TEST(FlameGraph, AFramePerPathAsWideAsItsTotal) {
  TraceModel model = parsedTrace(knownTree().text());
  std::string svg = flameGraphSvg(model, buildCallTree(model), "app & co");
  // all, two threads, seven paths.
  EXPECT_EQ(count(svg, "<g class=\"f\""), 10u);
  EXPECT_NE(
      svg.find("data-x=\"0\" data-w=\"1070\" data-d=\"0\" data-n=\"all\""),
      std::string::npos);
  // The main thread's root starts where the first thread's 70 ns end, and
  // its outer() is 1000/1070 of 1200 px wide.
  EXPECT_NE(svg.find("data-x=\"70\" data-w=\"1000\" data-d=\"2\" "
                     "data-n=\"outer\""),
            std::string::npos);
  EXPECT_NE(svg.find("width=\"1121.50\""), std::string::npos);
  // The deepest rec() at depth 5 (all 0, thread 1).
  EXPECT_NE(svg.find("data-d=\"5\" data-n=\"rec\"><title>rec (1 call, total "
                     "100 ns, 9.35%, self 100 ns)</title>"),
            std::string::npos);
  // Names and the title escaped; no raw markup from the trace.
  EXPECT_NE(svg.find("data-n=\"a&lt;b&gt;\""), std::string::npos);
  EXPECT_EQ(svg.find("a<b>"), std::string::npos);
  EXPECT_NE(svg.find(">app &amp; co</text>"), std::string::npos);
  EXPECT_EQ(svg.find("left out"), std::string::npos);
}

TEST(FlameGraph, FramesTooNarrowToSeeAreLeftOutAndCounted) {
  TraceBuilder b;
  b.cpuOp("long", 1, 0, 10000000).cpuOp("blink", 1, 5, 6);
  TraceModel model = parsedTrace(b.text());
  std::string svg = flameGraphSvg(model, buildCallTree(model), "t");
  EXPECT_EQ(svg.find("data-n=\"blink\""), std::string::npos);
  EXPECT_NE(svg.find("1 frames under 0.1 px left out"), std::string::npos);
}

TEST(CallTree, ThreadsOfSeveralProcessesAreNamedByPid) {
  TraceBuilder b;
  b.cpuOp("f", 1, 0, 10);
  b.events.back()[perfcc::schema::trace::Pid] = 11;
  b.cpuOp("f", 1, 0, 10);
  b.events.back()[perfcc::schema::trace::Pid] = 22;
  TraceModel model = parsedTrace(b.text());
  CallTree tree = buildCallTree(model);
  ASSERT_EQ(tree.rootLabels.size(), 2u);
  EXPECT_EQ(tree.rootLabels[0], "thread (pid 11 tid 1)");
  EXPECT_EQ(tree.rootLabels[1], "thread (pid 22 tid 1)");
}

TEST(FoldedStacks, FramesCannotBreakTheFormat) {
  EXPECT_EQ(foldedFrame("a;b\nc\rd"), "a b c d");
  EXPECT_EQ(xmlEscaped("<'&\">\x01"), "&lt;&apos;&amp;&quot;&gt; ");
}

TEST(Pprof, OneSamplePerPathWithCallsAndSelfTimeLeafFirst) {
  TraceModel model = parsedTrace(knownTree().text());
  std::string bytes = pprofProfile(model, buildCallTree(model), "a comment");
  ASSERT_GE(bytes.size(), 2u);
  EXPECT_EQ(std::uint8_t(bytes[0]), 0x1f); // gzip, as pprof writes it
  EXPECT_EQ(std::uint8_t(bytes[1]), 0x8b);
  google::protobuf::io::ArrayInputStream raw(bytes.data(), int(bytes.size()));
  google::protobuf::io::GzipInputStream gzip(&raw);
  perftools::profiles::Profile p;
  ASSERT_TRUE(p.ParseFromZeroCopyStream(&gzip));
  auto str = [&p](std::int64_t i) { return p.string_table(int(i)); };
  ASSERT_GT(p.string_table_size(), 0);
  EXPECT_EQ(p.string_table(0), ""); // the format requires it
  ASSERT_EQ(p.sample_type_size(), 2);
  EXPECT_EQ(str(p.sample_type(0).type()) + "/" + str(p.sample_type(0).unit()),
            "calls/count");
  EXPECT_EQ(str(p.sample_type(1).type()) + "/" + str(p.sample_type(1).unit()),
            "wall/nanoseconds");
  EXPECT_EQ(str(p.default_sample_type()), "wall");
  ASSERT_EQ(p.comment_size(), 1);
  EXPECT_EQ(str(p.comment(0)), "a comment");
  EXPECT_EQ(p.duration_nanos(), 1000);
  ASSERT_EQ(p.mapping_size(), 1);
  EXPECT_EQ(str(p.mapping(0).filename()), "app");
  EXPECT_TRUE(p.mapping(0).has_functions());

  // Functions and their locations, by id.
  std::map<std::uint64_t, std::string> names;
  for (const auto &f : p.function()) {
    names[f.id()] = str(f.name());
    EXPECT_EQ(str(f.filename()), "app.cpp");
    EXPECT_EQ(f.start_line(), 7);
  }
  std::map<std::uint64_t, std::string> at;
  for (const auto &l : p.location()) {
    ASSERT_EQ(l.line_size(), 1);
    EXPECT_EQ(l.mapping_id(), 1u);
    at[l.id()] = names.at(l.line(0).function_id());
  }
  EXPECT_EQ(at.size(), 4u);

  // Each sample as "thread|leaf;...;outermost calls self".
  std::vector<std::string> samples;
  for (const auto &s : p.sample()) {
    std::string stack;
    for (std::uint64_t id : s.location_id())
      stack += (stack.empty() ? "" : ";") + at.at(id);
    ASSERT_EQ(s.value_size(), 2);
    ASSERT_EQ(s.label_size(), 1);
    EXPECT_EQ(str(s.label(0).key()), "thread");
    samples.push_back(fmt::format("{}|{} {} {}", str(s.label(0).str()), stack,
                                  s.value(0), s.value(1)));
  }
  EXPECT_EQ(samples, (std::vector<std::string>{
                         "w;x (tid 7)|a<b> 1 20",
                         "w;x (tid 7)|inner 1 50",
                         "main-thread (tid 4242)|outer 1 400",
                         "main-thread (tid 4242)|inner;outer 2 300",
                         "main-thread (tid 4242)|rec;outer 1 100",
                         "main-thread (tid 4242)|rec;rec;outer 1 100",
                         "main-thread (tid 4242)|rec;rec;rec;outer 1 100",
                     }));
}

TEST(CallTree, InCpuTimeSelfIsLessTheCalleesCpu) {
  // outer: 1000 ns wall, 600 of CPU; its inner calls: 200 wall with 150
  // CPU, and 100 wall asleep (10 CPU); a call without tdur counts none.
  TraceBuilder b;
  const std::int64_t main = TraceBuilder::MainTid;
  b.cpuOp("outer", main, 0, 1000, 600)
      .cpuOp("inner", main, 100, 300, 150)
      .cpuOp("inner", main, 400, 500, 10)
      .cpuOp("leaf", main, 600, 700);
  TraceModel model = parsedTrace(b.text());
  EXPECT_TRUE(model.hasCpuTime());
  CallTree cpu = buildCallTree(model, CallTime::Cpu);
  EXPECT_EQ(cpu.time, CallTime::Cpu);
  EXPECT_EQ(cpu.functions.at(model.find("outer")).self, 600 - 160);
  EXPECT_EQ(cpu.functions.at(model.find("inner")).self, 160);
  EXPECT_EQ(cpu.functions.at(model.find("leaf")).self, 0);
  EXPECT_EQ(cpu.selfTotal, 600);
  EXPECT_EQ(cpu.edges.at({model.find("outer"), model.find("inner")}).inclusive,
            160);
  EXPECT_EQ(foldedStacks(model, cpu), "thread (tid 4242);outer 440\n"
                                      "thread (tid 4242);outer;inner 160\n");
  // The wall-time tree of the same trace is unchanged.
  EXPECT_EQ(buildCallTree(model).selfTotal, 1000);
  EXPECT_NE(callgrindProfile(model, cpu, "t").find("events: cpu_ns"),
            std::string::npos);
  EXPECT_FALSE(parsedTrace(knownTree().text()).hasCpuTime());
}
