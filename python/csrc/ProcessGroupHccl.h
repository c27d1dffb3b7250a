//===- ProcessGroupHccl.h - torch.distributed backend on libhccl ----------===//
//
// c10d::ProcessGroup (torch 1.13) over the runtime's public C API only
// (include/hccl/hccl.h, hccl_ext.h). CPU tensors; one communicator per
// group: the world's from a root info exchanged through the c10d store,
// a subgroup's from HcclCreateSubCommConfig on the world's (only members
// call, as with dist.new_group). Calls are checked on the caller's thread
// (bad arguments raise there), then queued on the group's Worker (Work.h);
// sends and receives are held until something needs them (P2pBatch.h).
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TORCH_PROCESSGROUPHCCL_H
#define HCCL_TORCH_PROCESSGROUPHCCL_H

#include "P2pBatch.h"
#include "Work.h"

#include "hccl/hccl_ext.h"

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <memory>
#include <string>
#include <vector>

namespace hccl_torch {

/// A loaded plan (hccl_ext.h), shared by the groups that run its programs.
class Plan {
public:
  static std::shared_ptr<Plan> load(const std::string &path);
  static std::shared_ptr<Plan> fromString(const std::string &json);
  ~Plan();
  HcclPlan handle() const { return plan_; }
  std::vector<std::string> programIds() const;
  HcclPlanProgramInfo info(const std::string &id, uint32_t groupRank) const;

private:
  explicit Plan(HcclPlan p) : plan_(p) {}
  HcclPlan plan_;
};

class ProcessGroupHccl : public c10d::ProcessGroup {
public:
  /// The group of `size` ranks whose root info rank 0 publishes in `store`.
  /// `execTimeoutSec` bounds each call of the group (the communicator's
  /// hcclExecTimeOut; HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET keeps
  /// HCCL_EXEC_TIMEOUT's).
  ProcessGroupHccl(
      const c10::intrusive_ptr<c10d::Store> &store, int rank, int size,
      int32_t execTimeoutSec = HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET);
  /// The subgroup of `parent` holding its ranks `ranks` (this process is
  /// ranks[rank]); every member passes the same ranks and `subCommId`.
  ProcessGroupHccl(
      c10::intrusive_ptr<ProcessGroupHccl> parent,
      const std::vector<int64_t> &ranks, uint64_t subCommId, int rank,
      int32_t execTimeoutSec = HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET);
  ~ProcessGroupHccl() override;

  const std::string getBackendName() const override { return "hccl"; }

  c10::intrusive_ptr<c10d::Work>
  broadcast(std::vector<at::Tensor> &tensors,
            const c10d::BroadcastOptions &opts) override;
  c10::intrusive_ptr<c10d::Work>
  allreduce(std::vector<at::Tensor> &tensors,
            const c10d::AllreduceOptions &opts) override;
  c10::intrusive_ptr<c10d::Work>
  allreduce_coalesced(std::vector<at::Tensor> &tensors,
                      const c10d::AllreduceCoalescedOptions &opts) override;
  c10::intrusive_ptr<c10d::Work>
  reduce(std::vector<at::Tensor> &tensors,
         const c10d::ReduceOptions &opts) override;
  c10::intrusive_ptr<c10d::Work>
  allgather(std::vector<std::vector<at::Tensor>> &outputs,
            std::vector<at::Tensor> &inputs,
            const c10d::AllgatherOptions &opts) override;
  c10::intrusive_ptr<c10d::Work>
  _allgather_base(at::Tensor &output, at::Tensor &input,
                  const c10d::AllgatherOptions &opts) override;
  c10::intrusive_ptr<c10d::Work>
  allgather_coalesced(std::vector<std::vector<at::Tensor>> &outputLists,
                      std::vector<at::Tensor> &inputs,
                      const c10d::AllgatherOptions &opts) override;
  c10::intrusive_ptr<c10d::Work>
  reduce_scatter(std::vector<at::Tensor> &outputs,
                 std::vector<std::vector<at::Tensor>> &inputs,
                 const c10d::ReduceScatterOptions &opts) override;
  c10::intrusive_ptr<c10d::Work>
  _reduce_scatter_base(at::Tensor &output, at::Tensor &input,
                       const c10d::ReduceScatterOptions &opts) override;
  c10::intrusive_ptr<c10d::Work>
  alltoall_base(at::Tensor &output, at::Tensor &input,
                std::vector<int64_t> &outputSplits,
                std::vector<int64_t> &inputSplits,
                const c10d::AllToAllOptions &opts) override;
  c10::intrusive_ptr<c10d::Work>
  alltoall(std::vector<at::Tensor> &outputs, std::vector<at::Tensor> &inputs,
           const c10d::AllToAllOptions &opts) override;
  c10::intrusive_ptr<c10d::Work>
  gather(std::vector<std::vector<at::Tensor>> &outputs,
         std::vector<at::Tensor> &inputs,
         const c10d::GatherOptions &opts) override;
  c10::intrusive_ptr<c10d::Work>
  scatter(std::vector<at::Tensor> &outputs,
          std::vector<std::vector<at::Tensor>> &inputs,
          const c10d::ScatterOptions &opts) override;
  c10::intrusive_ptr<c10d::Work>
  barrier(const c10d::BarrierOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor> &tensors,
                                      int dstRank, int tag) override;
  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor> &tensors,
                                      int srcRank, int tag) override;

  /// Runs program `id` of `plan` from `input` into `output` (their byte
  /// sizes and dtype must be the program's for this rank).
  c10::intrusive_ptr<c10d::Work> runPlan(std::shared_ptr<Plan> plan,
                                         const std::string &id,
                                         const at::Tensor &input,
                                         const at::Tensor &output);
  /// Packs `parts` into `flat` scaled by `scale` (flat[k] = part * scale,
  /// in order), then runs program `id` in place on `flat`; both on the
  /// worker thread, so the caller (DDP's autograd thread) only queues.
  c10::intrusive_ptr<c10d::Work>
  runPlanPacked(std::shared_ptr<Plan> plan, const std::string &id,
                const std::vector<at::Tensor> &parts, const at::Tensor &flat,
                double scale);

private:
  c10::intrusive_ptr<c10d::Work> allreduceSparse(at::Tensor t,
                                                 const c10d::ReduceOp &op);
  void checkPlanBuffers(const Plan &plan, const std::string &id,
                        const at::Tensor &input,
                        const at::Tensor &output) const;
  c10::intrusive_ptr<c10d::Work> enqueue(c10d::OpType type,
                                         std::vector<at::Tensor> outputs,
                                         HcclWork::Body body);
  void checkRoot(int64_t root, const char *what) const;

  HcclComm comm_ = nullptr;
  c10::intrusive_ptr<ProcessGroupHccl> parent_; // outlives our communicator
  std::unique_ptr<Worker> worker_;
  std::shared_ptr<P2pBatch> p2p_; // sends and receives not yet queued
};

} // namespace hccl_torch

#endif // HCCL_TORCH_PROCESSGROUPHCCL_H
