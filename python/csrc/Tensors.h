//===- Tensors.h - torch tensors and reduce ops as HCCL buffers -----------===//
//
// What the runtime is given for a tensor: its data pointer, an HCCL count and
// data type. Complex tensors travel as pairs of reals (sum only); bool as
// uint8 (sum and product become max and min, as NCCL does). Everything else
// the runtime cannot take is refused here with a ValueError / TypeError
// naming the argument, before anything is queued.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TORCH_TENSORS_H
#define HCCL_TORCH_TENSORS_H

#include "hccl/hccl.h"

#include <ATen/ATen.h>
#include <torch/csrc/distributed/c10d/Types.hpp>

#include <string>
#include <vector>

namespace hccl_torch {

/// A contiguous tensor as the runtime sees it.
struct Buffer {
  void *ptr = nullptr;
  uint64_t count = 0; // HCCL elements (2 per complex element)
  HcclDataType type = HCCL_DATA_TYPE_RESERVED;
};

/// HCCL type of a torch dtype; throws TypeError naming `what` otherwise.
HcclDataType hcclType(at::ScalarType t, const std::string &what);
Buffer bufferOf(const at::Tensor &contiguous);

/// A reduction as the runtime runs it: the HCCL operator, and whether the
/// result is then divided by the group size (AVG).
struct Reduction {
  HcclReduceOp op = HCCL_REDUCE_SUM;
  bool average = false;
};
/// Throws ValueError for operators the runtime lacks (BAND, BOR, BXOR,
/// PREMUL_SUM) and for combinations the dtype cannot take.
Reduction hcclReduction(const c10d::ReduceOp &op, at::ScalarType t);

/// Checks a tensor can be handed to the runtime: CPU, dense, a supported
/// dtype. `what` names it in the error ("all_reduce tensor").
void checkTensor(const at::Tensor &t, const std::string &what);
/// Checks a list (of one tensor per call unless `n` says otherwise).
void checkSingle(const std::vector<at::Tensor> &ts, const std::string &what);
/// Same dtype and element count as `like`.
void checkLike(const at::Tensor &t, const at::Tensor &like,
               const std::string &what);

/// The tensors flattened into one new contiguous buffer, and the way back.
at::Tensor flattenAll(const std::vector<at::Tensor> &ts);
void unflattenInto(const at::Tensor &flat, std::vector<at::Tensor> &ts);

} // namespace hccl_torch

#endif // HCCL_TORCH_TENSORS_H
