// The runtime's JSON formatter: exact microsecond decimals and escaping.
#include "perfrt_json.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using namespace perfrt;

namespace {

std::string render(void (*fill)(JsonOut &)) {
  FILE *file = std::tmpfile();
  EXPECT_NE(file, nullptr);
  static JsonOut out; // 64 KiB buffer: not on the stack
  out.setFd(fileno(file));
  fill(out);
  out.flush();
  out.setFd(-1);
  std::string text;
  std::rewind(file);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, file)) > 0)
    text.append(buf, n);
  std::fclose(file);
  return text;
}

TEST(JsonOut, MicrosKeepNanosecondsAsThreeDecimals) {
  EXPECT_EQ(render([](JsonOut &o) { o.micros(0); }), "0.000");
  EXPECT_EQ(render([](JsonOut &o) { o.micros(7); }), "0.007");
  EXPECT_EQ(render([](JsonOut &o) { o.micros(1234567); }), "1234.567");
  EXPECT_EQ(render([](JsonOut &o) { o.micros(8000000000123456ull); }),
            "8000000000123.456");
}

TEST(JsonOut, StringsAreEscaped) {
  EXPECT_EQ(render([](JsonOut &o) { o.str("a\"b\\c\n\x01"); }),
            "\"a\\\"b\\\\c\\u000a\\u0001\"");
  EXPECT_EQ(render([](JsonOut &o) { o.str("ns::f<int>"); }), "\"ns::f<int>\"");
}

TEST(JsonOut, LargeOutputIsWrittenWhole) {
  std::string s = render([](JsonOut &o) {
    for (int i = 0; i < 1000; ++i)
      o.u64(1234567890);
  });
  EXPECT_EQ(s.size(), 10000u);
}

} // namespace
