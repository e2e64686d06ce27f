# `cmake --install BUILD --prefix P` gives a working toolchain: P/bin (perfcc,
# perfcc++, perfctl), P/lib (libperfpass.so, libperfrt.so), P/include/perf/
# perf.h, and the files a project finds it by: P/lib/cmake/perfcc/ (CMake
# package) and P/lib/pkgconfig/perfcc.pc. perfcc finds the plugin, the runtime
# and the header relative to itself, so the three folders stay siblings: plain
# bin/lib/include, never a multiarch lib/ folder.
# test/lit/driver/install-gives-a-working-toolchain.test installs to a
# temporary prefix and builds and traces a program with it.
include(CMakePackageConfigHelpers)

configure_file(${CMAKE_CURRENT_LIST_DIR}/perfccConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/perfccConfig.cmake @ONLY)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/perfccConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/perfccConfig.cmake
  ${CMAKE_BINARY_DIR}/cmake/perfccConfigVersion.cmake
  DESTINATION lib/cmake/perfcc)

# The prefix is only known at install time (--prefix), so the .pc file is
# written then.
install(CODE "
  set(PROJECT_VERSION \"${PROJECT_VERSION}\")
  set(PERFCC_LLVM_VERSION \"${PERFCC_LLVM_VERSION}\")
  set(CMAKE_INSTALL_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  configure_file(\"${CMAKE_CURRENT_LIST_DIR}/perfcc.pc.in\"
    \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib/pkgconfig/perfcc.pc\" @ONLY)
  message(STATUS \"Installing: \$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib/pkgconfig/perfcc.pc\")
")
