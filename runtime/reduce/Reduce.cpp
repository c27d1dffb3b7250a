//===- Reduce.cpp - Dispatch of the reduction kernels ---------------------===//
#include "Reduce.h"
#include "Copy.h"
#include "KernelIsa.h"

namespace hccl::rt {
namespace {

bool inRange(sched::DataType type, sched::ReduceOp op) {
  int t = static_cast<int>(type), o = static_cast<int>(op);
  return t >= 0 && t < sched::kNumDataTypes && o >= 0 && o < 4;
}

bool cpuHasAvx2() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("f16c");
#else
  return false;
#endif
}

const detail::KernelTable *tableFor(KernelIsa isa) {
  switch (isa) {
  case KernelIsa::Generic:
    return &detail::genericKernels();
  case KernelIsa::Avx2: {
    static const bool ok = cpuHasAvx2();
    return ok ? detail::avx2Kernels() : nullptr;
  }
  }
  return nullptr;
}

const detail::KernelTable &activeTable() {
  static const detail::KernelTable *t = tableFor(activeKernelIsa());
  return *t;
}

bool run(const detail::KernelTable &table, void *dst, const void *const *srcs,
         int k, size_t count, sched::DataType type, sched::ReduceOp op) {
  if (k < 1 || !inRange(type, op))
    return false;
  if (count == 0)
    return true;
  if (k == 1) {
    if (dst != srcs[0])
      moveBytes(dst, srcs[0], count * sched::dataTypeSize(type));
    return true;
  }
  table.fn[static_cast<int>(type)][static_cast<int>(op)](dst, srcs, k, count);
  return true;
}

} // namespace

const char *kernelIsaName(KernelIsa isa) {
  switch (isa) {
  case KernelIsa::Generic:
    return "generic";
  case KernelIsa::Avx2:
    return "avx2";
  }
  return "invalid";
}

bool kernelIsaAvailable(KernelIsa isa) { return tableFor(isa) != nullptr; }

KernelIsa activeKernelIsa() {
  static const KernelIsa isa = kernelIsaAvailable(KernelIsa::Avx2)
                                   ? KernelIsa::Avx2
                                   : KernelIsa::Generic;
  return isa;
}

bool reduceManyWith(KernelIsa isa, void *dst, const void *const *srcs, int k,
                    size_t count, sched::DataType type, sched::ReduceOp op) {
  const detail::KernelTable *t = tableFor(isa);
  return t && run(*t, dst, srcs, k, count, type, op);
}

bool reduceManyStreamedWith(KernelIsa isa, void *dst, const void *const *srcs,
                            int k, size_t count, sched::DataType type,
                            sched::ReduceOp op, void *copy, bool copyStreamed) {
  const detail::KernelTable *t = tableFor(isa);
  if (!t || k < 2 || k > kMaxStreamedSources || !inRange(type, op))
    return false;
  if (count > 0)
    t->streamed[static_cast<int>(type)][static_cast<int>(op)](
        dst, copy, copyStreamed, srcs, k, count);
  return true;
}

bool isValidReduction(sched::DataType type, sched::ReduceOp op) {
  return inRange(type, op);
}

bool reduce(void *dst, const void *a, const void *b, size_t count,
            sched::DataType type, sched::ReduceOp op) {
  const void *srcs[2] = {a, b};
  return run(activeTable(), dst, srcs, 2, count, type, op);
}

bool reduceMany(void *dst, const void *const *srcs, int k, size_t count,
                sched::DataType type, sched::ReduceOp op) {
  return run(activeTable(), dst, srcs, k, count, type, op);
}

} // namespace hccl::rt
