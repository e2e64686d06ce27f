// engine/cpu/gemv_wisdom.h - the gemv plans measured on this machine, kept in
// a small JSON file so that the next model load need not measure again (as
// FFTW keeps its wisdom).
//
// Entries are keyed by the CPU (brand string, family, model and stepping),
// the active instruction-set level and the thread count, since each changes
// which plan streams fastest, and the candidate plans the build has (a hash
// of their names: a build with others measures again), and within those by
// the weight shape.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace engine {

/// What was measured for one shape.
struct GemvWisdomEntry {
  std::string plan;        ///< GemvPlan::name
  double gb_s = 0;         ///< the plan's streaming rate when measured
  double default_gb_s = 0; ///< the level's default plan's, same run
};

/// "2048x1024": rows x cols.
std::string gemv_shape_key(int64_t rows, int64_t cols);

/// This machine's key: CPU brand, family/model/stepping, level, threads,
/// the candidates' hash and, when given, the weights' memory ("..., 2
/// threads, plans 9f0c1a2b, weights in 2 MiB pages").
std::string gemv_machine_key(int num_threads, const std::string &memory = "");

/// The default file: $XDG_CACHE_HOME/perfcc/engine-kernels.json, else
/// $HOME/.cache/perfcc/engine-kernels.json; empty when neither is set.
std::string default_gemv_wisdom_path();

/// One machine's entries of a wisdom file.
class GemvWisdom {
public:
  /// Reads `path`'s entries for `machine`. A missing file is empty wisdom;
  /// one that cannot be read or parsed is too, with one line on stderr naming
  /// the file and the problem (it is a cache: the next save replaces it).
  GemvWisdom(std::string path, std::string machine);

  std::optional<GemvWisdomEntry> find(const std::string &shape) const;
  void put(const std::string &shape, const GemvWisdomEntry &entry);

  /// Writes the file back (other machines' entries kept), through a
  /// temporary file and a rename so a reader never sees half of it. Creates
  /// the folder. On failure prints one line on stderr and returns false.
  bool save() const;

private:
  std::string path_, machine_;
  std::map<std::string, GemvWisdomEntry> entries_;
};

} // namespace engine
