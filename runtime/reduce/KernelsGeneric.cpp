//===- KernelsGeneric.cpp - Reduction kernels for the baseline target -----===//
//
// Built with the toolchain's default target flags, so it runs on any CPU the
// library runs on; the loops auto-vectorise to that target's vector width.
//
//===----------------------------------------------------------------------===//
#include "KernelTemplates.h"

namespace hccl::rt::detail {

const KernelTable &genericKernels() {
  static const KernelTable table = makeKernelTable<HalfConvGeneric>();
  return table;
}

} // namespace hccl::rt::detail
