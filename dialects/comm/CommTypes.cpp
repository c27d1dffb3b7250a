//===- CommTypes.cpp - comm dialect types ---------------------------------===//
#include "hccl-mlir/Dialect/Comm/CommDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::comm;

#define GET_TYPEDEF_CLASSES
#include "hccl-mlir/Dialect/Comm/CommTypes.cpp.inc"

void CommDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "hccl-mlir/Dialect/Comm/CommTypes.cpp.inc"
      >();
}
