# Stand-in for LevelDB's benchmark submodule: Debian's Google Benchmark.
find_package(benchmark REQUIRED)
add_library(benchmark INTERFACE)
target_link_libraries(benchmark INTERFACE benchmark::benchmark)
