// engine/cpu/gemv_wisdom.cpp - reading and writing the gemv wisdom file (see
// gemv_wisdom.h).
#include "engine/cpu/gemv_wisdom.h"

#include "engine/cpu/cpu_features.h"
#include "engine/cpu/gemv_kernels.h"

#include <cpuid.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>
#include <xxhash.h>

namespace engine {
namespace {

constexpr const char *kFormat = "perfcc engine gemv wisdom 1";

std::string cpu_brand() {
  unsigned regs[12] = {};
  unsigned max = __get_cpuid_max(0x80000000u, nullptr);
  if (max < 0x80000004u)
    return "unknown cpu";
  for (unsigned i = 0; i < 3; ++i)
    __get_cpuid(0x80000002u + i, &regs[4 * i], &regs[4 * i + 1],
                &regs[4 * i + 2], &regs[4 * i + 3]);
  char text[49] = {};
  std::memcpy(text, regs, 48);
  std::string s(text);
  // Brand strings are padded with spaces on some CPUs.
  const size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? "unknown cpu" : s.substr(b, e - b + 1);
}

std::string family_model_stepping() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  __get_cpuid(1, &a, &b, &c, &d);
  unsigned family = (a >> 8) & 0xf, model = (a >> 4) & 0xf;
  if (family == 0xf)
    family += (a >> 20) & 0xff;
  if (family == 0x6 || family >= 0xf)
    model += ((a >> 16) & 0xf) << 4;
  return "family " + std::to_string(family) + " model " +
         std::to_string(model) + " stepping " + std::to_string(a & 0xf);
}

// The file's JSON; a missing file is an empty object. One that cannot be
// read or parsed is too, with *ok false and, when `report`, one line on
// stderr (the constructor reports; save(), reading it again to keep the other
// machines' entries, does not say it twice).
nlohmann::json read_json(const std::string &path, bool *ok, bool report) {
  *ok = true;
  std::ifstream in(path);
  if (!in)
    return nlohmann::json::object();
  try {
    nlohmann::json j = nlohmann::json::parse(in);
    if (!j.is_object() || j.value("format", "") != kFormat ||
        !j.contains("machines") || !j["machines"].is_object())
      throw std::runtime_error("not a gemv wisdom file (format '" +
                               std::string(kFormat) + "')");
    return j;
  } catch (const std::exception &e) {
    if (report)
      std::fprintf(stderr,
                   "engine: kernel wisdom %s: %s; measuring again (the file is "
                   "replaced)\n",
                   path.c_str(), e.what());
    *ok = false;
    return nlohmann::json::object();
  }
}

} // namespace

std::string gemv_shape_key(int64_t rows, int64_t cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}

std::string gemv_machine_key(int num_threads, const std::string &memory) {
  // The candidates too: a build that has other plans to try measures again
  // rather than keep a choice made without them.
  std::string names;
  for (const GemvPlan &plan : all_gemv_plans())
    names += plan.name + "\n";
  char hash[9];
  std::snprintf(hash, sizeof hash, "%08x",
                unsigned(XXH32(names.data(), names.size(), 0)));
  return cpu_brand() + " (" + family_model_stepping() + "), " +
         std::string(isa_name(active_isa())) + ", " +
         std::to_string(num_threads) + " thread" +
         (num_threads == 1 ? "" : "s") + ", plans " + hash +
         (memory.empty() ? "" : ", weights " + memory);
}

std::string default_gemv_wisdom_path() {
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/perfcc/engine-kernels.json";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/perfcc/engine-kernels.json";
  return "";
}

GemvWisdom::GemvWisdom(std::string path, std::string machine)
    : path_(std::move(path)), machine_(std::move(machine)) {
  bool ok = true;
  const nlohmann::json j = read_json(path_, &ok, true);
  if (!ok || !j.contains("machines") || !j["machines"].contains(machine_))
    return;
  const nlohmann::json &shapes = j["machines"][machine_];
  if (!shapes.is_object())
    return;
  for (auto it = shapes.begin(); it != shapes.end(); ++it) {
    const nlohmann::json &e = it.value();
    if (!e.is_object() || !e.contains("plan") || !e["plan"].is_string())
      continue; // an entry this build cannot use is measured again
    entries_[it.key()] = {e["plan"].get<std::string>(), e.value("gb_s", 0.0),
                          e.value("default_gb_s", 0.0)};
  }
}

std::optional<GemvWisdomEntry>
GemvWisdom::find(const std::string &shape) const {
  auto it = entries_.find(shape);
  if (it == entries_.end())
    return std::nullopt;
  return it->second;
}

void GemvWisdom::put(const std::string &shape, const GemvWisdomEntry &entry) {
  entries_[shape] = entry;
}

bool GemvWisdom::save() const {
  if (path_.empty())
    return false;
  bool ok = true;
  nlohmann::json j = read_json(path_, &ok, false);
  if (!ok || !j.is_object() || !j.contains("machines"))
    j = {{"format", kFormat}, {"machines", nlohmann::json::object()}};
  nlohmann::json shapes = nlohmann::json::object();
  for (const auto &[shape, e] : entries_)
    shapes[shape] = {
        {"plan", e.plan}, {"gb_s", e.gb_s}, {"default_gb_s", e.default_gb_s}};
  j["machines"][machine_] = shapes;
  try {
    const std::filesystem::path p(path_);
    if (p.has_parent_path())
      std::filesystem::create_directories(p.parent_path());
    const std::string tmp = path_ + ".tmp." + std::to_string(getpid());
    {
      std::ofstream out(tmp, std::ios::trunc);
      out << j.dump(2) << "\n";
      out.close();
      if (!out)
        throw std::runtime_error("cannot write " + tmp);
    }
    std::filesystem::rename(tmp, p);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "engine: kernel wisdom %s: not saved: %s\n",
                 path_.c_str(), e.what());
    return false;
  }
  return true;
}

} // namespace engine
