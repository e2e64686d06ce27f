// engine/io/safetensors_writer.h - writing .safetensors files as a stream.
//
// The header of a safetensors file must list every tensor's byte range before
// any data, so the writer takes all declarations first (add), then the bytes
// of each tensor in declaration order (write), in pieces of any size. That
// way a 1.2 GB model is generated and written a few megabytes at a time and
// never held in memory. The header is padded with spaces so the data starts
// 8-byte aligned, and carries {"format": "pt"} metadata as PyTorch's writer
// does.
#pragma once

#include "engine/dtype.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace engine {

/// A tensor to be written: name, element type and shape ([out, in] for a
/// linear layer's weight).
struct TensorSpec {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;

  int64_t numel() const;
  uint64_t nbytes() const { return uint64_t(numel()) * dtype_size(dtype); }
};

class SafetensorsWriter {
public:
  /// Creates (or truncates) `path`. Throws engine::Error naming the path
  /// when it cannot be created.
  explicit SafetensorsWriter(std::string path,
                             std::map<std::string, std::string> metadata = {
                                 {"format", "pt"}});
  /// Closes the file; a regular file never finished is removed, so a failed
  /// run leaves no file that looks valid.
  ~SafetensorsWriter();
  SafetensorsWriter(const SafetensorsWriter &) = delete;
  SafetensorsWriter &operator=(const SafetensorsWriter &) = delete;

  /// Declares the next tensor. Needs: no write() yet. Throws engine::Error
  /// for a name used twice, the name "__metadata__", a negative dimension,
  /// or a declaration after data was written.
  void add(TensorSpec spec);

  /// Appends the next `nbytes` of tensor data: the declared tensors' bytes
  /// back to back, in declaration order (a piece may end mid-tensor or span
  /// several). The first call writes the header. Throws engine::Error naming
  /// the file on an I/O failure or when more bytes come than were declared.
  void write(const void *data, size_t nbytes);

  /// write() that also checks that `name` is the next tensor and `nbytes`
  /// its whole size. Throws engine::Error otherwise.
  void write_tensor(std::string_view name, const void *data, size_t nbytes);

  /// Writes what is buffered and closes the file. Throws engine::Error
  /// naming the file when declared bytes are missing or on an I/O failure.
  void finish();

  /// Bytes the finished file has: 8 + header + data.
  uint64_t file_size() const;
  /// Sum of the declared tensors' bytes.
  uint64_t data_size() const { return data_size_; }
  const std::string &path() const { return path_; }
  const std::vector<TensorSpec> &tensors() const { return specs_; }

private:
  std::string build_header() const;
  void flush();
  void write_raw(const void *data, size_t nbytes);

  std::string path_;
  std::map<std::string, std::string> metadata_;
  std::vector<TensorSpec> specs_;
  std::vector<char> buffer_;
  std::string header_;
  uint64_t data_size_ = 0;
  uint64_t written_ = 0; // data bytes accepted by write()
  int fd_ = -1;
  bool started_ = false;
  bool finished_ = false;
  bool remove_unfinished_ = false;
};

/// Writes a sharded checkpoint's model.safetensors.index.json at `path`:
/// {"metadata": {"total_size": total_size}, "weight_map": weight_map}, where
/// weight_map maps each tensor name to its shard's file name. Throws
/// engine::Error naming the path on an I/O failure.
void write_index_json(const std::string &path,
                      const std::map<std::string, std::string> &weight_map,
                      uint64_t total_size);

/// Writes `contents` to `path` (created or truncated). Throws engine::Error
/// naming the path on an I/O failure.
void write_file(const std::string &path, std::string_view contents);

} // namespace engine
