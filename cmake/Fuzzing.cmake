# perfcc_fuzzer(NAME SOURCES src... [LIBS -lfoo...] [INCLUDES dir...]
#               [CORPUS dir] [RUNS n] [LABELS a;b])
# builds a libFuzzer target with the project's clang (address and undefined
# sanitizers) and registers a ctest that runs it for RUNS inputs (20,000 by
# default) from the seed corpus, copied first so the run's findings do not
# land in the source tree: a bounded smoke run in CI, and the binary for
# longer runs by hand (scripts/fuzz.sh). Every fuzzer of the project, the
# engine's and the toolchain's, is built here.
function(perfcc_fuzzer name)
  cmake_parse_arguments(F "" "CORPUS;RUNS" "SOURCES;LIBS;INCLUDES;LABELS" ${ARGN})
  if(NOT F_RUNS)
    set(F_RUNS 20000)
  endif()
  if(NOT F_LABELS)
    set(F_LABELS fuzz)
  endif()
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${name})
  set(incs -I${PROJECT_SOURCE_DIR} -isystem ${PROJECT_SOURCE_DIR}/runtime/include)
  foreach(i ${F_INCLUDES})
    list(APPEND incs -I${i})
  endforeach()
  add_custom_command(OUTPUT ${out}
    COMMAND ${PERFCC_CLANGXX} -std=c++17 -O1 -g
      -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
      ${incs} ${F_SOURCES} ${F_LIBS} -o ${out}
    DEPENDS ${F_SOURCES}
    COMMENT "Building fuzzer ${name} with ${PERFCC_CLANGXX}"
    COMMAND_EXPAND_LISTS VERBATIM)
  add_custom_target(${name}_build ALL DEPENDS ${out})
  set(work ${CMAKE_CURRENT_BINARY_DIR}/${name}.corpus)
  add_test(NAME ${name}
    COMMAND sh -c "rm -rf '${work}' && mkdir -p '${work}' && cp -r '${F_CORPUS}'/. '${work}'/ && '${out}' -runs=${F_RUNS} -seed=1 -max_len=65536 '${work}'")
  set_tests_properties(${name} PROPERTIES LABELS "${F_LABELS}" TIMEOUT 300)
endfunction()
