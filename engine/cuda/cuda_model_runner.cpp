// engine/cuda/cuda_model_runner.cpp - the CUDA backend's setup (device,
// weights, profiling pass, KV cache, decode graphs) and its step.
#include "engine/cuda/cuda_model_runner.h"

#include "engine/cuda/dependent_launch.h"
#include "engine/cuda/gemv_options.h"
#include "engine/cuda/graph_ladder.h"
#include "engine/cuda/kv_budget.h"
#include "engine/cuda/split_sampling.h"
#include "engine/error.h"

#include <algorithm>

namespace engine::cuda {

namespace {
/// Picks device 0, or says in one line why there is none.
std::string open_device() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0)
    throw Error(std::string("engine: device cuda: no CUDA GPU is available (") +
                (status != cudaSuccess ? cudaGetErrorString(status)
                                       : "no device found") +
                ")");
  check(cudaSetDevice(0), "selecting GPU 0");
  dependent_launch_enabled(); // a bad ENGINE_CUDA_PDL is an error here
  gemv_prefetch_enabled();    // and ENGINE_CUDA_PREFETCH,
  gemv_rows_per_group();      // ENGINE_CUDA_GEMV_ROWS
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "reading GPU 0's properties");
  return std::string(prop.name) + " (sm_" + std::to_string(prop.major) +
         std::to_string(prop.minor) + ")";
}

void reject_unsupported(const EngineConfig &c) {
  if (c.tensor_parallel_size != 1)
    throw Error("engine: tensor_parallel_size " +
                std::to_string(c.tensor_parallel_size) +
                ": the CUDA backend runs on one GPU in this build");
}
} // namespace

CudaModelRunner::CudaModelRunner(const EngineConfig &c, const ModelConfig &m,
                                 const Checkpoint &checkpoint)
    : config_(c), device_name_((reject_unsupported(c), open_device())),
      weights_(bind_qwen3_weights(m, checkpoint)) {
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
        "creating the engine's stream");
  stream_.reset(stream);
  table_width_ =
      (c.max_model_len + c.kvcache_block_size - 1) / c.kvcache_block_size;
  // A decode step of max_num_seqs sequences is max_num_seqs tokens.
  max_tokens_ = std::max(c.max_num_batched_tokens, c.max_num_seqs);
  max_seqs_ = c.max_num_seqs;
  model_ = std::make_unique<Qwen3CudaModel>(m, weights_, max_tokens_, max_seqs_,
                                            c.max_model_len, stream_.get());
  graph_sizes_ =
      c.enforce_eager ? std::vector<int>{} : decode_graph_sizes(c.max_num_seqs);
  int64_t words = step_layout(max_tokens_, max_seqs_, table_width_).words;
  staging_ = PinnedBuffer<uint32_t>(size_t(words), "allocating pinned staging");
  step_ = DeviceBuffer<uint32_t>(size_t(words), "allocating the step buffer");
  host_tokens_ =
      PinnedBuffer<int32_t>(size_t(max_seqs_), "allocating pinned staging");
  tokens_ = DeviceBuffer<int32_t>(size_t(max_seqs_), "allocating tokens");
  if (split_sampling_enabled()) {
    check(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, 0),
          "reading the GPU's multiprocessor count");
    sample_scratch_ =
        DeviceBuffer<float>(size_t(sample_workspace_floats(max_seqs_)),
                            "allocating sampling scratch");
    sample_tickets_ =
        DeviceBuffer<int>(size_t(max_seqs_), "allocating sampling tickets");
    check(cudaMemset(sample_tickets_.get(), 0, sample_tickets_.bytes()),
          "clearing the sampling tickets");
  }
  profile_and_size_kv_cache(c);
  if (!graph_sizes_.empty())
    capture_decode_graphs();
}

// Members go in reverse order (graphs, buffers, the model, then the stream)
// once the stream's work is done.
CudaModelRunner::~CudaModelRunner() {
  if (stream_)
    cudaStreamSynchronize(stream_.get());
}

StepInputs CudaModelRunner::inputs(const StepLayout &l, bool decode,
                                   int num_tokens, int num_seqs, int max_q_len,
                                   int max_context) const {
  auto at = [&](int64_t offset) {
    return reinterpret_cast<const int32_t *>(step_.get() + offset);
  };
  StepInputs s;
  s.token_ids = at(l.token_ids);
  s.positions = at(l.positions);
  s.slot_mapping = at(l.slot_mapping);
  s.cu_seqlens_q = at(l.cu_seqlens_q);
  s.context_lens = at(l.context_lens);
  s.block_tables = at(l.block_tables);
  s.logits_rows = at(l.logits_rows);
  s.table_width = l.table_width;
  s.num_tokens = num_tokens;
  s.num_seqs = num_seqs;
  s.decode = decode;
  s.max_q_len = max_q_len;
  s.max_context = max_context;
  return s;
}

void CudaModelRunner::upload(const StepLayout &l) {
  check(cudaMemcpyAsync(step_.get(), staging_.get(), size_t(l.words) * 4,
                        cudaMemcpyHostToDevice, stream_.get()),
        "uploading a step's inputs");
}

void CudaModelRunner::sample(const StepLayout &l, int rows) {
  auto f = [&](int64_t offset) {
    return reinterpret_cast<const float *>(step_.get() + offset);
  };
  SamplingView view{f(l.temperature), f(l.top_p), f(l.uniform),
                    reinterpret_cast<const int32_t *>(step_.get() + l.top_k)};
  const SampleWorkspace split{sample_scratch_.get(), sample_tickets_.get(),
                              sms_};
  launch_sample(model_->logits(), rows, int(model_->config().vocab_size), view,
                tokens_.get(), stream_.get(),
                sample_tickets_.get() ? &split : nullptr);
  check_launch("the sampling kernel");
}

// As Nano-vLLM: the largest step runs once on a scratch cache of one block
// (every table entry 0, nothing stored), so whatever cuBLAS and the driver
// allocate for it is in use when the free memory is read; the KV cache then
// takes what gpu_memory_utilization leaves.
void CudaModelRunner::profile_and_size_kv_cache(const EngineConfig &c) {
  const ModelConfig &m = model_->config();
  const int layers = int(m.num_hidden_layers), kvh = int(m.num_key_value_heads),
            hd = int(m.head_dim);
  {
    CudaKvCache scratch(layers, 1, c.kvcache_block_size, kvh, hd);
    const int len = c.max_model_len;
    const int seqs = std::min(max_seqs_, std::max(1, max_tokens_ / len));
    ForwardBatch b;
    b.is_prefill = true;
    b.max_blocks = table_width_;
    b.cu_seqlens_q.push_back(0);
    for (int s = 0; s < seqs; ++s) {
      for (int p = 0; p < len; ++p) {
        b.token_ids.push_back(0);
        b.positions.push_back(p);
        b.slot_mapping.push_back(-1);
      }
      b.cu_seqlens_q.push_back(int32_t(b.token_ids.size()));
      b.context_lens.push_back(len);
      b.logits_rows.push_back(int32_t(b.token_ids.size()) - 1);
      b.block_tables.insert(b.block_tables.end(), size_t(table_width_), 0);
    }
    const StepLayout l = step_layout(b.num_tokens(), seqs, table_width_);
    std::vector<Sequence *> none(size_t(seqs), nullptr);
    pack_step(b, none.data(), l, m.vocab_size, staging_.get());
    upload(l);
    model_->forward(inputs(l, false, b.num_tokens(), seqs, len, len), scratch);
    sample(l, seqs);
    check(cudaStreamSynchronize(stream_.get()), "the profiling forward pass");
  }
  size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "reading GPU memory");
  const int64_t block =
      CudaKvCache::block_bytes(layers, c.kvcache_block_size, kvh, hd);
  const int blocks = kv_blocks_for_gpu(
      c, GpuMemory{int64_t(total_bytes), int64_t(total_bytes - free_bytes)},
      block, table_width_);
  kv_ = std::make_unique<CudaKvCache>(layers, blocks, c.kvcache_block_size, kvh,
                                      hd);
}

// Largest first, as Nano-vLLM does. Each graph is the decode forward and
// the sampler for its batch size, reading the step buffer at that size's
// layout; padded rows have context length 0 and store nothing.
void CudaModelRunner::capture_decode_graphs() {
  const int64_t vocab = model_->config().vocab_size;
  for (auto it = graph_sizes_.rbegin(); it != graph_sizes_.rend(); ++it) {
    DecodeGraph g;
    g.size = *it;
    g.layout = step_layout(g.size, g.size, table_width_);
    ForwardBatch empty;
    empty.cu_seqlens_q.push_back(0);
    pack_step(empty, nullptr, g.layout, vocab, staging_.get());
    upload(g.layout);
    const StepInputs in =
        inputs(g.layout, true, g.size, g.size, 1, config_.max_model_len);
    // One eager run first: cuBLAS picks and loads its kernels outside the
    // capture.
    model_->forward(in, *kv_);
    sample(g.layout, g.size);
    check(cudaStreamSynchronize(stream_.get()), "warming up a decode graph");
    cudaGraph_t graph = nullptr;
    check(
        cudaStreamBeginCapture(stream_.get(), cudaStreamCaptureModeThreadLocal),
        "capturing a decode graph");
    model_->forward(in, *kv_);
    sample(g.layout, g.size);
    check(cudaStreamEndCapture(stream_.get(), &graph),
          "capturing a decode graph");
    cudaGraphExec_t exec = nullptr;
    const cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    check(made, "instantiating a decode graph");
    g.exec.reset(exec);
    graphs_.push_back(std::move(g));
  }
  std::reverse(graphs_.begin(), graphs_.end());
}

std::vector<int32_t> CudaModelRunner::run(const std::vector<Sequence *> &seqs,
                                          bool is_prefill) {
  build_forward_batch(seqs, is_prefill, batch_);
  const int n = batch_.num_tokens(), rows = batch_.num_seqs();
  // The Scheduler never exceeds these; a direct caller gets an error, not
  // an overrun of the step buffer.
  if (n > max_tokens_ || rows > max_seqs_)
    throw Error("engine: cuda: a step of " + std::to_string(n) + " tokens in " +
                std::to_string(rows) +
                " sequences exceeds max_num_batched_tokens (" +
                std::to_string(max_tokens_) + ") or max_num_seqs (" +
                std::to_string(max_seqs_) + ")");
  const int64_t vocab = model_->config().vocab_size;
  const int graph = is_prefill ? -1 : graph_index_for(graph_sizes_, rows);
  if (graph >= 0) {
    const DecodeGraph &g = graphs_[size_t(graph)];
    pack_step(batch_, seqs.data(), g.layout, vocab, staging_.get());
    upload(g.layout);
    check(cudaGraphLaunch(g.exec.get(), stream_.get()),
          "replaying a decode graph");
  } else {
    const StepLayout l = step_layout(n, rows, table_width_);
    pack_step(batch_, seqs.data(), l, vocab, staging_.get());
    upload(l);
    model_->forward(inputs(l, !is_prefill, n, rows, max_query_len(batch_),
                           max_context_len(batch_)),
                    *kv_);
    sample(l, rows);
  }
  check(cudaMemcpyAsync(host_tokens_.get(), tokens_.get(), size_t(rows) * 4,
                        cudaMemcpyDeviceToHost, stream_.get()),
        "copying sampled tokens back");
  check(cudaStreamSynchronize(stream_.get()), "a model step");
  last_rows_ = rows;
  return std::vector<int32_t>(host_tokens_.get(), host_tokens_.get() + rows);
}

std::vector<float> CudaModelRunner::last_logits() const {
  std::vector<float> out(size_t(last_rows_) * model_->config().vocab_size);
  check(cudaMemcpyAsync(out.data(), model_->logits(), out.size() * 4,
                        cudaMemcpyDeviceToHost, stream_.get()),
        "copying logits back");
  check(cudaStreamSynchronize(stream_.get()), "copying logits back");
  return out;
}

std::string CudaModelRunner::describe() const {
  std::string graphs = graph_sizes_.empty()
                           ? std::string("eager (enforce_eager)")
                           : "CUDA graphs for " +
                                 std::to_string(graph_sizes_.size()) +
                                 " decode batch sizes up to " +
                                 std::to_string(graph_sizes_.back());
  return "cuda: " + device_name_ + ", " + std::to_string(kv_->num_blocks()) +
         " KV blocks of " + std::to_string(kv_->block_size()) +
         " tokens (BF16), " + graphs +
         (dependent_launch_enabled() ? ", dependent launch" : "");
}

} // namespace engine::cuda
