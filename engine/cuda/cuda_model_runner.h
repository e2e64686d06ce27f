// engine/cuda/cuda_model_runner.h - the CUDA backend behind ModelRunner: the
// Qwen3 model on one GPU, its paged KV cache sized from
// gpu_memory_utilization, sampling on the device and CUDA graphs for decode.
//
// One step: the host packs the step's inputs into pinned memory (no
// allocation), uploads them with one copy, replays the decode graph for the
// padded batch size (or launches eagerly: prefill, enforce_eager, batches
// past the ladder), and copies the sampled tokens back.
#pragma once

#include "engine/cuda/device_buffer.h"
#include "engine/cuda/qwen3_cuda_model.h"
#include "engine/cuda/step_layout.h"
#include "engine/engine_config.h"
#include "engine/forward_batch.h"
#include "engine/model_runner.h"

#include <memory>
#include <string>
#include <vector>

namespace engine::cuda {

class CudaModelRunner : public ModelRunner {
public:
  /// Throws engine::Error when there is no GPU, the model does not fit, or
  /// the KV cache would hold less than one max_model_len sequence.
  CudaModelRunner(const EngineConfig &config, const ModelConfig &model,
                  const Checkpoint &checkpoint);
  ~CudaModelRunner() override;
  std::vector<int32_t> run(const std::vector<Sequence *> &seqs,
                           bool is_prefill) override;
  int num_kv_blocks() const override { return kv_->num_blocks(); }
  std::string describe() const override;

  /// Logits of the last step, [num_seqs][vocab] (tests compare them with
  /// the CPU backend's). Synchronizes.
  std::vector<float> last_logits() const;
  /// Decode batch sizes with a captured graph (empty with enforce_eager).
  const std::vector<int> &graph_sizes() const { return graph_sizes_; }

private:
  struct GraphExecDestroy {
    void operator()(cudaGraphExec_t g) const { cudaGraphExecDestroy(g); }
  };
  struct StreamDestroy {
    void operator()(cudaStream_t s) const { cudaStreamDestroy(s); }
  };
  struct DecodeGraph {
    int size = 0;
    StepLayout layout;
    std::unique_ptr<CUgraphExec_st, GraphExecDestroy> exec;
  };
  StepInputs inputs(const StepLayout &layout, bool decode, int num_tokens,
                    int num_seqs, int max_q_len, int max_context) const;
  void upload(const StepLayout &layout);
  void sample(const StepLayout &layout, int rows);
  void profile_and_size_kv_cache(const EngineConfig &config);
  void capture_decode_graphs();

  EngineConfig config_;
  // Declared first: destroyed last, after everything that used it, and
  // also when the constructor throws.
  std::unique_ptr<CUstream_st, StreamDestroy> stream_;
  std::string device_name_;
  int table_width_ = 0, max_tokens_ = 0, max_seqs_ = 0;
  Qwen3Weights weights_;
  std::unique_ptr<Qwen3CudaModel> model_;
  std::unique_ptr<CudaKvCache> kv_;
  PinnedBuffer<uint32_t> staging_;
  DeviceBuffer<uint32_t> step_;
  PinnedBuffer<int32_t> host_tokens_;
  DeviceBuffer<int32_t> tokens_;
  // The split sampler's (split_sampling.h), allocated only when it is on.
  DeviceBuffer<float> sample_scratch_;
  DeviceBuffer<int> sample_tickets_;
  int sms_ = 0;
  ForwardBatch batch_; // reused: its vectors keep their capacity
  std::vector<int> graph_sizes_;
  std::vector<DecodeGraph> graphs_;
  int last_rows_ = 0;
};

} // namespace engine::cuda
