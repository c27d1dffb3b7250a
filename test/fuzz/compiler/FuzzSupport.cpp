//===- FuzzSupport.cpp - Shared setup of the compiler fuzz targets --------===//
#include "FuzzSupport.h"

#include "InputGuard.h"

#include "hccl-mlir/Dialect/Comm/CommOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringSet.h"

#include <vector>

void hccl::fuzz::registerDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::comm::CommDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::tensor::TensorDialect,
                  mlir::memref::MemRefDialect, mlir::scf::SCFDialect,
                  mlir::linalg::LinalgDialect>();
}

bool hccl::fuzz::tooDeep(llvm::StringRef text) {
  return hccl::tools::findExcessNesting(text, tools::kDefaultMaxNesting)
      .has_value();
}

static bool isNameChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.' || c == '-';
}

bool hccl::fuzz::hasForwardReference(llvm::StringRef text) {
  // Names per brace scope: a region's names end with it, as the parser's do.
  std::vector<llvm::StringSet<>> scopes(1);
  auto known = [&](llvm::StringRef name) {
    for (const llvm::StringSet<> &s : scopes)
      if (s.contains(name))
        return true;
    return false;
  };
  const size_t n = text.size();
  for (size_t i = 0; i < n; ++i) {
    char c = text[i];
    if (c == '"') {
      for (++i; i < n && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      while (i < n && text[i] != '\n')
        ++i;
      continue;
    }
    if (c == '{') {
      scopes.emplace_back();
      continue;
    }
    if (c == '}') {
      if (scopes.size() > 1)
        scopes.pop_back();
      continue;
    }
    if (c != '%')
      continue;
    size_t b = i + 1, e = b;
    while (e < n && isNameChar(text[e]))
      ++e;
    llvm::StringRef name = text.slice(b, e);
    size_t k = e;
    while (k < n && (text[k] == ' ' || text[k] == '\t'))
      ++k;
    // `%x =`, `%x:2 =`, `%x: type` (block and function arguments) define.
    bool def =
        k < n && ((text[k] == '=' && (k + 1 >= n || text[k + 1] != '=')) ||
                  text[k] == ':');
    if (def)
      scopes.back().insert(name);
    else if (!known(name))
      return true;
    i = e - 1;
  }
  return false;
}
