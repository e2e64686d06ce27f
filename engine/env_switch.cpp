// engine/env_switch.cpp - see env_switch.h.
#include "engine/env_switch.h"

#include "engine/error.h"

#include <cstdlib>

namespace engine {

bool env_switch(const char *name, bool fallback, const std::string &meaning) {
  const char *v = std::getenv(name);
  if (!v)
    return fallback;
  const std::string s = v;
  if (s != "0" && s != "1")
    throw Error("engine: " + std::string(name) + "=" + s + ": must be " +
                meaning);
  return s == "1";
}

} // namespace engine
