//===- PhaseProbe.cpp - The host's memory phase between iterations --------===//
#include "PhaseProbe.h"

#include "MemoryCalls.h"

#include "hccl/hccl_comm.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

namespace hcclrun {
namespace {

/// The probe's communicator among the job's sub-communicators (the ASCII
/// of "phasprob").
constexpr uint64_t kProbeCommId = 0x7068617370726f62ULL;
/// hccl-test's -w, which calibrate_host.py passes (2): the calls before
/// timing that map the peers' buffers.
constexpr int kWarmupCalls = 2;

} // namespace

PhaseProbe::~PhaseProbe() {
  if (stream_)
    HcclStreamDestroy(stream_);
  if (ring_)
    HcclCommDestroy(ring_);
  HcclMemFree(send_);
  HcclMemFree(recv_);
}

std::string PhaseProbe::failed(const char *what) const {
  return std::string("phase probe: ") + what +
         " failed: " + HcclGetLastErrorMessage();
}

std::string PhaseProbe::setup() {
  // The calibration times ring programs (hccl-test --algo level0:ring): the
  // probe's communicator runs the same, whatever the job's selection.
  HcclCommConfig config;
  HcclCommConfigInit(&config);
  std::strncpy(config.hcclAlgo, "level0:ring", sizeof(config.hcclAlgo) - 1);
  std::vector<uint32_t> ranks(size_);
  std::iota(ranks.begin(), ranks.end(), 0u);
  HcclComm world = world_;
  if (HcclCreateSubCommConfig(&world, size_, ranks.data(), kProbeCommId, rank_,
                              &config, &ring_) != HCCL_SUCCESS)
    return failed("creating its ring communicator");
  // This rank's own part; then every rank learns whether all succeeded, so
  // that one whose allocation failed does not leave the others waiting in
  // the warm-up until their timeout.
  std::string local;
  if (HcclMemAlloc(&send_, bytes_) != HCCL_SUCCESS ||
      HcclMemAlloc(&recv_, bytes_) != HCCL_SUCCESS) {
    local = failed("HcclMemAlloc");
  } else {
    // Ones sum to the rank count: no denormals, no infinities.
    std::fill_n(static_cast<float *>(send_), bytes_ / sizeof(float), 1.0f);
    std::memset(recv_, 0, bytes_);
    if (HcclStreamCreate(&stream_) != HCCL_SUCCESS)
      local = failed("HcclStreamCreate");
  }
  double bad = local.empty() ? 0.0 : 1.0;
  if (HcclAllReduce(&bad, &bad, 1, HCCL_DATA_TYPE_FP64, HCCL_REDUCE_MAX, ring_,
                    nullptr) != HCCL_SUCCESS)
    return failed("agreeing on its setup");
  if (!local.empty())
    return local;
  if (bad > 0)
    return "phase probe: another rank could not set its probe up";
  for (int i = 0; i < kWarmupCalls; ++i)
    if (HcclAllReduce(send_, recv_, bytes_ / sizeof(float), HCCL_DATA_TYPE_FP32,
                      HCCL_REDUCE_SUM, ring_, nullptr) != HCCL_SUCCESS)
      return failed("a warm-up all-reduce");
  if (hccltest::sharedSteadyClock(ring_, &sharedClock_) != HCCL_SUCCESS)
    return failed("comparing boot ids");
  return "";
}

std::string PhaseProbe::time(double &us) {
  hccltest::CallMemory memory{send_, recv_, bytes_, bytes_, nullptr};
  std::vector<double> marks;
  std::string what;
  auto launch = [&] {
    return HcclAllReduce(send_, recv_, bytes_ / sizeof(float),
                         HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, ring_, stream_);
  };
  if (hccltest::queueCallsFromMemory(ring_, stream_, memory, calls_,
                                     "HcclAllReduce", launch, marks,
                                     &what) != HCCL_SUCCESS)
    return "phase probe: " + what;
  double seconds = 0;
  if (hccltest::lastStartToLastEnd(ring_, sharedClock_, marks, &seconds) !=
      HCCL_SUCCESS)
    return failed("gathering call times");
  // Without one clock, the slowest rank's own time (hccl-test's too).
  if (!sharedClock_ &&
      HcclAllReduce(&seconds, &seconds, 1, HCCL_DATA_TYPE_FP64, HCCL_REDUCE_MAX,
                    ring_, nullptr) != HCCL_SUCCESS)
    return failed("gathering call times");
  us = seconds / calls_ * 1e6;
  return "";
}

} // namespace hcclrun
