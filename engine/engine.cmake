# The engine proper: scheduling (BlockManager, Scheduler, Sampler) and the
# model side (Qwen3 model, KV cache, ModelRunner, LLMEngine).
if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/scheduling.cmake)
  include(${CMAKE_CURRENT_SOURCE_DIR}/scheduling.cmake)
endif()
