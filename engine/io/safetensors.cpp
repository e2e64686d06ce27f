// engine/io/safetensors.cpp - mapping and validating one .safetensors file.
//
// Validation is complete before any view is handed out: every range is
// checked against the data size and the dtype, and ranges are checked for
// overlap, so later code can trust a TensorView without re-checking. The
// file must not be truncated by another process while it is mapped (that
// would fault on access, as with any mmap reader).
#include "engine/io/safetensors.h"

#include "engine/error.h"
#include "engine/io/messages.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <set>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace engine {

using nlohmann::json;

int64_t TensorView::numel() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

bool parse_dtype(std::string_view name, DType *out) {
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    if (name == dtype_name(t)) {
      *out = t;
      return true;
    }
  }
  return false;
}

SafetensorsFile::SafetensorsFile(const std::string &path, bool populate)
    : path_(path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw Error(path + ": cannot open (" + std::strerror(errno) + ")");
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    throw Error(path + ": cannot stat (" + std::strerror(err) + ")");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(path + ": not a regular file");
  }
  size_ = static_cast<size_t>(st.st_size);
  // mmap rejects a zero length; an empty file is reported by parse() as
  // truncated like any other short file.
  if (size_ > 0) {
    void *p = ::mmap(nullptr, size_, PROT_READ,
                     MAP_PRIVATE | (populate ? MAP_POPULATE : 0), fd, 0);
    if (p == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      throw Error(path + ": cannot map (" + std::strerror(err) + ")");
    }
    base_ = static_cast<const unsigned char *>(p);
    mapped_ = true;
  }
  ::close(fd); // the mapping keeps the file alive
  try {
    parse();
  } catch (...) {
    release();
    throw;
  }
}

SafetensorsFile SafetensorsFile::from_memory(const void *data, size_t size,
                                             std::string name) {
  SafetensorsFile f;
  f.path_ = std::move(name);
  f.base_ = static_cast<const unsigned char *>(data);
  f.size_ = size;
  f.parse();
  return f;
}

SafetensorsFile::SafetensorsFile(SafetensorsFile &&other) noexcept
    : path_(std::move(other.path_)), base_(other.base_), size_(other.size_),
      mapped_(other.mapped_), data_offset_(other.data_offset_),
      tensors_(std::move(other.tensors_)),
      metadata_(std::move(other.metadata_)) {
  other.base_ = nullptr;
  other.size_ = 0;
  other.mapped_ = false;
}

SafetensorsFile &SafetensorsFile::operator=(SafetensorsFile &&other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    base_ = other.base_;
    size_ = other.size_;
    mapped_ = other.mapped_;
    data_offset_ = other.data_offset_;
    tensors_ = std::move(other.tensors_);
    metadata_ = std::move(other.metadata_);
    other.base_ = nullptr;
    other.size_ = 0;
    other.mapped_ = false;
  }
  return *this;
}

SafetensorsFile::~SafetensorsFile() { release(); }

void SafetensorsFile::release() noexcept {
  if (mapped_)
    ::munmap(const_cast<unsigned char *>(base_), size_);
  mapped_ = false;
  base_ = nullptr;
}

const TensorView *SafetensorsFile::find(std::string_view name) const {
  auto it = std::lower_bound(
      tensors_.begin(), tensors_.end(), name,
      [](const TensorView &t, std::string_view n) { return t.name < n; });
  if (it == tensors_.end() || it->name != name)
    return nullptr;
  return &*it;
}

namespace {

// The parts of one tensor entry, checked in the order a reader would explain
// them: what the entry is, then its dtype, shape and byte range.
struct Entry {
  const json *dtype = nullptr;
  const json *shape = nullptr;
  const json *offsets = nullptr;
};

// A non-negative JSON integer that fits `limit`, or false.
bool get_count(const json &v, uint64_t limit, uint64_t *out) {
  if (v.is_number_unsigned()) {
    *out = v.get<uint64_t>();
    return *out <= limit;
  }
  // "-0" parses as a signed zero; any other signed integer is negative.
  if (v.is_number_integer() && v.get<int64_t>() == 0) {
    *out = 0;
    return true;
  }
  return false;
}

} // namespace

void SafetensorsFile::parse() {
  const std::string &p = path_;
  if (size_ < 8)
    throw Error(p + ": truncated file (" + std::to_string(size_) +
                " bytes; a safetensors file starts with an 8-byte header "
                "length)");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i)
    n = (n << 8) | base_[i];
  if (n > kMaxSafetensorsHeader)
    throw Error(p + ": header length " + std::to_string(n) +
                " exceeds the 100 MiB limit");
  if (n > size_ - 8)
    throw Error(p + ": truncated file: header length " + std::to_string(n) +
                " exceeds the " + std::to_string(size_ - 8) +
                " bytes after it");
  data_offset_ = 8 + static_cast<size_t>(n);
  const uint64_t data_size = size_ - data_offset_;
  const char *text = reinterpret_cast<const char *>(base_ + 8);

  // nlohmann keeps the last of two equal keys; a header naming a tensor twice
  // is ambiguous, so the parser callback catches it at the top level.
  std::set<std::string, std::less<>> seen;
  std::string duplicate;
  bool has_duplicate = false;
  auto on_event = [&](int depth, json::parse_event_t event, json &parsed) {
    if (depth == 1 && event == json::parse_event_t::key && !has_duplicate) {
      const auto &key = parsed.get_ref<const std::string &>();
      if (!seen.insert(key).second) {
        duplicate = key;
        has_duplicate = true;
      }
    }
    return true;
  };
  json header;
  try {
    header = json::parse(text, text + n, on_event);
  } catch (const json::parse_error &e) {
    throw Error(p + ": header is not valid JSON (error at byte " +
                std::to_string(e.byte) + " of " + std::to_string(n) + ")");
  } catch (const json::exception &) {
    throw Error(p + ": header is not valid JSON (a number is out of range)");
  }
  if (!header.is_object())
    throw Error(p + ": header is not a JSON object (it is " +
                json_type_name(header) + ")");
  if (has_duplicate)
    throw Error(p + ": header names " + quote(duplicate) + " twice");

  tensors_.clear();
  tensors_.reserve(header.size());
  metadata_.clear();
  for (const auto &item : header.items()) {
    // Named, not structured bindings: C++17 lambdas cannot capture those.
    const std::string &name = item.key();
    const json &value = item.value();
    if (name == "__metadata__") {
      if (!value.is_object())
        throw Error(p + ": __metadata__ must be an object of strings, not " +
                    json_type_name(value));
      for (const auto &[k, v] : value.items()) {
        if (!v.is_string())
          throw Error(p + ": __metadata__ entry " + quote(k) +
                      " must be a string, not " + json_type_name(v));
        metadata_[k] = v.get<std::string>();
      }
      continue;
    }
    // Messages are built only when thrown: the success path allocates none.
    // (An init-capture: clang before 16 cannot capture a structured binding.)
    auto what = [&, &name = name] { return p + ": tensor " + quote(name); };
    if (!value.is_object())
      throw Error(what() + " must be an object, not " + json_type_name(value));
    Entry e;
    for (const auto &[k, v] : value.items()) {
      if (k == "dtype")
        e.dtype = &v;
      else if (k == "shape")
        e.shape = &v;
      else if (k == "data_offsets")
        e.offsets = &v;
      else
        throw Error(what() + " has an unknown field " + quote(k));
    }
    for (auto [field, ptr] : {std::pair{"dtype", e.dtype},
                              {"shape", e.shape},
                              {"data_offsets", e.offsets}}) {
      if (!ptr)
        throw Error(what() + " has no '" + field + "'");
    }

    if (!e.dtype->is_string())
      throw Error(what() + " dtype must be a string, not " +
                  json_type_name(*e.dtype));
    const auto &dtype_text = e.dtype->get_ref<const std::string &>();
    DType dtype;
    if (!parse_dtype(dtype_text, &dtype))
      throw Error(what() + " has unsupported dtype " + quote(dtype_text) +
                  " (supported: F32, F16, BF16)");

    if (!e.shape->is_array())
      throw Error(what() + " shape must be an array, not " +
                  json_type_name(*e.shape));
    std::vector<int64_t> shape;
    shape.reserve(e.shape->size());
    uint64_t numel = 1;
    bool too_many = false;
    for (const json &d : *e.shape) {
      uint64_t dim;
      if (!get_count(d, std::numeric_limits<int64_t>::max(), &dim)) {
        if (d.is_number_integer() && !d.is_number_unsigned())
          throw Error(what() + " has a negative dimension " +
                      std::to_string(d.get<int64_t>()) + " in its shape");
        if (d.is_number_unsigned())
          throw Error(what() + " has a dimension too large (" +
                      std::to_string(d.get<uint64_t>()) + ")");
        throw Error(what() + " shape must hold non-negative integers, not " +
                    json_type_name(d));
      }
      shape.push_back(static_cast<int64_t>(dim));
      too_many |= __builtin_mul_overflow(numel, dim, &numel);
    }
    uint64_t need;
    too_many |=
        __builtin_mul_overflow(numel, uint64_t(dtype_size(dtype)), &need);
    too_many |= numel > uint64_t(std::numeric_limits<int64_t>::max());
    if (too_many)
      throw Error(what() + " shape " + format_shape(shape) +
                  " has too many elements");

    if (!e.offsets->is_array() || e.offsets->size() != 2)
      throw Error(what() + " data_offsets must be [begin, end], not " +
                  (e.offsets->is_array()
                       ? "an array of " + std::to_string(e.offsets->size())
                       : std::string(json_type_name(*e.offsets))));
    uint64_t begin, end;
    if (!get_count((*e.offsets)[0], UINT64_MAX, &begin) ||
        !get_count((*e.offsets)[1], UINT64_MAX, &end))
      throw Error(what() + " data_offsets must be two non-negative integers");
    auto range = [&] {
      return "[" + std::to_string(begin) + ", " + std::to_string(end) + "]";
    };
    if (begin > end)
      throw Error(what() + " data_offsets " + range() +
                  " end before they begin");
    if (end > data_size)
      throw Error(what() + " data_offsets " + range() + " exceed the data (" +
                  std::to_string(data_size) + " bytes)");
    if (end - begin != need)
      throw Error(what() + " data_offsets " + range() + " hold " +
                  std::to_string(end - begin) + " bytes, but " +
                  std::string(dtype_name(dtype)) + " " + format_shape(shape) +
                  " needs " + std::to_string(need));

    tensors_.push_back(TensorView{name, dtype, std::move(shape),
                                  base_ + data_offset_ + begin,
                                  static_cast<size_t>(need), mapped_});
  }

  // Overlap: sort the non-empty ranges by start; each must begin at or after
  // the end of the one before. Empty tensors hold no bytes to share.
  std::vector<const TensorView *> by_start;
  for (const auto &t : tensors_)
    if (t.nbytes > 0)
      by_start.push_back(&t);
  std::sort(by_start.begin(), by_start.end(),
            [](const TensorView *a, const TensorView *b) {
              return a->data < b->data;
            });
  auto offset = [&](const TensorView *t) {
    return uint64_t(static_cast<const unsigned char *>(t->data) - base_) -
           data_offset_;
  };
  auto span = [&](const TensorView *t) {
    return quote(t->name) + " [" + std::to_string(offset(t)) + ", " +
           std::to_string(offset(t) + t->nbytes) + "]";
  };
  for (size_t i = 1; i < by_start.size(); ++i) {
    const TensorView *a = by_start[i - 1], *b = by_start[i];
    if (offset(b) < offset(a) + a->nbytes)
      throw Error(p + ": tensors " + span(a) + " and " + span(b) + " overlap");
  }
}

} // namespace engine
