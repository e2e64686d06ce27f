// engine/env_switch.h - an on/off setting read from the environment.
#pragma once

#include <string>

namespace engine {

/// The variable `name`: unset, `fallback`; "0" off, "1" on; anything else
/// (the empty string too) throws engine::Error "engine: NAME=VALUE: must be
/// " + `meaning` (what 0 and 1 do), so a mistyped setting is never ignored.
bool env_switch(const char *name, bool fallback, const std::string &meaning);

} // namespace engine
