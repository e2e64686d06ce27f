// engine/io/safetensors_writer.cpp - writing .safetensors files as a stream.
//
// Small writes are gathered in a 4 MiB buffer and large ones go straight to
// write(2), so generating a model in chunks costs one copy into the page
// cache and no more.
#include "engine/io/safetensors_writer.h"

#include "engine/error.h"
#include "engine/io/messages.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace engine {

using nlohmann::json;

namespace {

constexpr size_t kBufferSize = 4u << 20;

// Writes all of [data, data + n) to fd, retrying short writes.
void write_all(int fd, const void *data, size_t n, const std::string &path) {
  auto p = static_cast<const char *>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      throw Error(path + ": write failed (" + std::strerror(errno) + ")");
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
}

int create_file(const std::string &path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw Error(path + ": cannot create (" + std::strerror(errno) + ")");
  return fd;
}

void close_file(int fd, const std::string &path) {
  if (::close(fd) != 0)
    throw Error(path + ": close failed (" + std::strerror(errno) + ")");
}

} // namespace

int64_t TensorSpec::numel() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

SafetensorsWriter::SafetensorsWriter(
    std::string path, std::map<std::string, std::string> metadata)
    : path_(std::move(path)), metadata_(std::move(metadata)) {
  fd_ = create_file(path_);
  // Only a regular file we created may be removed on failure: never a
  // device or pipe someone pointed us at (/dev/full, /dev/stdout).
  struct stat st;
  remove_unfinished_ = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
}

SafetensorsWriter::~SafetensorsWriter() {
  if (fd_ >= 0)
    ::close(fd_);
  if (!finished_ && remove_unfinished_)
    ::unlink(path_.c_str());
}

void SafetensorsWriter::add(TensorSpec spec) {
  const std::string what = path_ + ": tensor " + quote(spec.name);
  if (started_)
    throw Error(what + " declared after data was written");
  if (spec.name == "__metadata__")
    throw Error(what + " is a reserved name");
  try {
    (void)json(spec.name).dump();
  } catch (const json::exception &) {
    throw Error(what + " is not UTF-8");
  }
  for (const TensorSpec &s : specs_)
    if (s.name == spec.name)
      throw Error(what + " declared twice");
  uint64_t numel = 1;
  for (int64_t d : spec.shape) {
    if (d < 0)
      throw Error(what + " has a negative dimension in " +
                  format_shape(spec.shape));
    if (__builtin_mul_overflow(numel, uint64_t(d), &numel))
      throw Error(what + " is too large");
  }
  data_size_ += spec.nbytes();
  specs_.push_back(std::move(spec));
}

uint64_t SafetensorsWriter::file_size() const {
  return 8 + (started_ ? header_.size() : build_header().size()) + data_size_;
}

std::string SafetensorsWriter::build_header() const {
  json header = json::object();
  uint64_t offset = 0;
  for (const TensorSpec &s : specs_) {
    header[s.name] = {{"dtype", std::string(dtype_name(s.dtype))},
                      {"shape", s.shape},
                      {"data_offsets", {offset, offset + s.nbytes()}}};
    offset += s.nbytes();
  }
  if (!metadata_.empty())
    header["__metadata__"] = metadata_;
  std::string text;
  try {
    text = header.dump();
  } catch (const json::exception &) {
    throw Error(path_ + ": a tensor name or metadata entry is not UTF-8");
  }
  // Data must start 8-byte aligned: 8 (length) + header is padded to a
  // multiple of 8 with spaces, which JSON readers skip.
  text.append((8 - text.size() % 8) % 8, ' ');
  return text;
}

void SafetensorsWriter::write(const void *data, size_t nbytes) {
  if (finished_)
    throw Error(path_ + ": write after finish");
  if (!started_) {
    header_ = build_header();
    unsigned char len[8];
    uint64_t n = header_.size();
    for (int i = 0; i < 8; ++i)
      len[i] = static_cast<unsigned char>(n >> (8 * i));
    buffer_.reserve(kBufferSize);
    started_ = true;
    write_raw(len, 8);
    write_raw(header_.data(), header_.size());
  }
  if (nbytes > data_size_ - written_)
    throw Error(path_ + ": " + std::to_string(written_ + nbytes) +
                " bytes of tensor data written, but only " +
                std::to_string(data_size_) + " were declared");
  write_raw(data, nbytes);
  written_ += nbytes;
}

void SafetensorsWriter::write_tensor(std::string_view name, const void *data,
                                     size_t nbytes) {
  uint64_t begin = 0;
  for (const TensorSpec &s : specs_) {
    if (s.name == name) {
      if (begin != written_)
        throw Error(path_ + ": tensor " + quote(name) +
                    " written out of declaration order");
      if (nbytes != s.nbytes())
        throw Error(path_ + ": tensor " + quote(name) + " has " +
                    std::to_string(s.nbytes()) + " bytes, got " +
                    std::to_string(nbytes));
      write(data, nbytes);
      return;
    }
    begin += s.nbytes();
  }
  throw Error(path_ + ": tensor " + quote(name) + " was not declared");
}

void SafetensorsWriter::write_raw(const void *data, size_t nbytes) {
  if (buffer_.size() + nbytes > kBufferSize)
    flush();
  if (nbytes >= kBufferSize) {
    write_all(fd_, data, nbytes, path_);
    return;
  }
  auto p = static_cast<const char *>(data);
  buffer_.insert(buffer_.end(), p, p + nbytes);
}

void SafetensorsWriter::flush() {
  write_all(fd_, buffer_.data(), buffer_.size(), path_);
  buffer_.clear();
}

void SafetensorsWriter::finish() {
  if (finished_)
    return;
  if (!started_)
    write(nullptr, 0);
  if (written_ != data_size_)
    throw Error(path_ + ": finished after " + std::to_string(written_) +
                " of " + std::to_string(data_size_) + " bytes of tensor data");
  flush();
  int fd = fd_;
  fd_ = -1;
  close_file(fd, path_);
  finished_ = true;
}

void write_index_json(const std::string &path,
                      const std::map<std::string, std::string> &weight_map,
                      uint64_t total_size) {
  json index = {{"metadata", {{"total_size", total_size}}},
                {"weight_map", weight_map}};
  write_file(path, index.dump(2) + "\n");
}

void write_file(const std::string &path, std::string_view contents) {
  int fd = create_file(path);
  try {
    write_all(fd, contents.data(), contents.size(), path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  close_file(fd, path);
}

} // namespace engine
