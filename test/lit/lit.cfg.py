# lit configuration for perfcc. Substitutions:
#   %opt        opt of the plugin's LLVM, with the plugin loaded
#                 (use: %opt -passes=perf-instrument -S %s)
#   %clang %clangxx   that LLVM's clang drivers
#   %plugin     path to libperfpass.so      %perfrt   path to libperfrt.so
#   %libdir     folder holding both         %perfcc   the compiler wrapper
#   %perfctl    the trace tool (when built) %python   a Python 3 interpreter
#   %tracecheck test/lit/tracecheck.py: validates and prints traces for FileCheck
#   %srcroot %objroot   the source and build folders
import os
import shutil
import subprocess
import lit.formats

config.name = "perfcc-" + config.perfcc_suite
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".ll", ".c", ".cpp", ".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.join(config.perfcc_src_root, "test", "lit", config.perfcc_suite)
config.test_exec_root = os.path.join(config.perfcc_obj_root, "test", "lit", config.perfcc_suite)

lib = os.path.join(config.perfcc_obj_root, "lib")
bin_dir = os.path.join(config.perfcc_obj_root, "bin")
src = config.perfcc_src_root

config.substitutions.append(("%opt", "%s/opt -load-pass-plugin=%s/libperfpass.so" % (config.llvm_bin_dir, lib)))
config.substitutions.append(("%clangxx", config.llvm_bin_dir + "/clang++"))
config.substitutions.append(("%clang", config.llvm_bin_dir + "/clang"))
config.substitutions.append(("%plugin", lib + "/libperfpass.so"))
config.substitutions.append(("%perfrt", lib + "/libperfrt.so"))
config.substitutions.append(("%libdir", lib))
config.substitutions.append(("%perfcc", bin_dir + "/perfcc"))
config.substitutions.append(("%perfctl", bin_dir + "/perfctl"))
config.substitutions.append(("%tracecheck", "%s %s/test/lit/tracecheck.py" % (config.python, src)))
config.substitutions.append(("%python", config.python))
config.substitutions.append(("%srcroot", src))
config.substitutions.append(("%objroot", config.perfcc_obj_root))

# FileCheck, not, count and split-file come from the same LLVM.
config.environment["PATH"] = os.pathsep.join([config.llvm_bin_dir, bin_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
# A sanitized build (PERFCC_SANITIZE): libperfrt.so carries AddressSanitizer
# or ThreadSanitizer, and the programs the tests build with perfcc do not, so
# its runtime must be loaded first in every process that loads the runtime.
# AddressSanitizer's is preloaded into all (clang, FileCheck and Python too;
# LLVM frees little at exit by design, so leaks are not reported here: the
# unit tests report them). TSan then sees the runtime's own memory accesses
# (its writer thread, chunk pool, signal and fork paths) and the program's
# locks and threads through its interceptors.
if config.perfcc_sanitize == "thread":
    # Not preloaded (bash crashes under it): perfcc links it into the
    # programs it builds, first (driver/perfcc/CMakeLists.txt).
    config.environment["TSAN_OPTIONS"] = (
        "halt_on_error=1:exitcode=66:second_deadlock_stack=1:die_after_fork=0:"
        "suppressions=" + os.path.join(src, "test", "tsan.supp"))
elif config.perfcc_sanitizer_runtime:
    config.environment["LD_PRELOAD"] = config.perfcc_sanitizer_runtime
    config.environment["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=1"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1"
# A test starts from default settings whatever the caller's shell exported.
for var in list(os.environ):
    if (var.startswith("PERFCC_") or var.startswith("SPEED_BUMP_")
            or var == "CUDA_INJECTION64_PATH"):
        config.environment.pop(var, None)
config.available_features.add("llvm-" + config.llvm_version)
if config.perfcc_sanitize:
    config.available_features.add("sanitized")
# ThreadSanitizer cannot follow a fork from a program whose threads run (the
# writer thread, from the first chunk in trace mode): the child's first new
# thread reuses the id of one the fork did not copy ("dup thread with used
# id"), which TSan reports and stops on.
if config.perfcc_sanitize and "thread" in config.perfcc_sanitize:
    config.available_features.add("tsan")
# perfctl export's callgrind files are read back by valgrind's reader.
if shutil.which("callgrind_annotate"):
    config.available_features.add("callgrind_annotate")
# perfctl export's pprof profiles are read back by Go's pprof (`go tool
# pprof`), the binary in the Go toolchain's tool folder.
if shutil.which("go"):
    tools = subprocess.run(["go", "env", "GOTOOLDIR"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True).stdout.strip()
    if tools and os.access(os.path.join(tools, "pprof"), os.X_OK):
        config.available_features.add("pprof")
        config.substitutions.append(("%pprof", os.path.join(tools, "pprof")))
# The trace-viewer check (scripts/check-trace-viewer.sh) needs Chromium and node.
if os.path.exists("/usr/bin/chromium") and shutil.which("node") and shutil.which("npm"):
    config.available_features.add("chromium")
# The build found the CUDA toolkit: the CUPTI adapter and NVTX are built.
if config.perfcc_have_cuda:
    config.available_features.add("cuda-toolkit")
# No CUDA driver on this machine (CI, the developers' machines): CUDA
# programs fail their calls, and the runtime says CUPTI is unavailable.
if not any(os.path.exists(os.path.join(d, "libcuda.so.1")) for d in (
        "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/local/nvidia/lib64",
        "/usr/lib/wsl/lib")):
    config.available_features.add("no-cuda-driver")
