//===- Tensors.cpp - torch tensors and reduce ops as HCCL buffers ---------===//

#include "Tensors.h"

#include <c10/util/Exception.h>

namespace hccl_torch {

HcclDataType hcclType(at::ScalarType t, const std::string &what) {
  switch (t) {
  case at::kChar:
    return HCCL_DATA_TYPE_INT8;
  case at::kShort:
    return HCCL_DATA_TYPE_INT16;
  case at::kInt:
    return HCCL_DATA_TYPE_INT32;
  case at::kLong:
    return HCCL_DATA_TYPE_INT64;
  case at::kByte:
    return HCCL_DATA_TYPE_UINT8;
  case at::kBool:
    return HCCL_DATA_TYPE_UINT8;
  case at::kHalf:
    return HCCL_DATA_TYPE_FP16;
  case at::kBFloat16:
    return HCCL_DATA_TYPE_BFP16;
  case at::kFloat:
    return HCCL_DATA_TYPE_FP32;
  case at::kDouble:
    return HCCL_DATA_TYPE_FP64;
  case at::kComplexFloat:
    return HCCL_DATA_TYPE_FP32;
  case at::kComplexDouble:
    return HCCL_DATA_TYPE_FP64;
  default:
    TORCH_CHECK_TYPE(false, "hccl: ", what, ": dtype ", t,
                     " is not supported (int8/16/32/64, uint8, bool, "
                     "float16, bfloat16, float32, float64, complex64/128)");
  }
}

Buffer bufferOf(const at::Tensor &t) {
  Buffer b;
  b.ptr = t.data_ptr();
  b.type = hcclType(t.scalar_type(), "tensor");
  b.count = static_cast<uint64_t>(t.numel()) * (t.is_complex() ? 2 : 1);
  return b;
}

Reduction hcclReduction(const c10d::ReduceOp &op, at::ScalarType t) {
  Reduction r;
  bool isBool = t == at::kBool;
  bool isComplex = at::isComplexType(t);
  switch (op.op_) {
  case c10d::ReduceOp::SUM:
    r.op = isBool ? HCCL_REDUCE_MAX : HCCL_REDUCE_SUM;
    return r;
  case c10d::ReduceOp::AVG:
    TORCH_CHECK_VALUE(at::isFloatingType(t) || isComplex,
                      "hccl: ReduceOp.AVG needs a floating or complex dtype, "
                      "found ",
                      t);
    r.op = HCCL_REDUCE_SUM;
    r.average = true;
    return r;
  case c10d::ReduceOp::PRODUCT:
    TORCH_CHECK_VALUE(!isComplex,
                      "hccl: ReduceOp.PRODUCT of complex tensors is not "
                      "supported (the runtime reduces real numbers)");
    r.op = isBool ? HCCL_REDUCE_MIN : HCCL_REDUCE_PROD;
    return r;
  case c10d::ReduceOp::MIN:
  case c10d::ReduceOp::MAX:
    TORCH_CHECK_VALUE(!isComplex, "hccl: ReduceOp.",
                      op.op_ == c10d::ReduceOp::MIN ? "MIN" : "MAX",
                      " is undefined for complex tensors");
    r.op = op.op_ == c10d::ReduceOp::MIN ? HCCL_REDUCE_MIN : HCCL_REDUCE_MAX;
    return r;
  default:
    break;
  }
  const char *name = op.op_ == c10d::ReduceOp::BAND         ? "BAND"
                     : op.op_ == c10d::ReduceOp::BOR        ? "BOR"
                     : op.op_ == c10d::ReduceOp::BXOR       ? "BXOR"
                     : op.op_ == c10d::ReduceOp::PREMUL_SUM ? "PREMUL_SUM"
                                                            : "UNUSED";
  TORCH_CHECK_VALUE(false, "hccl: ReduceOp.", name,
                    " is not supported by the runtime (it has SUM, PRODUCT, "
                    "MIN, MAX; AVG is SUM divided by the group size)");
}

void checkTensor(const at::Tensor &t, const std::string &what) {
  TORCH_CHECK_VALUE(t.defined(), "hccl: ", what, " is undefined");
  TORCH_CHECK_VALUE(t.device().is_cpu(), "hccl: ", what,
                    " must be a CPU tensor, found one on ", t.device());
  TORCH_CHECK_VALUE(t.layout() == at::kStrided, "hccl: ", what,
                    " must be dense, found layout ", t.layout());
  (void)hcclType(t.scalar_type(), what);
}

void checkSingle(const std::vector<at::Tensor> &ts, const std::string &what) {
  TORCH_CHECK_VALUE(ts.size() == 1, "hccl: ", what,
                    ": expected one tensor per process, found ", ts.size());
  checkTensor(ts[0], what);
}

void checkLike(const at::Tensor &t, const at::Tensor &like,
               const std::string &what) {
  checkTensor(t, what);
  TORCH_CHECK_TYPE(t.scalar_type() == like.scalar_type(), "hccl: ", what,
                   " has dtype ", t.scalar_type(), ", expected ",
                   like.scalar_type());
  TORCH_CHECK_VALUE(t.numel() == like.numel(), "hccl: ", what, " has ",
                    t.numel(), " elements, expected ", like.numel());
}

at::Tensor flattenAll(const std::vector<at::Tensor> &ts) {
  std::vector<at::Tensor> flat;
  flat.reserve(ts.size());
  for (const at::Tensor &t : ts)
    flat.push_back(t.reshape({-1}));
  return at::cat(flat);
}

void unflattenInto(const at::Tensor &flat, std::vector<at::Tensor> &ts) {
  int64_t off = 0;
  for (at::Tensor &t : ts) {
    t.copy_(flat.narrow(0, off, t.numel()).view(t.sizes()));
    off += t.numel();
  }
}

} // namespace hccl_torch
