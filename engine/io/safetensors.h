// engine/io/safetensors.h - one .safetensors file, memory-mapped and checked.
//
// A safetensors file is an 8-byte little-endian header length N, N bytes of
// JSON naming each tensor's dtype, shape and [begin, end) byte range in the
// data that follows, then the raw row-major data. SafetensorsFile maps the
// file read-only (no copy: a 1.2 GB checkpoint costs page-cache pages, not
// heap) and validates the whole header up front, so every TensorView it hands
// out points at exactly numel × dtype-size bytes inside the file. Tensor data
// is only as aligned as the file's offsets: files from SafetensorsWriter and
// the Hugging Face writer start the data 8-byte aligned, but a tensor that
// follows an odd-sized one in a mixed-dtype file may not be.
#pragma once

#include "engine/dtype.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace engine {

/// One tensor inside a mapped file; valid while its SafetensorsFile lives.
struct TensorView {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  const void *data;
  size_t nbytes;
  /// The data lies in a read-only mapping of the file (not a buffer given
  /// to from_memory): its pages can be dropped and are read again on use.
  bool file_mapped = false;

  /// Product of the shape (1 for a scalar).
  int64_t numel() const;
};

/// The reference implementation's cap on the JSON header.
constexpr uint64_t kMaxSafetensorsHeader = 100u << 20;

class SafetensorsFile {
public:
  /// Maps `path` read-only (MAP_PRIVATE) and validates its header.
  /// Throws engine::Error naming `path` when the file cannot be opened or
  /// mapped, is shorter than its header claims, the header is not a JSON
  /// object of tensors, a tensor has an unsupported dtype (only F32, F16 and
  /// BF16 are), a bad shape, data_offsets outside the data or not matching
  /// numel × dtype size, or two tensors' bytes overlap.
  /// `populate` maps every page now (MAP_POPULATE): for a reader that will
  /// touch all the weights anyway it is faster in bulk than page by page,
  /// and keeps page faults out of the first forward pass.
  explicit SafetensorsFile(const std::string &path, bool populate = false);

  /// Validates a file image already in memory (`name` is what errors call
  /// it). The bytes are borrowed: they must outlive the returned object.
  /// Throws engine::Error as the constructor does.
  static SafetensorsFile from_memory(const void *data, size_t size,
                                     std::string name);

  SafetensorsFile(SafetensorsFile &&other) noexcept;
  SafetensorsFile &operator=(SafetensorsFile &&other) noexcept;
  SafetensorsFile(const SafetensorsFile &) = delete;
  SafetensorsFile &operator=(const SafetensorsFile &) = delete;
  ~SafetensorsFile();

  /// The path it was opened with (or the name given to from_memory).
  const std::string &path() const { return path_; }

  /// The tensor called `name`, or nullptr.
  const TensorView *find(std::string_view name) const;

  /// Every tensor, sorted by name.
  const std::vector<TensorView> &tensors() const { return tensors_; }

  /// The "__metadata__" entries (empty when the header has none).
  const std::map<std::string, std::string> &metadata() const {
    return metadata_;
  }

  /// Size of the whole file in bytes.
  size_t file_size() const { return size_; }

  /// Offset of the data section: 8 + the header length.
  size_t data_offset() const { return data_offset_; }

private:
  SafetensorsFile() = default;
  void parse();
  void release() noexcept;

  std::string path_;
  const unsigned char *base_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
  size_t data_offset_ = 0;
  std::vector<TensorView> tensors_;
  std::map<std::string, std::string> metadata_;
};

/// The dtype spelled `name` in a safetensors header ("F32", "F16", "BF16"),
/// or false when the engine does not support it.
bool parse_dtype(std::string_view name, DType *out);

} // namespace engine
