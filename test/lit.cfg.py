# lit configuration of the hccl-mlir FileCheck suites.
import os
import sys

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "hccl-mlir"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.hccl_obj_root, "test")
# fuzz/: libFuzzer seed corpora (inputs, many invalid on purpose), not tests;
# Translate/corpus/: StableHLO programs stablehlo-corpus.test runs.
config.excludes = ["Inputs", "unit", "downstream", "fuzz", "corpus",
                   "CMakeLists.txt",
                   "lit.cfg.py", "lit.site.cfg.py", "README.md"]

llvm_config.use_default_substitutions()
config.substitutions.append(("%hccl_libs", config.hccl_lib_dir))
config.substitutions.append(("%hccl_bin", config.hccl_tools_dir))
config.substitutions.append(("%hccl_src", config.hccl_src_root))
config.substitutions.append(("%python", config.python_executable))

# Our tools first; upstream mlir-opt from LLVM 19 for the plugin tests.
tool_dirs = [config.hccl_tools_dir, config.llvm_tools_dir]
tools = [
    ToolSubst(t, unresolved="ignore")
    for t in ["not", "count", "split-file", "hccl-opt", "hccl-translate", "hccl-plan", "hccl-run",
              "hccl-test", "hccl-sim", "mlir-opt"]
]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.hccl_tools_dir, append_path=True)

# Features of the Python tools' tests: tools/export needs Debian's torch and
# torchvision, tools/plot matplotlib, both from /usr/bin/python3 (the
# interpreter those scripts name). Tests without them report UNSUPPORTED.
import subprocess


def _python_has(modules):
    try:
        return subprocess.run(["/usr/bin/python3", "-c", "import " + modules],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=300).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


# Whether shared memory gets transparent huge pages when it asks
# (hccl-run's note on a span's pages, tools/common/HostMemory.h).
sys.path.insert(0, os.path.join(config.hccl_src_root, "tools", "calibrate"))
import host_memory  # noqa: E402


def _shmem_huge_pages():
    return host_memory.shmem_huge_mode() in host_memory.ALLOWING


if _shmem_huge_pages():
    config.available_features.add("shmem-huge-pages")
if _python_has("torch, torchvision"):
    config.available_features.add("torch")
if _python_has("matplotlib"):
    config.available_features.add("matplotlib")
