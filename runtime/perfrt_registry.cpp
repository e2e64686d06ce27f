//===- perfrt_registry.cpp - register descriptor sections -----------------===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_registry.h"
#include "perfrt_runtime.h"

#include "perfrt_speedup.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>
#include <unordered_map>

namespace perfrt {

Registry gRegistry;
static_assert(std::is_trivially_destructible<Registry>::value,
              "the exit-time flush reads gRegistry after static destructors");

namespace {
// Registration is rare (start-up, dlopen) and may come from several threads
// loading libraries at once; a mutex is fine here, never on the hot path.
std::mutex registryMutex;

const char *copyString(const char *s) { return strdup(s ? s : ""); }

/// The id each function got, by its identity (linkage name, file, line): a
/// library loaded again after dlclose, or an inline function compiled into
/// two modules, is the same function to the user, so its calls are counted
/// under one id instead of a new entry per load (a plugin reloaded 2,000
/// times would otherwise be 2,000 functions in the summary). Allocated once
/// and never freed, as the registry is never destroyed.
std::unordered_map<std::string, uint32_t> *idsByIdentity;

/// What a function's probes do, from its record. In a virtual speedup every
/// probe is a place to pay owed delays.
uint32_t probeBits(const FunctionRecord &r) {
  return (r.enabled ? PERFCC_ENABLED_RECORD : 0) |
         (r.delayed ? PERFCC_ENABLED_DELAY : 0) |
         (gSpeedup.on ? PERFCC_ENABLED_CATCHUP : 0) |
         (r.enabled && gRt.flags.nvtx ? PERFCC_ENABLED_NVTX : 0) |
         (r.enabled && gRt.flags.cpuTime ? PERFCC_ENABLED_CPU : 0);
}

std::string identityOf(const perfcc_desc &d) {
  std::string key = d.mangled ? d.mangled : "";
  key += '\0';
  key += d.file ? d.file : "";
  key += '\0';
  key += std::to_string(d.line);
  return key;
}
} // namespace

void Registry::add(perfcc_desc *begin, perfcc_desc *end,
                   const perfcc::Selection *selection, bool recordAll,
                   const perfcc::Selection *delays) {
  std::lock_guard<std::mutex> lock(registryMutex);
  // Every module of a DSO may call with the same section; the first call
  // registers it. (Not by address: a library dlclose'd and loaded again may
  // come back at the same address, with fresh descriptors.)
  if (begin < end && begin->id != 0)
    return;

  if (!idsByIdentity)
    idsByIdentity = new std::unordered_map<std::string, uint32_t>();
  for (perfcc_desc *d = begin; d < end; ++d) {
    if (d->id != 0)
      continue; // already known (a descriptor reached through two sections)
    auto known = idsByIdentity->find(identityOf(*d));
    if (known != idsByIdentity->end()) {
      d->id = known->second;
      __atomic_store_n(&d->enabled, probeBits(get(known->second)),
                       __ATOMIC_RELEASE);
      continue;
    }
    uint32_t id = count.load(std::memory_order_relaxed) + 1;
    uint32_t page = (id - 1) / PageSize;
    if (page >= MaxPages)
      return; // beyond a million functions: the rest stay disabled
    FunctionRecord *p = pages[page].load(std::memory_order_relaxed);
    if (!p) {
      p = static_cast<FunctionRecord *>(
          std::calloc(PageSize, sizeof(FunctionRecord)));
      if (!p)
        return;
      pages[page].store(p, std::memory_order_release);
    }
    FunctionRecord &r = p[(id - 1) % PageSize];
    r.name = copyString(d->name);
    r.mangled = copyString(d->mangled);
    r.file = copyString(d->file);
    r.line = d->line;
    r.flags = d->flags;

    bool enabled = recordAll;
    if (enabled && selection) {
      int rule = -1;
      perfcc::Verdict v = selection->match({r.name, r.mangled, r.file}, rule);
      if (rule >= 0 && unsigned(rule) < MaxRules)
        used[rule] = true;
      enabled = v == perfcc::Verdict::Include ||
                (v == perfcc::Verdict::NoMatch && selection->isScoreP());
    }
    r.enabled = enabled;
    // Speed bumps go only where the delay targets file names a function:
    // a Score-P filter's include-by-default would slow everything.
    bool delayed = false;
    if (delays) {
      int rule = -1;
      delayed = delays->match({r.name, r.mangled, r.file}, rule) ==
                perfcc::Verdict::Include;
      if (rule >= 0 && unsigned(rule) < MaxRules)
        usedDelay[rule] = true;
    }
    r.delayed = delayed;
    count.store(id, std::memory_order_release);
    d->id = id;
    idsByIdentity->emplace(identityOf(*d), id);
    // Published last: a probe that sees the bits also sees the id.
    __atomic_store_n(&d->enabled, probeBits(r), __ATOMIC_RELEASE);
  }
}

std::vector<bool> Registry::usedRules(size_t ruleCount) const {
  std::lock_guard<std::mutex> lock(registryMutex);
  std::vector<bool> result(ruleCount);
  for (size_t i = 0; i < ruleCount && i < MaxRules; ++i)
    result[i] = used[i];
  return result;
}

std::vector<bool> Registry::usedDelayRules(size_t ruleCount) const {
  std::lock_guard<std::mutex> lock(registryMutex);
  std::vector<bool> result(ruleCount);
  for (size_t i = 0; i < ruleCount && i < MaxRules; ++i)
    result[i] = usedDelay[i];
  return result;
}

void Registry::resetForTest() {
  std::lock_guard<std::mutex> lock(registryMutex);
  std::fill(used, used + MaxRules, false);
  std::fill(usedDelay, usedDelay + MaxRules, false);
  count.store(0);
  if (idsByIdentity)
    idsByIdentity->clear();
}

} // namespace perfrt

PERFRT_NOINSTR_END
