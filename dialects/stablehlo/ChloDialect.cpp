//===- ChloDialect.cpp - CHLO ops JAX writes ------------------------------===//
#include "hccl-mlir/Dialect/StableHLO/Chlo.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::chlo;

#include "hccl-mlir/Dialect/StableHLO/ChloDialect.cpp.inc"

void ChloDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "hccl-mlir/Dialect/StableHLO/ChloOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "hccl-mlir/Dialect/StableHLO/ChloOps.cpp.inc"
