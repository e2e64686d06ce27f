# The engine proper: scheduling (BlockManager, Scheduler, Sampler) and the
# model side (Qwen3 model, KV cache, ModelRunner, LLMEngine).
if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/scheduling.cmake)
  include(${CMAKE_CURRENT_SOURCE_DIR}/scheduling.cmake)
endif()

# The engine library: model-side code plus everything below it.
if(TARGET engine_scheduling AND TARGET engine_cpu AND TARGET engine_io AND
   TARGET engine_tokenizer)
  add_library(engine STATIC
    engine_config.cpp forward_batch.cpp kv_cache.cpp qwen3_weights.cpp
    qwen3_cpu_model.cpp cpu_model_runner.cpp llm_engine.cpp progress_bar.cpp)
  target_link_libraries(engine PUBLIC engine_scheduling engine_cpu engine_io
    engine_tokenizer)
endif()
