// engine/io/checkpoint.h - the weights of a Hugging Face model folder.
//
// A model folder holds its weights either in one model.safetensors or in
// shards listed by model.safetensors.index.json ("weight_map": tensor name ->
// shard file). Checkpoint opens whichever is there (model.safetensors first,
// as transformers does), maps every file, checks that the index and the
// shards agree, and then answers lookups by name across all files, so the
// model code neither knows nor cares how the weights were split.
#pragma once

#include "engine/io/safetensors.h"

#include <string>
#include <string_view>
#include <vector>

namespace engine {

class Checkpoint {
public:
  /// Opens the weights in `folder`. Throws engine::Error when neither
  /// model.safetensors nor model.safetensors.index.json exists
  /// ("<folder>: no model.safetensors or model.safetensors.index.json"),
  /// when a file is malformed (SafetensorsFile's errors), or when the index
  /// is not JSON with a "weight_map" object of strings, names a shard that
  /// is missing or outside the folder, maps a tensor to a shard that does not
  /// hold it, leaves a shard's tensor unmapped, or a tensor is in two shards.
  /// `populate` is passed to every SafetensorsFile (map all pages now).
  explicit Checkpoint(std::string folder, bool populate = false);

  /// The folder it was opened with.
  const std::string &folder() const { return folder_; }

  /// The file lookups go through: "<folder>/model.safetensors" or
  /// "<folder>/model.safetensors.index.json"; errors about a missing tensor
  /// name it.
  const std::string &source() const { return source_; }

  /// The tensor called `name`, or nullptr.
  const TensorView *find(std::string_view name) const;

  /// The tensor called `name`, checked against `expected_shape`. Throws
  /// engine::Error "<source>: missing tensor 'name'" or "<file>: tensor
  /// 'name' has shape [4, 8], expected [8, 4]".
  const TensorView &get(std::string_view name,
                        const std::vector<int64_t> &expected_shape) const;

  /// The file holding the tensor called `name` (for messages), or "".
  const std::string &file_of(std::string_view name) const;

  /// Every tensor name, sorted.
  std::vector<std::string> names() const;

  /// Number of tensors over all files.
  size_t size() const { return entries_.size(); }

  /// The mapped files (one, or the shards in index order).
  const std::vector<SafetensorsFile> &files() const { return files_; }

private:
  struct Entry {
    std::string_view name; // points into the TensorView
    const TensorView *view;
    size_t file;
  };
  const Entry *lookup(std::string_view name) const;
  void open_index(const std::string &index_path, bool populate);

  std::string folder_;
  std::string source_;
  std::vector<SafetensorsFile> files_;
  std::vector<Entry> entries_; // sorted by name
};

} // namespace engine
