//===- FuzzSupport.h - Compiler fuzz targets' setup -------------*- C++ -*-===//
#ifndef HCCL_MLIR_TEST_FUZZ_COMPILER_FUZZSUPPORT_H
#define HCCL_MLIR_TEST_FUZZ_COMPILER_FUZZSUPPORT_H

#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>

namespace hccl::fuzz {

/// The bytes as text (libFuzzer's data is not null-terminated).
inline llvm::StringRef asText(const uint8_t *data, size_t size) {
  return llvm::StringRef(reinterpret_cast<const char *>(data), size);
}

/// hccl-opt's dialects.
void registerDialects(mlir::DialectRegistry &registry);

/// What the tools refuse before parsing: nesting over --max-nesting's
/// default (tools/common/InputGuard.h).
bool tooDeep(llvm::StringRef text);

/// True when an SSA name is used before anything that looks like its
/// definition. MLIR 19's parser frees values still in use when such a
/// forward reference is resolved inside a region that is then abandoned
/// (docs/security.md): the tools contain that crash in a child process, an
/// in-process fuzz target cannot, so it skips these inputs rather than
/// rediscover the upstream bug.
bool hasForwardReference(llvm::StringRef text);

} // namespace hccl::fuzz

#endif
