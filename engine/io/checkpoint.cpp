// engine/io/checkpoint.cpp - the weights of a Hugging Face model folder.
//
// The index and the shards are cross-checked in both directions (every
// mapped tensor is in its shard; every shard tensor is mapped there), because
// a stale index after a partial re-export is a real failure mode and would
// otherwise load a silently different model.
#include "engine/io/checkpoint.h"

#include "engine/error.h"
#include "engine/io/messages.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <sys/stat.h>

namespace engine {

namespace {

enum class Kind { Missing, File, Other };

Kind stat_kind(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return Kind::Missing;
  return S_ISREG(st.st_mode) ? Kind::File : Kind::Other;
}

} // namespace

Checkpoint::Checkpoint(std::string folder, bool populate)
    : folder_(std::move(folder)) {
  struct stat st;
  if (::stat(folder_.c_str(), &st) != 0)
    throw Error(folder_ + ": cannot open model folder (" +
                std::strerror(errno) + ")");
  if (!S_ISDIR(st.st_mode))
    throw Error(folder_ + ": not a folder");
  const std::string single = join_path(folder_, "model.safetensors");
  const std::string index = join_path(folder_, "model.safetensors.index.json");
  if (stat_kind(single) != Kind::Missing) {
    source_ = single;
    files_.emplace_back(single, populate);
    for (const TensorView &t : files_[0].tensors())
      entries_.push_back(Entry{t.name, &t, 0});
  } else if (stat_kind(index) != Kind::Missing) {
    source_ = index;
    open_index(index, populate);
  } else {
    throw Error(folder_ +
                ": no model.safetensors or model.safetensors.index.json");
  }
  std::sort(entries_.begin(), entries_.end(),
            [](const Entry &a, const Entry &b) { return a.name < b.name; });
}

void Checkpoint::open_index(const std::string &index_path, bool populate) {
  const nlohmann::json index = read_json_file(index_path);
  if (!index.is_object())
    throw Error(index_path + ": not a JSON object");
  auto wm = index.find("weight_map");
  if (wm == index.end())
    throw Error(index_path + ": missing field 'weight_map'");
  if (!wm->is_object())
    throw Error(index_path + ": field 'weight_map' must be an object, not " +
                json_type_name(*wm));

  // Shards in name order, each opened once however many tensors it holds.
  std::map<std::string, size_t> shard_index;
  for (const auto &[name, shard] : wm->items()) {
    if (!shard.is_string())
      throw Error(index_path + ": weight_map entry " + quote(name) +
                  " must be a string, not " + json_type_name(shard));
    shard_index.emplace(shard.get<std::string>(), 0);
  }
  if (shard_index.empty())
    throw Error(index_path + ": weight_map is empty");
  std::vector<std::string> shard_names;
  for (auto &[shard, i] : shard_index) {
    // Shards live in the folder itself; a path could reach any file.
    if (shard.empty() || shard == "." || shard == ".." ||
        shard.find('/') != std::string::npos)
      throw Error(index_path + ": shard " + quote(shard) +
                  " is not a file name in the folder");
    const std::string path = join_path(folder_, shard);
    if (stat_kind(path) == Kind::Missing)
      throw Error(index_path + ": shard " + quote(shard) + " does not exist");
    i = files_.size();
    files_.emplace_back(path, populate);
    shard_names.push_back(shard);
  }

  for (const auto &[name, shard] : wm->items()) {
    size_t f = shard_index.at(shard.get_ref<const std::string &>());
    const TensorView *view = files_[f].find(name);
    if (!view)
      throw Error(index_path + ": tensor " + quote(name) + " is mapped to " +
                  quote(shard_names[f]) + ", which does not hold it");
    entries_.push_back(Entry{view->name, view, f});
  }
  for (size_t f = 0; f < files_.size(); ++f) {
    for (const TensorView &t : files_[f].tensors()) {
      auto it = wm->find(t.name);
      if (it == wm->end())
        throw Error(index_path + ": tensor " + quote(t.name) + " in " +
                    quote(shard_names[f]) + " is not in weight_map");
      const auto &mapped = it->get_ref<const std::string &>();
      if (mapped != shard_names[f])
        throw Error(folder_ + ": tensor " + quote(t.name) + " is in both " +
                    quote(mapped) + " and " + quote(shard_names[f]));
    }
  }
}

const Checkpoint::Entry *Checkpoint::lookup(std::string_view name) const {
  auto it = std::lower_bound(
      entries_.begin(), entries_.end(), name,
      [](const Entry &e, std::string_view n) { return e.name < n; });
  if (it == entries_.end() || it->name != name)
    return nullptr;
  return &*it;
}

const TensorView *Checkpoint::find(std::string_view name) const {
  const Entry *e = lookup(name);
  return e ? e->view : nullptr;
}

const TensorView &
Checkpoint::get(std::string_view name,
                const std::vector<int64_t> &expected_shape) const {
  const Entry *e = lookup(name);
  if (!e)
    throw Error(source_ + ": missing tensor " + quote(name));
  if (e->view->shape != expected_shape)
    throw Error(files_[e->file].path() + ": tensor " + quote(name) +
                " has shape " + format_shape(e->view->shape) + ", expected " +
                format_shape(expected_shape));
  return *e->view;
}

const std::string &Checkpoint::file_of(std::string_view name) const {
  static const std::string none;
  const Entry *e = lookup(name);
  return e ? files_[e->file].path() : none;
}

std::vector<std::string> Checkpoint::names() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const Entry &e : entries_)
    out.emplace_back(e.name);
  return out;
}

} // namespace engine
