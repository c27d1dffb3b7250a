//===- CommDialect.cpp - comm dialect registration and attr checks --------===//
#include "hccl-mlir/Dialect/Comm/CommOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::comm;

#include "hccl-mlir/Dialect/Comm/CommDialect.cpp.inc"

void CommDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "hccl-mlir/Dialect/Comm/CommOps.cpp.inc"
      >();
}

/// Discardable comm.* attributes: comm.topology on a module, comm.cost_us
/// (non-negative number) and comm.bucket (non-negative integer) on any op.
LogicalResult CommDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == getTopologyAttrName()) {
    if (!isa<ModuleOp>(op))
      return op->emitError()
             << "'" << name << "' belongs on a builtin.module, found it on '"
             << op->getName() << "'";
    if (!isa<TopologyAttr>(attr.getValue()))
      return op->emitError()
             << "'" << name << "' must be a #comm.topology attribute, found "
             << attr.getValue()
             << "; accepted forms: #comm.topology<\"PRESET\"> with PRESET one "
                "of "
             << hccl::sched::Topology::presetForms()
             << ", or #comm.topology<servers = N, devices = M, intra = ..., "
                "inter = ..., reduce = G>";
    return success();
  }
  if (name == getCostAttrName()) {
    double v = -1;
    if (auto f = dyn_cast<FloatAttr>(attr.getValue()))
      v = f.getValueAsDouble();
    else if (auto i = dyn_cast<IntegerAttr>(attr.getValue()))
      v = static_cast<double>(i.getInt());
    else
      return op->emitError()
             << "'" << name << "' must be a number of microseconds, found "
             << attr.getValue();
    // inf passed `>= 0` and reached plans as JSON null.
    if (!std::isfinite(v))
      return op->emitError() << "'" << name
                             << "' must be a finite number of microseconds, "
                                "found "
                             << v;
    if (!(v >= 0))
      return op->emitError() << "'" << name << "' must be >= 0, found " << v;
    return success();
  }
  if (name == getBucketAttrName()) {
    auto i = dyn_cast<IntegerAttr>(attr.getValue());
    if (!i || i.getInt() < 0)
      return op->emitError()
             << "'" << name << "' must be a non-negative integer, found "
             << attr.getValue();
    return success();
  }
  return success();
}

/// Folders of comm.emod / comm.param / comm.table_at produce index
/// constants; they materialise as arith.constant.
Operation *CommDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  if (auto i = dyn_cast<IntegerAttr>(value))
    if (type.isIndex() || isa<IntegerType>(type))
      return builder.create<arith::ConstantOp>(loc, type, i);
  return nullptr;
}

std::optional<hccl::sched::DataType> mlir::comm::toScheduleType(Type t) {
  using hccl::sched::DataType;
  if (t.isF16())
    return DataType::Fp16;
  if (t.isBF16())
    return DataType::Bf16;
  if (t.isF32())
    return DataType::Fp32;
  if (t.isF64())
    return DataType::Fp64;
  auto it = dyn_cast<IntegerType>(t);
  if (!it)
    return std::nullopt;
  bool u = it.isUnsigned();
  switch (it.getWidth()) {
  case 8:
    return u ? DataType::Uint8 : DataType::Int8;
  case 16:
    return u ? DataType::Uint16 : DataType::Int16;
  case 32:
    return u ? DataType::Uint32 : DataType::Int32;
  case 64:
    return u ? DataType::Uint64 : DataType::Int64;
  default:
    return std::nullopt;
  }
}
