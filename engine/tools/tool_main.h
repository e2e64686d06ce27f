// engine/tools/tool_main.h - how every engine program reports trouble: a
// bad option or a bad input (engine::Error) is one line "<program>:
// <problem>" on stderr and exit status 2; --help exits 0; anything else is
// one "internal error" line and status 1, never an uncaught exception.
#pragma once

#include "engine/error.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

namespace engine {

/// Parses argv into app. Returns -1 when the program should go on, else its
/// exit status (0 after --help, 2 after a line naming the bad option).
inline int parse_command_line(const char *program, CLI::App &app, int argc,
                              char **argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return 2;
  }
  return -1;
}

/// Runs body() and returns its status, turning exceptions into one line.
template <class Body>
int run_reporting_errors(const char *program, Body &&body) {
  try {
    return body();
  } catch (const Error &e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return 2;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s: internal error: %s\n", program, e.what());
    return 1;
  }
}

} // namespace engine
