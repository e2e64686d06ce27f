# engine_scheduling: the BlockManager (paged KV blocks, prefix caching), the
# Scheduler (continuous batching, preemption) and the Sampler. Included from
# engine/engine.cmake.
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)

add_library(engine_scheduling STATIC
  ${CMAKE_CURRENT_LIST_DIR}/block_manager.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scheduler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sampler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sampler_kernels.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sampling_params.cpp)
target_link_libraries(engine_scheduling PUBLIC engine_base
  PRIVATE PkgConfig::XXHASH)
