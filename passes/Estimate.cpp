//===- Estimate.cpp - comm-estimate ---------------------------------------===//
//
// Report format (stable, one record per line, numbers with three decimals):
//
//   comm-estimate @fn topology=<preset or servers x devices>
//     #<i> <op> @<group> p=<p> bytes=<n> algo=<name>[ (selected)]
//          time_us=<t> busbw_GBps=<b>
//   timeline @fn compute_us=<c> comm_us=<m> exposed_comm_us=<e>
//            iteration_us=<it>[ steal_us=<s>]
//
// (each record on one line). "(selected)" marks a collective without an
// `algo` attribute, priced with what comm-select-algorithm would pick.
// The trace is Chrome's JSON trace-event format: one process per function,
// thread 0 the compute stream, threads 1.. the in-flight lanes.
//
//===----------------------------------------------------------------------===//
#include "Timeline.h"

#include "hccl-mlir/Passes/Passes.h"
#include "hccl-mlir/schedule/Cost.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::comm {
#define GEN_PASS_DEF_ESTIMATE
#include "hccl-mlir/Passes/Passes.h.inc"
} // namespace mlir::comm

using namespace mlir;
using namespace mlir::comm;
namespace sched = hccl::sched;

namespace {

struct EstimatePass : public comm::impl::EstimateBase<EstimatePass> {
  using Base::Base;

  static constexpr StringLiteral kPass = "comm-estimate";

  static std::string algoName(const CollectivePrice &p) {
    std::string s = sched::algorithmName(p.algorithm);
    if (p.algorithm == sched::Algorithm::Hierarchical)
      s += std::string("(") + sched::algorithmName(p.level0) + "," +
           sched::algorithmName(p.level1) + ")";
    if (p.slices > 1)
      s += ",slices=" + std::to_string(p.slices);
    return s;
  }

  static std::string topologyName(const sched::Topology &t) {
    if (!t.name.empty())
      return t.name;
    return std::to_string(t.servers) + "x" + std::to_string(t.devicesPerServer);
  }

  void runOnOperation() override {
    Operation *root = getOperation();
    ComputeCostOptions opts{peakTflops, memoryGbps};
    if (failed(verifyComputeOptions(root, kPass, opts)) ||
        failed(verifyRegionDepth(root, kMaxRegionDepth, kPass)) ||
        failed(verifySizesFitIn(root, kPass)))
      return signalPassFailure();

    SmallVector<FunctionOpInterface> funcs;
    root->walk([&](FunctionOpInterface fn) {
      if (!fn.isExternal())
        funcs.push_back(fn);
    });

    std::string err;
    std::unique_ptr<llvm::ToolOutputFile> outFile;
    if (output != "-") {
      outFile = openOutputFile(output, &err);
      if (!outFile) {
        emitError(root->getLoc())
            << kPass << ": cannot open output file '" << output << "': " << err;
        return signalPassFailure();
      }
    }
    std::unique_ptr<llvm::ToolOutputFile> traceFile;
    if (!trace.empty()) {
      traceFile = openOutputFile(trace, &err);
      if (!traceFile) {
        emitError(root->getLoc())
            << kPass << ": cannot open trace file '" << trace << "': " << err;
        return signalPassFailure();
      }
    }
    std::optional<std::string> links;
    if (!linkParams.empty()) {
      auto buf = llvm::MemoryBuffer::getFile(linkParams);
      if (!buf) {
        emitError(root->getLoc())
            << kPass << ": option link-params='" << linkParams
            << "': cannot read: " << buf.getError().message();
        return signalPassFailure();
      }
      links = (*buf)->getBuffer().str();
    }
    llvm::raw_ostream &os = outFile ? outFile->os() : llvm::outs();
    llvm::json::Array events;

    int pid = 0;
    for (FunctionOpInterface fn : funcs) {
      bool hasComm = false;
      fn->walk([&](Operation *op) {
        if (getScheduleCollective(op))
          hasComm = true;
      });
      // The topology is only required when there is something to price, or
      // link figures to put in it.
      FailureOr<CommCostModel> m =
          CommCostModel::get(fn, hasComm || links.has_value(), kPass);
      if (failed(m))
        return signalPassFailure();
      CommCostModel model = std::move(*m);
      if (links && failed(reprice(model, *links, fn)))
        return signalPassFailure();
      FailureOr<IterationTimeline> tl =
          simulateRegion(fn.getFunctionBody(), model, opts);
      if (failed(tl))
        return signalPassFailure();
      print(os, fn, model, *tl);
      if (!trace.empty())
        addTrace(events, pid++, fn, *tl);
    }
    os.flush();
    if (outFile)
      outFile->keep();

    if (traceFile) {
      llvm::json::Object doc{{"traceEvents", std::move(events)},
                             {"displayTimeUnit", "ns"}};
      traceFile->os() << llvm::formatv("{0:2}",
                                       llvm::json::Value(std::move(doc)))
                      << "\n";
      traceFile->keep();
    }
    markAllAnalysesPreserved();
  }

  /// The model on the module's topology with `links`' figures in place of
  /// its own (option link-params), its algorithm override kept.
  LogicalResult reprice(CommCostModel &model, StringRef links,
                        FunctionOpInterface fn) {
    sched::Topology topo = model.topology();
    if (sched::Status s = topo.applyLinkParams(links); !s)
      return emitError(fn.getLoc()) << kPass << ": option link-params='"
                                    << linkParams << "': " << s.message();
    std::optional<sched::HcclAlgoSpec> override;
    if (const sched::HcclAlgoSpec *o = model.getOverride())
      override = *o;
    model = CommCostModel(std::move(topo), std::move(override));
    return success();
  }

  void print(llvm::raw_ostream &os, FunctionOpInterface fn,
             CommCostModel &model, const IterationTimeline &tl) {
    os << "comm-estimate @" << fn.getName();
    if (model.hasTopology())
      os << " topology=" << topologyName(model.topology());
    os << "\n";
    for (auto [i, ev] : llvm::enumerate(tl.collectives)) {
      const CollectivePrice &p = ev.price;
      double us = p.seconds * 1e6;
      double busbw =
          p.seconds > 0
              ? sched::busBandwidthGBps(p.collective, p.bytes, p.seconds, p.p)
              : 0;
      os << "  #" << i << " " << ev.op->getName().stripDialect() << " @"
         << cast<CollectiveOpInterface>(ev.op).getGroupAttr().getValue()
         << " p=" << p.p << " bytes=" << static_cast<int64_t>(p.bytes)
         << " algo=" << algoName(p) << (p.fromAttr ? "" : " (selected)")
         << " time_us=" << llvm::format("%.3f", us)
         << " busbw_GBps=" << llvm::format("%.3f", busbw) << "\n";
    }
    os << "timeline @" << fn.getName()
       << " compute_us=" << llvm::format("%.3f", tl.computeUs)
       << " comm_us=" << llvm::format("%.3f", tl.commUs)
       << " exposed_comm_us=" << llvm::format("%.3f", tl.exposedUs)
       << " iteration_us=" << llvm::format("%.3f", tl.iterationUs);
    if (model.hasTopology() && model.topology().computeStealUsPerMB != 0)
      os << " steal_us=" << llvm::format("%.3f", tl.stealUs);
    os << "\n";
  }

  static std::string opLabel(Operation *op) {
    std::string s = op->getName().getStringRef().str();
    if (auto loc = dyn_cast<NameLoc>(op->getLoc()))
      s += " " + loc.getName().str();
    return s;
  }

  void addTrace(llvm::json::Array &events, int pid, FunctionOpInterface fn,
                const IterationTimeline &tl) {
    auto meta = [&](StringRef what, int tid, std::string name) {
      llvm::json::Object e{{"name", what},
                           {"ph", "M"},
                           {"pid", pid},
                           {"args", llvm::json::Object{{"name", name}}}};
      if (tid >= 0)
        e["tid"] = tid;
      events.push_back(std::move(e));
    };
    meta("process_name", -1, ("@" + fn.getName()).str());
    meta("thread_name", 0, "compute");
    for (int l = 1; l <= tl.lanes; ++l)
      meta("thread_name", l, "comm " + std::to_string(l));
    for (const ComputeEvent &ev : tl.compute)
      events.push_back(llvm::json::Object{{"name", opLabel(ev.op)},
                                          {"cat", "compute"},
                                          {"ph", "X"},
                                          {"pid", pid},
                                          {"tid", 0},
                                          {"ts", ev.beginUs},
                                          {"dur", ev.endUs - ev.beginUs}});
    for (const CollectiveEvent &ev : tl.collectives) {
      const CollectivePrice &p = ev.price;
      events.push_back(llvm::json::Object{
          {"name",
           (ev.op->getName().stripDialect() + " @" +
            cast<CollectiveOpInterface>(ev.op).getGroupAttr().getValue())
               .str()},
          {"cat", "comm"},
          {"ph", "X"},
          {"pid", pid},
          {"tid", ev.lane},
          {"ts", ev.beginUs},
          {"dur", ev.endUs - ev.beginUs},
          {"args", llvm::json::Object{{"bytes", p.bytes},
                                      {"algo", algoName(p)},
                                      {"p", p.p},
                                      {"issue_us", ev.issueUs},
                                      {"wait_us", ev.waitUs}}}});
    }
  }
};

} // namespace
