//===- Collectives.cpp - the c10d collectives on the runtime's C API ------===//
//
// Each collective checks its arguments here, on the caller's thread, and
// queues a body that makes one runtime call on contiguous buffers. Tensors
// that are not contiguous (or lists the runtime wants as one buffer) go
// through a packed copy that the body copies back.
//
//===----------------------------------------------------------------------===//

#include "HcclError.h"
#include "ProcessGroupHccl.h"
#include "Tensors.h"

#include <c10/util/Exception.h>

#include <algorithm>

namespace hccl_torch {

namespace {

// Writes a packed result back into the caller's tensor.
void copyBack(at::Tensor &dst, const at::Tensor &src) {
  if (!src.is_same(dst))
    dst.copy_(src);
}

void checkList(const std::vector<at::Tensor> &ts, size_t n,
               const at::Tensor &like, const std::string &what) {
  TORCH_CHECK_VALUE(ts.size() == n, "hccl: ", what, ": expected ", n,
                    " tensors (one per rank), found ", ts.size());
  for (size_t i = 0; i < ts.size(); ++i)
    checkLike(ts[i], like, what + " [" + std::to_string(i) + "]");
}

// Element counts of a dim-0 split for all-to-all: `splits` rows of
// numel/size(0) elements each (an empty list: equal parts).
std::vector<uint64_t> splitCounts(const at::Tensor &t,
                                  std::vector<int64_t> splits, int p,
                                  const char *what) {
  int64_t rows = t.dim() == 0 ? 1 : t.size(0);
  if (splits.empty()) {
    TORCH_CHECK_VALUE(rows % p == 0, "hccl: alltoall_base ", what, " has ",
                      rows, " rows, not divisible by ", p,
                      " ranks (give split sizes)");
    splits.assign(p, rows / p);
  }
  TORCH_CHECK_VALUE(static_cast<int>(splits.size()) == p,
                    "hccl: alltoall_base ", what, " split sizes: expected ", p,
                    " entries, found ", splits.size());
  int64_t total = 0;
  for (int64_t s : splits) {
    TORCH_CHECK_VALUE(s >= 0, "hccl: alltoall_base ", what, " split size ", s,
                      " is negative");
    total += s;
  }
  TORCH_CHECK_VALUE(total == rows, "hccl: alltoall_base ", what,
                    " split sizes add up to ", total, ", the tensor has ", rows,
                    " rows");
  uint64_t perRow = rows == 0 ? 0 : t.numel() / rows;
  if (t.is_complex())
    perRow *= 2;
  std::vector<uint64_t> counts;
  for (int64_t s : splits)
    counts.push_back(static_cast<uint64_t>(s) * perRow);
  return counts;
}

std::vector<uint64_t> displacements(const std::vector<uint64_t> &counts) {
  std::vector<uint64_t> d(counts.size(), 0);
  for (size_t i = 1; i < counts.size(); ++i)
    d[i] = d[i - 1] + counts[i - 1];
  return d;
}

void allToAllV(const at::Tensor &in, const std::vector<uint64_t> &sendCounts,
               at::Tensor &out, const std::vector<uint64_t> &recvCounts,
               HcclComm comm) {
  Buffer s = bufferOf(in), r = bufferOf(out);
  std::vector<uint64_t> sd = displacements(sendCounts);
  std::vector<uint64_t> rd = displacements(recvCounts);
  hcclCheck(HcclAlltoAllV(s.ptr, sendCounts.data(), sd.data(), s.type, r.ptr,
                          recvCounts.data(), rd.data(), r.type, comm, nullptr),
            "HcclAlltoAllV");
}

} // namespace

c10::intrusive_ptr<c10d::Work>
ProcessGroupHccl::allreduce(std::vector<at::Tensor> &tensors,
                            const c10d::AllreduceOptions &opts) {
  if (tensors.size() == 1 && tensors[0].defined() && tensors[0].is_sparse())
    return allreduceSparse(tensors[0], opts.reduceOp);
  checkSingle(tensors, "all_reduce tensor");
  at::Tensor t = tensors[0];
  Reduction red = hcclReduction(opts.reduceOp, t.scalar_type());
  HcclComm comm = comm_;
  int p = size_;
  return enqueue(c10d::OpType::ALLREDUCE, tensors, [=]() mutable {
    at::Tensor c = t.contiguous();
    Buffer b = bufferOf(c);
    hcclCheck(
        HcclAllReduce(b.ptr, b.ptr, b.count, b.type, red.op, comm, nullptr),
        "HcclAllReduce");
    if (red.average)
      c.div_(p);
    copyBack(t, c);
  });
}

// A sparse (COO) all-reduce, as gloo's: every rank's nonzeros are gathered
// (their counts first, then indices and values padded to the largest
// count) and summed locally, so every rank ends with the same coalesced
// sum. DDP sends sparse gradients (nn.Embedding(sparse=True)) this way.
c10::intrusive_ptr<c10d::Work>
ProcessGroupHccl::allreduceSparse(at::Tensor t, const c10d::ReduceOp &op) {
  TORCH_CHECK_VALUE(op.op_ == c10d::ReduceOp::SUM,
                    "hccl: sparse all_reduce supports ReduceOp.SUM only (as "
                    "gloo's)");
  TORCH_CHECK_VALUE(t.device().is_cpu(),
                    "hccl: all_reduce tensor must be a "
                    "CPU tensor, found one on ",
                    t.device());
  (void)hcclType(t.scalar_type(), "sparse all_reduce values");
  HcclComm comm = comm_;
  int p = size_;
  return enqueue(c10d::OpType::ALLREDUCE, {t}, [=]() mutable {
    at::Tensor in = t.coalesce();
    int64_t sparseDim = in.sparse_dim(), nnz = in._nnz();
    // This rank's shape and count; every rank's must agree but the count.
    std::vector<int64_t> meta{sparseDim, in.dense_dim(), nnz};
    for (int64_t d : in.sizes())
      meta.push_back(d);
    at::Tensor mine = at::tensor(meta, at::kLong);
    at::Tensor metas = at::empty({p, mine.numel()}, at::kLong);
    hcclCheck(HcclAllGather(mine.data_ptr(), metas.data_ptr(), mine.numel(),
                            HCCL_DATA_TYPE_INT64, comm, nullptr),
              "HcclAllGather");
    std::vector<int64_t> counts;
    for (int r = 0; r < p; ++r) {
      counts.push_back(metas[r][2].item<int64_t>());
      at::Tensor row = metas[r].clone();
      row[2] = nnz;
      TORCH_CHECK_VALUE(row.equal(mine), "hccl: sparse all_reduce: rank ", r,
                        " has a tensor of another shape (sparse dims, dense "
                        "dims, nnz, sizes: ",
                        metas[r], " vs ", mine, ")");
    }
    int64_t most = *std::max_element(counts.begin(), counts.end());
    std::vector<int64_t> valShape = in._values().sizes().vec();
    valShape[0] = most;
    std::vector<int64_t> allValShape = valShape;
    allValShape.insert(allValShape.begin(), p);
    at::Tensor allIdx = at::zeros({p, sparseDim, most}, at::kLong);
    at::Tensor allVal = at::zeros(allValShape, in._values().options());
    if (most > 0 && allVal.numel() > 0) { // else no rank has a nonzero
      at::Tensor idx = at::zeros({sparseDim, most}, at::kLong);
      idx.narrow(1, 0, nnz).copy_(in._indices());
      at::Tensor val = at::zeros(valShape, in._values().options());
      val.narrow(0, 0, nnz).copy_(in._values());
      Buffer si = bufferOf(idx), ri = bufferOf(allIdx);
      hcclCheck(HcclAllGather(si.ptr, ri.ptr, si.count, si.type, comm, nullptr),
                "HcclAllGather");
      Buffer sv = bufferOf(val), rv = bufferOf(allVal);
      hcclCheck(HcclAllGather(sv.ptr, rv.ptr, sv.count, sv.type, comm, nullptr),
                "HcclAllGather");
    }
    std::vector<at::Tensor> idxs, vals;
    for (int r = 0; r < p; ++r) {
      idxs.push_back(allIdx[r].narrow(1, 0, counts[r]));
      vals.push_back(allVal[r].narrow(0, 0, counts[r]));
    }
    at::Tensor sum = at::sparse_coo_tensor(at::cat(idxs, 1), at::cat(vals, 0),
                                           in.sizes(), in.options())
                         .coalesce();
    t.copy_(sum);
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHccl::allreduce_coalesced(
    std::vector<at::Tensor> &tensors,
    const c10d::AllreduceCoalescedOptions &opts) {
  TORCH_CHECK_VALUE(!tensors.empty(),
                    "hccl: allreduce_coalesced needs at least one tensor");
  checkTensor(tensors[0], "allreduce_coalesced tensor [0]");
  for (size_t i = 1; i < tensors.size(); ++i) {
    checkTensor(tensors[i],
                "allreduce_coalesced tensor [" + std::to_string(i) + "]");
    TORCH_CHECK_TYPE(tensors[i].scalar_type() == tensors[0].scalar_type(),
                     "hccl: allreduce_coalesced tensors must share one "
                     "dtype: [0] is ",
                     tensors[0].scalar_type(), ", [", i, "] is ",
                     tensors[i].scalar_type());
  }
  Reduction red = hcclReduction(opts.reduceOp, tensors[0].scalar_type());
  HcclComm comm = comm_;
  int p = size_;
  std::vector<at::Tensor> ts = tensors;
  return enqueue(c10d::OpType::ALLREDUCE_COALESCED, tensors, [=]() mutable {
    at::Tensor flat = flattenAll(ts);
    Buffer b = bufferOf(flat);
    hcclCheck(
        HcclAllReduce(b.ptr, b.ptr, b.count, b.type, red.op, comm, nullptr),
        "HcclAllReduce");
    if (red.average)
      flat.div_(p);
    unflattenInto(flat, ts);
  });
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupHccl::broadcast(std::vector<at::Tensor> &tensors,
                            const c10d::BroadcastOptions &opts) {
  checkSingle(tensors, "broadcast tensor");
  checkRoot(opts.rootRank, "broadcast");
  TORCH_CHECK_VALUE(opts.rootTensor == 0, "hccl: broadcast rootTensor ",
                    opts.rootTensor, " (one tensor per process)");
  at::Tensor t = tensors[0];
  HcclComm comm = comm_;
  uint32_t root = static_cast<uint32_t>(opts.rootRank);
  return enqueue(c10d::OpType::BROADCAST, tensors, [=]() mutable {
    at::Tensor c = t.contiguous();
    Buffer b = bufferOf(c);
    hcclCheck(HcclBroadcast(b.ptr, b.count, b.type, root, comm, nullptr),
              "HcclBroadcast");
    copyBack(t, c);
  });
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupHccl::reduce(std::vector<at::Tensor> &tensors,
                         const c10d::ReduceOptions &opts) {
  checkSingle(tensors, "reduce tensor");
  checkRoot(opts.rootRank, "reduce");
  TORCH_CHECK_VALUE(opts.rootTensor == 0, "hccl: reduce rootTensor ",
                    opts.rootTensor, " (one tensor per process)");
  at::Tensor t = tensors[0];
  Reduction red = hcclReduction(opts.reduceOp, t.scalar_type());
  HcclComm comm = comm_;
  int p = size_;
  bool isRoot = opts.rootRank == rank_;
  uint32_t root = static_cast<uint32_t>(opts.rootRank);
  return enqueue(c10d::OpType::REDUCE, tensors, [=]() mutable {
    at::Tensor c = t.contiguous();
    Buffer b = bufferOf(c);
    // Only the root's tensor is written; the others keep their input.
    hcclCheck(HcclReduce(b.ptr, isRoot ? b.ptr : nullptr, b.count, b.type,
                         red.op, root, comm, nullptr),
              "HcclReduce");
    if (isRoot) {
      if (red.average)
        c.div_(p);
      copyBack(t, c);
    }
  });
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupHccl::allgather(std::vector<std::vector<at::Tensor>> &outputs,
                            std::vector<at::Tensor> &inputs,
                            const c10d::AllgatherOptions &) {
  checkSingle(inputs, "all_gather input");
  TORCH_CHECK_VALUE(outputs.size() == 1,
                    "hccl: all_gather: expected one "
                    "output list per process, found ",
                    outputs.size());
  checkList(outputs[0], size_, inputs[0], "all_gather output");
  at::Tensor in = inputs[0];
  std::vector<at::Tensor> outs = outputs[0];
  HcclComm comm = comm_;
  int p = size_;
  return enqueue(c10d::OpType::ALLGATHER, outs, [=]() mutable {
    at::Tensor c = in.contiguous();
    at::Tensor flat = at::empty({p * c.numel()}, c.options());
    Buffer s = bufferOf(c), r = bufferOf(flat);
    hcclCheck(HcclAllGather(s.ptr, r.ptr, s.count, s.type, comm, nullptr),
              "HcclAllGather");
    unflattenInto(flat, outs);
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHccl::allgather_coalesced(
    std::vector<std::vector<at::Tensor>> &outputLists,
    std::vector<at::Tensor> &inputs, const c10d::AllgatherOptions &) {
  // One all-gather of the inputs packed together: rank r's block of the
  // result holds its inputs in order, which go to outputLists[r].
  TORCH_CHECK_VALUE(!inputs.empty(),
                    "hccl: all_gather_coalesced needs at least one tensor");
  for (size_t i = 0; i < inputs.size(); ++i) {
    checkTensor(inputs[i],
                "all_gather_coalesced input [" + std::to_string(i) + "]");
    TORCH_CHECK_TYPE(inputs[i].scalar_type() == inputs[0].scalar_type(),
                     "hccl: all_gather_coalesced tensors must share one "
                     "dtype: [0] is ",
                     inputs[0].scalar_type(), ", [", i, "] is ",
                     inputs[i].scalar_type());
  }
  TORCH_CHECK_VALUE(static_cast<int>(outputLists.size()) == size_,
                    "hccl: all_gather_coalesced: expected ", size_,
                    " output lists (one per rank), found ", outputLists.size());
  std::vector<at::Tensor> outs;
  for (size_t r = 0; r < outputLists.size(); ++r) {
    std::string what =
        "all_gather_coalesced output [" + std::to_string(r) + "]";
    TORCH_CHECK_VALUE(outputLists[r].size() == inputs.size(), "hccl: ", what,
                      ": expected ", inputs.size(),
                      " tensors (one per input), found ",
                      outputLists[r].size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      checkLike(outputLists[r][i], inputs[i],
                what + "[" + std::to_string(i) + "]");
      outs.push_back(outputLists[r][i]);
    }
  }
  std::vector<at::Tensor> ins = inputs;
  HcclComm comm = comm_;
  int p = size_;
  return enqueue(c10d::OpType::ALLGATHER_COALESCED, outs, [=]() mutable {
    at::Tensor flat = flattenAll(ins);
    at::Tensor all = at::empty({p * flat.numel()}, flat.options());
    Buffer s = bufferOf(flat), r = bufferOf(all);
    hcclCheck(HcclAllGather(s.ptr, r.ptr, s.count, s.type, comm, nullptr),
              "HcclAllGather");
    unflattenInto(all, outs);
  });
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupHccl::_allgather_base(at::Tensor &output, at::Tensor &input,
                                  const c10d::AllgatherOptions &) {
  checkTensor(input, "_allgather_base input");
  checkTensor(output, "_allgather_base output");
  TORCH_CHECK_TYPE(output.scalar_type() == input.scalar_type(),
                   "hccl: _allgather_base output has dtype ",
                   output.scalar_type(), ", input ", input.scalar_type());
  TORCH_CHECK_VALUE(output.numel() == size_ * input.numel(),
                    "hccl: _allgather_base output has ", output.numel(),
                    " elements, expected ", size_, " x ", input.numel());
  TORCH_CHECK_VALUE(output.is_contiguous(),
                    "hccl: _allgather_base output must be contiguous");
  at::Tensor in = input, out = output;
  HcclComm comm = comm_;
  return enqueue(c10d::OpType::_ALLGATHER_BASE, {out}, [=] {
    at::Tensor c = in.contiguous();
    Buffer s = bufferOf(c), r = bufferOf(out);
    hcclCheck(HcclAllGather(s.ptr, r.ptr, s.count, s.type, comm, nullptr),
              "HcclAllGather");
  });
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupHccl::reduce_scatter(std::vector<at::Tensor> &outputs,
                                 std::vector<std::vector<at::Tensor>> &inputs,
                                 const c10d::ReduceScatterOptions &opts) {
  checkSingle(outputs, "reduce_scatter output");
  TORCH_CHECK_VALUE(inputs.size() == 1,
                    "hccl: reduce_scatter: expected one "
                    "input list per process, found ",
                    inputs.size());
  checkList(inputs[0], size_, outputs[0], "reduce_scatter input");
  at::Tensor out = outputs[0];
  std::vector<at::Tensor> ins = inputs[0];
  Reduction red = hcclReduction(opts.reduceOp, out.scalar_type());
  HcclComm comm = comm_;
  int p = size_;
  return enqueue(c10d::OpType::REDUCE_SCATTER, outputs, [=]() mutable {
    at::Tensor flat = flattenAll(ins);
    at::Tensor c = out.contiguous();
    Buffer s = bufferOf(flat), r = bufferOf(c);
    hcclCheck(
        HcclReduceScatter(s.ptr, r.ptr, r.count, r.type, red.op, comm, nullptr),
        "HcclReduceScatter");
    if (red.average)
      c.div_(p);
    copyBack(out, c);
  });
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupHccl::_reduce_scatter_base(at::Tensor &output, at::Tensor &input,
                                       const c10d::ReduceScatterOptions &opts) {
  checkTensor(input, "_reduce_scatter_base input");
  checkTensor(output, "_reduce_scatter_base output");
  TORCH_CHECK_TYPE(output.scalar_type() == input.scalar_type(),
                   "hccl: _reduce_scatter_base output has dtype ",
                   output.scalar_type(), ", input ", input.scalar_type());
  TORCH_CHECK_VALUE(input.numel() == size_ * output.numel(),
                    "hccl: _reduce_scatter_base input has ", input.numel(),
                    " elements, expected ", size_, " x ", output.numel());
  Reduction red = hcclReduction(opts.reduceOp, output.scalar_type());
  at::Tensor in = input, out = output;
  HcclComm comm = comm_;
  int p = size_;
  return enqueue(c10d::OpType::_REDUCE_SCATTER_BASE, {out}, [=]() mutable {
    at::Tensor ci = in.contiguous(), co = out.contiguous();
    Buffer s = bufferOf(ci), r = bufferOf(co);
    hcclCheck(
        HcclReduceScatter(s.ptr, r.ptr, r.count, r.type, red.op, comm, nullptr),
        "HcclReduceScatter");
    if (red.average)
      co.div_(p);
    copyBack(out, co);
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHccl::alltoall_base(
    at::Tensor &output, at::Tensor &input, std::vector<int64_t> &outputSplits,
    std::vector<int64_t> &inputSplits, const c10d::AllToAllOptions &) {
  checkTensor(input, "alltoall_base input");
  checkTensor(output, "alltoall_base output");
  TORCH_CHECK_TYPE(output.scalar_type() == input.scalar_type(),
                   "hccl: alltoall_base output has dtype ",
                   output.scalar_type(), ", input ", input.scalar_type());
  std::vector<uint64_t> sendCounts =
      splitCounts(input, inputSplits, size_, "input");
  std::vector<uint64_t> recvCounts =
      splitCounts(output, outputSplits, size_, "output");
  at::Tensor in = input, out = output;
  HcclComm comm = comm_;
  return enqueue(c10d::OpType::ALLTOALL_BASE, {out}, [=]() mutable {
    at::Tensor ci = in.contiguous(), co = out.contiguous();
    allToAllV(ci, sendCounts, co, recvCounts, comm);
    copyBack(out, co);
  });
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupHccl::alltoall(std::vector<at::Tensor> &outputs,
                           std::vector<at::Tensor> &inputs,
                           const c10d::AllToAllOptions &) {
  TORCH_CHECK_VALUE(inputs.size() == static_cast<size_t>(size_) &&
                        outputs.size() == static_cast<size_t>(size_),
                    "hccl: all_to_all: expected ", size_,
                    " input and output tensors, found ", inputs.size(), " and ",
                    outputs.size());
  std::vector<uint64_t> sendCounts, recvCounts;
  for (int i = 0; i < size_; ++i) {
    checkTensor(inputs[i], "all_to_all input [" + std::to_string(i) + "]");
    checkTensor(outputs[i], "all_to_all output [" + std::to_string(i) + "]");
    TORCH_CHECK_TYPE(inputs[i].scalar_type() == inputs[0].scalar_type() &&
                         outputs[i].scalar_type() == inputs[0].scalar_type(),
                     "hccl: all_to_all tensors must share one dtype (",
                     inputs[0].scalar_type(), "); [", i, "] differs");
    int k = inputs[i].is_complex() ? 2 : 1;
    sendCounts.push_back(inputs[i].numel() * k);
    recvCounts.push_back(outputs[i].numel() * k);
  }
  std::vector<at::Tensor> ins = inputs, outs = outputs;
  HcclComm comm = comm_;
  return enqueue(c10d::OpType::ALLTOALL, outputs, [=]() mutable {
    at::Tensor send = flattenAll(ins);
    int64_t total = 0;
    for (const at::Tensor &o : outs)
      total += o.numel();
    at::Tensor recv = at::empty({total}, send.options());
    allToAllV(send, sendCounts, recv, recvCounts, comm);
    unflattenInto(recv, outs);
  });
}

// Gather and scatter are all-to-all-v calls with one non-empty row or
// column: rank i sends its block to the root only (gather), the root sends
// block j to rank j only (scatter).
c10::intrusive_ptr<c10d::Work>
ProcessGroupHccl::gather(std::vector<std::vector<at::Tensor>> &outputs,
                         std::vector<at::Tensor> &inputs,
                         const c10d::GatherOptions &opts) {
  checkSingle(inputs, "gather input");
  checkRoot(opts.rootRank, "gather");
  bool isRoot = opts.rootRank == rank_;
  if (isRoot) {
    TORCH_CHECK_VALUE(outputs.size() == 1,
                      "hccl: gather: expected one "
                      "output list on the root, found ",
                      outputs.size());
    checkList(outputs[0], size_, inputs[0], "gather output");
  } else {
    TORCH_CHECK_VALUE(outputs.empty() || outputs[0].empty(),
                      "hccl: gather: output tensors are given on rank ", rank_,
                      ", which is not the root");
  }
  at::Tensor in = inputs[0];
  uint64_t n = bufferOf(in).count;
  std::vector<uint64_t> sendCounts(size_, 0), recvCounts(size_, isRoot ? n : 0);
  sendCounts[opts.rootRank] = n;
  std::vector<at::Tensor> outs =
      isRoot ? outputs[0] : std::vector<at::Tensor>{};
  HcclComm comm = comm_;
  int p = size_;
  return enqueue(c10d::OpType::GATHER, outs, [=]() mutable {
    at::Tensor c = in.contiguous();
    at::Tensor recv = at::empty({isRoot ? p * c.numel() : 1}, c.options());
    allToAllV(c, sendCounts, recv, recvCounts, comm);
    if (isRoot)
      unflattenInto(recv, outs);
  });
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupHccl::scatter(std::vector<at::Tensor> &outputs,
                          std::vector<std::vector<at::Tensor>> &inputs,
                          const c10d::ScatterOptions &opts) {
  checkSingle(outputs, "scatter output");
  checkRoot(opts.rootRank, "scatter");
  bool isRoot = opts.rootRank == rank_;
  if (isRoot) {
    TORCH_CHECK_VALUE(inputs.size() == 1,
                      "hccl: scatter: expected one "
                      "input list on the root, found ",
                      inputs.size());
    checkList(inputs[0], size_, outputs[0], "scatter input");
  } else {
    TORCH_CHECK_VALUE(inputs.empty() || inputs[0].empty(),
                      "hccl: scatter: input tensors are given on rank ", rank_,
                      ", which is not the root");
  }
  at::Tensor out = outputs[0];
  uint64_t n = bufferOf(out).count;
  std::vector<uint64_t> sendCounts(size_, isRoot ? n : 0), recvCounts(size_, 0);
  recvCounts[opts.rootRank] = n;
  std::vector<at::Tensor> ins = isRoot ? inputs[0] : std::vector<at::Tensor>{};
  HcclComm comm = comm_;
  return enqueue(c10d::OpType::SCATTER, outputs, [=]() mutable {
    at::Tensor send = isRoot ? flattenAll(ins) : at::empty({1}, out.options());
    at::Tensor c = out.contiguous();
    allToAllV(send, sendCounts, c, recvCounts, comm);
    copyBack(out, c);
  });
}

} // namespace hccl_torch
