// engine/model_runner.cpp - the backend EngineConfig::device names.
#include "engine/model_runner.h"

#include "engine/cpu/cpu_model_runner.h"
#include "engine/engine_config.h"
#if ENGINE_HAVE_CUDA
#include "engine/cuda/cuda_model_runner.h"
#endif

namespace engine {

std::unique_ptr<ModelRunner> make_model_runner(const EngineConfig &config,
                                               const ModelConfig &model,
                                               const Checkpoint &checkpoint) {
  // validate() accepts only the devices this build has.
#if ENGINE_HAVE_CUDA
  if (config.device == "cuda")
    return std::make_unique<cuda::CudaModelRunner>(config, model, checkpoint);
#endif
  return std::make_unique<CpuModelRunner>(config, model, checkpoint);
}

} // namespace engine
