//===- InputGuard.h - What the compiler tools do before trusting input --*-===//
//
// Two guards for hccl-opt, hccl-translate and the fuzz targets (see
// docs/security.md, "Compiler inputs"):
//
//  - a nesting pre-scan: MLIR 19's parser recurses once per bracket, brace
//    or region level and has no depth limit, so 5000 nested regions or a
//    deep attribute overflowed the stack (SIGSEGV, no diagnostic). The
//    scan rejects input nested deeper than --max-nesting with file:line:col
//    before anything parses it;
//  - crash containment: the tool's work runs in a forked child, so a crash
//    the scan cannot foresee (MLIR 19's parser frees values still in use on
//    some invalid inputs) ends in a clear error and an exit status instead
//    of a signal.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_TOOLS_COMMON_INPUTGUARD_H
#define HCCL_MLIR_TOOLS_COMMON_INPUTGUARD_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"
#include "llvm/Support/SourceMgr.h"

#include <optional>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace hccl::tools {

/// Default --max-nesting: 512 levels. MLIR 19 overflows an 8 MiB stack at
/// about 4200 levels of generic-form regions (2 brackets each), 4100
/// nested regions in custom form, 6500-7000 nested attributes and 15000
/// nested types; generated IR and JAX/PyTorch exports stay under 30.
inline constexpr unsigned kDefaultMaxNesting = 512;

/// The limit in force (--max-nesting, registered by this library).
unsigned maxNesting();

/// Where `text` first nests deeper than `limit`: brackets, braces,
/// parentheses and angle brackets outside string literals and // comments
/// (`->`, `<=`, `>=` are not brackets; a `<` left open is closed with its
/// enclosing group). 1-based line and column.
struct NestingExcess {
  unsigned line = 0, column = 0;
};
std::optional<NestingExcess> findExcessNesting(llvm::StringRef text,
                                               unsigned limit);

/// The error for an excess, as "input nests ...": callers prefix the
/// location.
std::string nestingMessage(unsigned limit);

/// Checks a whole input file; prints "<file>:L:C: error: ..." to stderr.
llvm::LogicalResult checkNesting(const llvm::MemoryBuffer &buffer);

/// Checks the main buffer of `sm`, as an MLIR error at file:line:col.
llvm::LogicalResult checkNesting(const llvm::SourceMgr &sm,
                                 mlir::MLIRContext *ctx);

/// Runs `body` (the tool's main) in a forked child and returns its exit
/// status. A child killed by a crash signal (SIGSEGV, SIGABRT, ...) is
/// reported as one error line and status 70 (EX_SOFTWARE); SIGINT, SIGTERM,
/// SIGHUP and SIGQUIT are passed on to the child and end the parent the
/// same way. HCCL_TOOLS_NO_FORK=1 runs `body` in-process (debuggers,
/// profilers).
int runContained(llvm::StringRef tool, llvm::function_ref<int()> body);

} // namespace hccl::tools

#endif
