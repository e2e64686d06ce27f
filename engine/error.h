// engine/error.h - the one error type the engine throws.
//
// Every failure a user can cause (a bad model folder, a malformed tokenizer
// file, an invalid option, a prompt that is too long) is reported as an
// engine::Error whose message is one line naming the input and the problem,
// e.g. "model/config.json: missing field 'head_dim'". Programs catch it at
// main(), print the message and exit with status 2; nothing else aborts.
#pragma once

#include <stdexcept>
#include <string>

namespace engine {

class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message) : std::runtime_error(message) {}
};

} // namespace engine
