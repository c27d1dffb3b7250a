//===- VerifySchedule.cpp - comm-verify-schedule --------------------------===//
#include "hccl-mlir/Dialect/Comm/ProgramIR.h"
#include "hccl-mlir/Passes/Passes.h"
#include "hccl-mlir/schedule/Verify.h"

namespace mlir::comm {
#define GEN_PASS_DEF_VERIFYSCHEDULE
#include "hccl-mlir/Passes/Passes.h.inc"
} // namespace mlir::comm

using namespace mlir;
using namespace mlir::comm;
namespace sched = hccl::sched;

namespace {

struct VerifySchedulePass
    : public comm::impl::VerifyScheduleBase<VerifySchedulePass> {
  using Base::Base;

  void runOnOperation() override {
    if (exhaustiveLimit < 1) {
      getOperation()->emitError()
          << "comm-verify-schedule: exhaustive-limit must be >= 1, found "
          << static_cast<int64_t>(exhaustiveLimit);
      return signalPassFailure();
    }
    bool failedAny = false;
    getOperation()->walk([&](ProgramOp p) {
      if (failed(check(p)))
        failedAny = true;
    });
    if (failedAny)
      signalPassFailure();
    markAllAnalysesPreserved();
  }

  LogicalResult check(ProgramOp s) {
    if (auto r = s.getRankAttr())
      return s.emitOpError() << "is specialised for rank " << r.getInt()
                             << "; verify the rank-parametric program instead";
    FailureOr<sched::Program> prog = readProgram(s);
    if (failed(prog))
      return failure();
    sched::VerifyOptions opts;
    opts.inPlace = inPlace;
    opts.exhaustiveLimit = exhaustiveLimit;
    auto report = sched::verify(*prog, opts);
    if (!report)
      return s.emitOpError()
             << "step schedule is incorrect: " << report.message();
    // No error found is not a proof: say so where it was not proven.
    if (!report->proven) {
      s.emitWarning() << "step schedule is not proven: " << report->summary;
      return success();
    }
    ++numVerified;
    if (remarks)
      s.emitRemark() << report->summary;
    return success();
  }
};

} // namespace
