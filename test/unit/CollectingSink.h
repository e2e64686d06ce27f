// A perfrt_gpu_sink that keeps what it is handed, and the adapter's replay
// entry point: what the CUPTI adapter's tests (CuptiAdapterTest, built
// buffers; CuptiReplayTest, a real GPU's) drive it with and read back.
#ifndef PERFCC_TEST_COLLECTING_SINK_H
#define PERFCC_TEST_COLLECTING_SINK_H

#include "perfrt_gpu_records.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

extern "C" void perfrt_cupti_replay(
    const perfrt_gpu_sink *sink, uint8_t *buffer, size_t validSize,
    const char *(*keptName)(const char *address, void *context), void *context);

namespace collecting {

inline std::vector<std::string> strings{""}; // interned; id 0: no name
inline std::vector<perfrt_gpu_api> apis;
inline std::vector<perfrt_gpu_work> work;

inline uint32_t intern(const char *text) {
  for (uint32_t i = 0; i < strings.size(); ++i)
    if (strings[i] == text)
      return i;
  strings.emplace_back(text);
  return uint32_t(strings.size() - 1);
}
inline void records(const perfrt_gpu_api *a, uint32_t na,
                    const perfrt_gpu_work *w, uint32_t nw) {
  apis.insert(apis.end(), a, a + na);
  work.insert(work.end(), w, w + nw);
}
inline uint64_t now() { return 0; }

inline const perfrt_gpu_sink sink = {PERFRT_GPU_SINK_VERSION,
                                     1,
                                     now,
                                     intern,
                                     records,
                                     nullptr,
                                     nullptr,
                                     nullptr,
                                     nullptr,
                                     -1};

} // namespace collecting

#endif // PERFCC_TEST_COLLECTING_SINK_H
