//===- SelectAlgorithm.cpp - comm-select-algorithm ------------------------===//
//
// Thin on purpose: the choice is lib/schedule's selectAlgorithm, priced
// with the same closed forms as bucket sizing and the simulator, so the
// compiler and the runtime never disagree on what "cheapest" means. The
// pass validates the inputs, places the group on the topology and writes
// the answer as #comm.algo. Collectives inside comm.start are handled too.
//
//===----------------------------------------------------------------------===//
#include "CostModel.h"

#include "hccl-mlir/Passes/Passes.h"

namespace mlir::comm {
#define GEN_PASS_DEF_SELECTALGORITHM
#include "hccl-mlir/Passes/Passes.h.inc"
} // namespace mlir::comm

using namespace mlir;
using namespace mlir::comm;
namespace sched = hccl::sched;

namespace {

struct SelectAlgorithmPass
    : public comm::impl::SelectAlgorithmBase<SelectAlgorithmPass> {
  using Base::Base;

  static constexpr StringLiteral kPass = "comm-select-algorithm";

  void runOnOperation() override {
    Operation *root = getOperation();
    if (slices < 1 || slices > 4096) {
      emitError(root->getLoc())
          << kPass << ": option slices=" << static_cast<int64_t>(slices)
          << " is not valid: expected 1..4096";
      return signalPassFailure();
    }
    std::optional<sched::HcclAlgoSpec> spec;
    if (!algo.empty()) {
      sched::Result<sched::HcclAlgoSpec> parsed = sched::parseHcclAlgo(algo);
      if (!parsed) {
        emitError(root->getLoc()) << kPass << ": option algo='" << algo
                                  << "' is not valid: " << parsed.message();
        return signalPassFailure();
      }
      spec = *parsed;
    }

    FailureOr<std::optional<sched::AlgoTable>> loaded =
        loadAlgoTable(table, root, kPass);
    if (failed(loaded))
      return signalPassFailure();

    SmallVector<Operation *> colls;
    root->walk([&](Operation *op) {
      if (getScheduleCollective(op))
        colls.push_back(op);
    });
    if (colls.empty())
      return;
    FailureOr<CommCostModel> model =
        CommCostModel::get(colls.front(), /*required=*/true, kPass);
    if (failed(model))
      return signalPassFailure();
    model->setOverride(spec);
    if (failed(model->setTable(std::move(*loaded), table, root, kPass)))
      return signalPassFailure();
    const sched::AlgoTable *algoTable = model->getTable();

    bool failedAny = false;
    for (Operation *op : colls) {
      // A recorded choice stands unless algo= speaks for this collective.
      bool overridden =
          spec && spec->forCollective(*getScheduleCollective(op)).set;
      bool keep = !overridden && cast<CollectiveOpInterface>(op).getAlgorithm();
      FailureOr<CollectivePrice> price = model->price(op, /*useAttr=*/keep);
      if (failed(price)) {
        failedAny = true;
        continue;
      }
      if (keep)
        continue;
      const sched::AlgoTableEntry *entry =
          algoTable && !overridden
              ? algoTable->lookup(price->collective, price->p, price->bytes)
              : nullptr;
      if (entry) {
        // The table's choice, priced as an attribute: that checks it can
        // serve this group and errs at the op when not.
        op->setAttr("algo",
                    AlgorithmAttr::get(op->getContext(), entry->algorithm,
                                       entry->level0, entry->level1, slices,
                                       /*podSplit=*/false));
        if (failed(model->price(op, /*useAttr=*/true))) {
          failedAny = true;
          continue;
        }
        ++numFromTable;
      } else {
        op->setAttr("algo",
                    AlgorithmAttr::get(op->getContext(), price->algorithm,
                                       price->level0, price->level1, slices,
                                       price->podSplit));
      }
      ++numSelected;
    }
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
