// engine/sampling_params.cpp - checks a request's sampling options before it
// is queued, so the Sampler and Scheduler can rely on them.
#include "engine/sampling_params.h"

#include "engine/error.h"

#include <cmath>
#include <sstream>

namespace engine {

namespace {

template <typename T>
[[noreturn]] void fail(const char *field, const char *rule, T value) {
  std::ostringstream out;
  out << "sampling: " << field << " must be " << rule << ", got " << value;
  throw Error(out.str());
}

} // namespace

void validate(const SamplingParams &params) {
  if (!std::isfinite(params.temperature) || params.temperature < 0)
    fail("temperature", "finite and >= 0", params.temperature);
  if (params.top_k < 0)
    fail("top_k", ">= 0 (0 turns it off)", params.top_k);
  if (!(params.top_p > 0 && params.top_p <= 1))
    fail("top_p", "in (0, 1]", params.top_p);
  if (params.max_tokens < 1)
    fail("max_tokens", ">= 1", params.max_tokens);
}

} // namespace engine
