//===- KernelsGeneric.cpp - Reduction kernels for the baseline target -----===//
//
// Built with the toolchain's default target flags, so it runs on any CPU the
// library runs on; the loops auto-vectorise to that target's vector width.
//
//===----------------------------------------------------------------------===//
#include "KernelTemplates.h"
#include "VectorCopy.h"

namespace hccl::rt {
namespace {
/// 16-byte streaming stores (SSE2, in every x86-64 CPU); memcpy elsewhere.
/// No fused kernels: every streamed reduction goes through L1 blocks.
struct StreamBaseline {
  static void store(char *dst, const char *src, size_t bytes) {
    detail::streamBytes(dst, src, bytes);
  }
  template <typename T, typename Op>
  static bool fusedPair(T *, T *, bool, const T *, const T *, size_t) {
    return false;
  }
};
} // namespace
} // namespace hccl::rt

namespace hccl::rt::detail {

const KernelTable &genericKernels() {
  static const KernelTable table =
      makeKernelTable<HalfConvGeneric, StreamBaseline>();
  return table;
}

} // namespace hccl::rt::detail
