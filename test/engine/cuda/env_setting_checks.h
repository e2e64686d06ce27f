// test/engine/cuda/env_setting_checks.h - what every test of a CUDA
// backend setting read from the environment checks: each refused value is
// one engine::Error naming the variable, the value and what it must be.
#pragma once

#include "engine/error.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <initializer_list>
#include <string>

namespace engine::cuda {

/// For each of \p refused: with `name=value` set, read() throws
/// "engine: NAME=VALUE: must be " + \p must_be. Leaves the last value set.
template <class Read>
void expect_refused(const char *name,
                    std::initializer_list<const char *> refused, Read read,
                    const std::string &must_be) {
  for (const char *value : refused) {
    ASSERT_EQ(setenv(name, value, 1), 0);
    try {
      read();
      ADD_FAILURE() << name << "=" << value << " was accepted";
    } catch (const Error &e) {
      EXPECT_EQ(std::string(e.what()), std::string("engine: ") + name + "=" +
                                           value + ": must be " + must_be);
    }
  }
}

} // namespace engine::cuda
