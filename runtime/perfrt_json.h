//===- perfrt_json.h - JSON text straight to a file descriptor ------------===//
//
// The trace and summary writers format JSON themselves into a fixed buffer
// and write(2) it: no allocation and no stdio, so the same code can run in
// the writer thread, at exit, and inside a SIGINT/SIGTERM handler.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_JSON_H
#define PERFRT_JSON_H

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace perfrt {

class JsonOut {
public:
  // No destructor on purpose: instances are static and used by the exit-time
  // flush after static destructors have run. Callers flush explicitly.
  explicit JsonOut(int fd = -1) : fd(fd) {}
  JsonOut(const JsonOut &) = delete;
  JsonOut &operator=(const JsonOut &) = delete;

  void setFd(int f) { fd = f; }
  bool failed() const { return error != 0; }
  int errorCode() const { return error; }
  uint64_t bytesWritten() const { return written + len; }

  JsonOut &raw(const char *s) { return raw(s, std::strlen(s)); }
  JsonOut &raw(const char *s, size_t n) {
    while (n) {
      if (len == sizeof buf)
        flush();
      size_t k = sizeof buf - len < n ? sizeof buf - len : n;
      std::memcpy(buf + len, s, k);
      len += k;
      s += k;
      n -= k;
    }
    return *this;
  }
  JsonOut &ch(char c) { return raw(&c, 1); }

  /// A JSON string literal, quotes included.
  JsonOut &str(const char *s) {
    ch('"');
    for (; *s; ++s) {
      unsigned char c = static_cast<unsigned char>(*s);
      if (c == '"' || c == '\\') {
        ch('\\');
        ch(char(c));
      } else if (c < 0x20) {
        char esc[8];
        static const char hex[] = "0123456789abcdef";
        esc[0] = '\\';
        esc[1] = 'u';
        esc[2] = '0';
        esc[3] = '0';
        esc[4] = hex[c >> 4];
        esc[5] = hex[c & 15];
        raw(esc, 6);
      } else {
        ch(char(c));
      }
    }
    return ch('"');
  }

  JsonOut &u64(uint64_t v) {
    char tmp[24];
    int i = sizeof tmp;
    do {
      tmp[--i] = char('0' + v % 10);
      v /= 10;
    } while (v);
    return raw(tmp + i, sizeof tmp - i);
  }

  /// Nanoseconds as microseconds with three decimals: exact, no rounding.
  JsonOut &micros(uint64_t ns) {
    u64(ns / 1000);
    char frac[4] = {'.', char('0' + ns / 100 % 10), char('0' + ns / 10 % 10),
                    char('0' + ns % 10)};
    return raw(frac, 4);
  }

  JsonOut &dbl(double v) {
    char tmp[40];
    int n = std::snprintf(tmp, sizeof tmp, "%.6g", v);
    return raw(tmp, n > 0 ? size_t(n) : 0);
  }

  /// `"key":` with a comma before it unless it opens an object.
  JsonOut &key(const char *k, bool first = false) {
    if (!first)
      ch(',');
    str(k);
    return ch(':');
  }

  void flush() {
    size_t off = 0;
    while (off < len && fd >= 0 && !error) {
      ssize_t n = ::write(fd, buf + off, len - off);
      if (n < 0) {
        if (errno == EINTR)
          continue;
        error = errno;
        break;
      }
      off += size_t(n);
    }
    written += len;
    len = 0;
  }

private:
  int fd;
  int error = 0;
  size_t len = 0;
  uint64_t written = 0;
  char buf[1 << 16];
};

} // namespace perfrt

#endif // PERFRT_JSON_H
