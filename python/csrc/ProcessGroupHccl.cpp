//===- ProcessGroupHccl.cpp - communicators, plans, point-to-point --------===//

#include "ProcessGroupHccl.h"

#include "HcclError.h"
#include "Tensors.h"

#include <ATen/ScalarOps.h>
#include <c10/util/Exception.h>

#include <cstring>

namespace hccl_torch {

namespace {
// The store key of a group's root info. The store is the group's own
// (torch prefixes it per group), so one name serves every group.
const char *const kRootInfoKey = "hccl_root_info";
} // namespace

//===----------------------------------------------------------------------===//
// Plans
//===----------------------------------------------------------------------===//

std::shared_ptr<Plan> Plan::load(const std::string &path) {
  HcclPlan p = nullptr;
  hcclCheck(HcclPlanLoad(path.c_str(), &p), "HcclPlanLoad");
  return std::shared_ptr<Plan>(new Plan(p));
}

std::shared_ptr<Plan> Plan::fromString(const std::string &json) {
  HcclPlan p = nullptr;
  hcclCheck(HcclPlanLoadFromString(json.data(), json.size(), &p),
            "HcclPlanLoadFromString");
  return std::shared_ptr<Plan>(new Plan(p));
}

Plan::~Plan() { HcclPlanFree(plan_); }

std::vector<std::string> Plan::programIds() const {
  uint32_t n = 0;
  hcclCheck(HcclPlanGetProgramCount(plan_, &n), "HcclPlanGetProgramCount");
  std::vector<std::string> ids;
  for (uint32_t i = 0; i < n; ++i) {
    const char *id = nullptr;
    hcclCheck(HcclPlanGetProgramId(plan_, i, &id), "HcclPlanGetProgramId");
    ids.emplace_back(id);
  }
  return ids;
}

HcclPlanProgramInfo Plan::info(const std::string &id,
                               uint32_t groupRank) const {
  HcclPlanProgramInfo info{};
  hcclCheck(HcclPlanGetProgramInfo(plan_, id.c_str(), groupRank, &info),
            "HcclPlanGetProgramInfo");
  return info;
}

//===----------------------------------------------------------------------===//
// Groups
//===----------------------------------------------------------------------===//

ProcessGroupHccl::ProcessGroupHccl(const c10::intrusive_ptr<c10d::Store> &store,
                                   int rank, int size, int32_t execTimeoutSec)
    : ProcessGroup(rank, size) {
  TORCH_CHECK_VALUE(size > 0 && rank >= 0 && rank < size, "hccl: rank ", rank,
                    " outside a group of ", size);
  HcclRootInfo info;
  if (rank == 0) {
    hcclCheck(HcclGetRootInfo(&info), "HcclGetRootInfo");
    const auto *bytes = reinterpret_cast<const uint8_t *>(info.internal);
    store->set(kRootInfoKey,
               std::vector<uint8_t>(bytes, bytes + sizeof(info.internal)));
  } else {
    std::vector<uint8_t> blob = store->get(kRootInfoKey);
    TORCH_CHECK(blob.size() == sizeof(info.internal), "hccl: the store's '",
                kRootInfoKey, "' holds ", blob.size(), " bytes, expected ",
                sizeof(info.internal));
    std::memcpy(info.internal, blob.data(), blob.size());
  }
  HcclCommConfig config;
  HcclCommConfigInit(&config);
  config.hcclExecTimeOut = execTimeoutSec;
  hcclCheck(HcclCommInitRootInfoConfig(size, &info, rank, &config, &comm_),
            "HcclCommInitRootInfoConfig");
  // Every rank has joined: the blob (which carries the communicator's key,
  // docs/security.md) need not stay in the store.
  if (rank == 0) {
    try {
      store->deleteKey(kRootInfoKey);
    } catch (const std::exception &) {
      // A store without deletion keeps it; it is the job's own channel.
    }
  }
  worker_ = std::make_unique<Worker>();
  p2p_ = std::make_shared<P2pBatch>(comm_, worker_.get());
  init();
}

ProcessGroupHccl::ProcessGroupHccl(c10::intrusive_ptr<ProcessGroupHccl> parent,
                                   const std::vector<int64_t> &ranks,
                                   uint64_t subCommId, int rank,
                                   int32_t execTimeoutSec)
    : ProcessGroup(rank, static_cast<int>(ranks.size())),
      parent_(std::move(parent)) {
  TORCH_CHECK_VALUE(parent_, "hccl: a subgroup needs its parent group");
  TORCH_CHECK_VALUE(rank >= 0 && rank < static_cast<int>(ranks.size()),
                    "hccl: rank ", rank, " outside a subgroup of ",
                    ranks.size());
  std::vector<uint32_t> ids;
  for (int64_t r : ranks) {
    TORCH_CHECK_VALUE(r >= 0 && r < parent_->getSize(), "hccl: subgroup rank ",
                      r, " outside the parent group of ", parent_->getSize());
    ids.push_back(static_cast<uint32_t>(r));
  }
  HcclCommConfig config;
  HcclCommConfigInit(&config);
  config.hcclExecTimeOut = execTimeoutSec;
  HcclComm parentComm = parent_->comm_;
  hcclCheck(HcclCreateSubCommConfig(&parentComm, ids.size(), ids.data(),
                                    subCommId, rank, &config, &comm_),
            "HcclCreateSubCommConfig");
  worker_ = std::make_unique<Worker>();
  p2p_ = std::make_shared<P2pBatch>(comm_, worker_.get());
  init();
}

ProcessGroupHccl::~ProcessGroupHccl() {
  if (p2p_)
    p2p_->close(); // queues what is held
  worker_.reset(); // runs what is queued
  if (comm_ != nullptr)
    HcclCommDestroy(comm_);
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupHccl::enqueue(c10d::OpType type, std::vector<at::Tensor> outputs,
                          HcclWork::Body body) {
  auto work = c10::make_intrusive<HcclWork>(rank_, type, std::move(outputs),
                                            std::move(body));
  p2p_->flush(); // held sends and receives were issued before this call
  worker_->enqueue(work);
  return work;
}

void ProcessGroupHccl::checkRoot(int64_t root, const char *what) const {
  TORCH_CHECK_VALUE(root >= 0 && root < size_, "hccl: ", what, " root ", root,
                    " outside the group of ", size_, " ranks");
}

//===----------------------------------------------------------------------===//
// Barrier, point-to-point, plans
//===----------------------------------------------------------------------===//

c10::intrusive_ptr<c10d::Work>
ProcessGroupHccl::barrier(const c10d::BarrierOptions &) {
  HcclComm comm = comm_;
  return enqueue(c10d::OpType::BARRIER, {}, [comm] {
    hcclCheck(HcclBarrier(comm, nullptr), "HcclBarrier");
  });
}

// Point-to-point calls match by issue order on each pair, not by tag
// (docs/runtime.md, Faults): the tag is accepted and not used. They are
// held in p2p_ until a wait, a poll or the next collective needs them.
c10::intrusive_ptr<c10d::Work>
ProcessGroupHccl::send(std::vector<at::Tensor> &tensors, int dst, int) {
  checkSingle(tensors, "send tensor");
  checkRoot(dst, "send destination");
  TORCH_CHECK_VALUE(dst != rank_, "hccl: send to this rank itself (", dst, ")");
  return p2p_->add(rank_, true, dst, tensors[0].contiguous(), tensors[0]);
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupHccl::recv(std::vector<at::Tensor> &tensors, int src, int) {
  checkSingle(tensors, "recv tensor");
  checkRoot(src, "recv source");
  TORCH_CHECK_VALUE(src != rank_, "hccl: recv from this rank itself (", src,
                    ")");
  return p2p_->add(rank_, false, src, tensors[0].contiguous(), tensors[0]);
}

void ProcessGroupHccl::checkPlanBuffers(const Plan &plan, const std::string &id,
                                        const at::Tensor &input,
                                        const at::Tensor &output) const {
  checkTensor(input, "plan input");
  checkTensor(output, "plan output");
  HcclPlanProgramInfo info = plan.info(id, rank_);
  HcclDataType type = hcclType(input.scalar_type(), "plan input");
  TORCH_CHECK_TYPE(type == info.dataType &&
                       output.scalar_type() == input.scalar_type(),
                   "hccl: plan program '", id, "' works on HCCL data type ",
                   info.dataType, ", found input ", input.scalar_type(),
                   " and output ", output.scalar_type());
  TORCH_CHECK_VALUE(info.ranks == static_cast<uint32_t>(size_),
                    "hccl: plan program '", id, "' runs on ", info.ranks,
                    " ranks, this group has ", size_);
  auto bytes = [](const at::Tensor &t) {
    return static_cast<uint64_t>(t.numel()) * t.element_size();
  };
  TORCH_CHECK_VALUE(
      bytes(input) == info.inputBytes && bytes(output) == info.outputBytes,
      "hccl: plan program '", id, "' on rank ", rank_, " reads ",
      info.inputBytes, " bytes and writes ", info.outputBytes,
      ", found tensors of ", bytes(input), " and ", bytes(output));
  TORCH_CHECK_VALUE(output.is_contiguous(), "hccl: plan output must be "
                                            "contiguous");
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupHccl::runPlan(std::shared_ptr<Plan> plan, const std::string &id,
                          const at::Tensor &input, const at::Tensor &output) {
  TORCH_CHECK_VALUE(plan, "hccl: run_plan needs a plan");
  checkPlanBuffers(*plan, id, input, output);
  at::Tensor in = input.contiguous();
  at::Tensor out = output;
  HcclComm comm = comm_;
  return enqueue(c10d::OpType::ALLREDUCE, {out}, [=] {
    hcclCheck(HcclRunPlanCollective(comm, plan->handle(), id.c_str(),
                                    in.data_ptr(), out.data_ptr(), nullptr),
              "HcclRunPlanCollective");
  });
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupHccl::runPlanPacked(std::shared_ptr<Plan> plan,
                                const std::string &id,
                                const std::vector<at::Tensor> &parts,
                                const at::Tensor &flat, double scale) {
  TORCH_CHECK_VALUE(plan, "hccl: run_plan_packed needs a plan");
  checkPlanBuffers(*plan, id, flat, flat);
  int64_t total = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const at::Tensor &t = parts[i];
    checkTensor(t, "plan part " + std::to_string(i));
    TORCH_CHECK_TYPE(t.scalar_type() == flat.scalar_type(), "hccl: plan part ",
                     i, " is ", t.scalar_type(), ", the bucket is ",
                     flat.scalar_type());
    total += t.numel();
  }
  TORCH_CHECK_VALUE(total == flat.numel(), "hccl: plan program '", id,
                    "': its parts hold ", total, " elements, the bucket ",
                    flat.numel());
  HcclComm comm = comm_;
  std::vector<at::Tensor> in = parts;
  at::Tensor out = flat;
  return enqueue(c10d::OpType::ALLREDUCE, {out}, [=] {
    // The pack is torch.mul(part, scale, out=view), as the Python hook ran
    // it (a wrapped scalar: the part's dtype, not double, is computed in),
    // so results stay bit-identical to DDP's; here it runs on the worker,
    // off the autograd thread.
    at::NoGradGuard noGrad;
    at::Tensor s = at::native::wrapped_scalar_tensor(scale);
    int64_t off = 0;
    for (const at::Tensor &t : in) {
      at::Tensor view = out.narrow(0, off, t.numel());
      at::mul_out(view, t.reshape(-1), s);
      off += t.numel();
    }
    hcclCheck(HcclRunPlanCollective(comm, plan->handle(), id.c_str(),
                                    out.data_ptr(), out.data_ptr(), nullptr),
              "HcclRunPlanCollective");
  });
}

} // namespace hccl_torch
