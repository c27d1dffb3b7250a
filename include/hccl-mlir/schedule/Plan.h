//===- Plan.h - The plan document: programs, topology, schedule -*- C++ -*-===//
//
// A plan is what the runtime executes (docs/plan-format.md): a versioned
// JSON document holding one or more collective programs (compact form with
// expressions as strings, and/or the expanded per-rank form), an optional
// topology, and an optional schedule of a whole training step (compute
// items, collective starts and waits) with the group's global ranks.
//
// Reading validates everything and reports the JSON path of the first
// problem; JSON exceptions never escape (the API returns Result / Status).
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_SCHEDULE_PLAN_H
#define HCCL_MLIR_SCHEDULE_PLAN_H

#include "hccl-mlir/schedule/Program.h"
#include "hccl-mlir/schedule/Result.h"
#include "hccl-mlir/schedule/Topology.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hccl::sched {

inline constexpr int kPlanVersion = 1;

/// A program with the name the schedule refers to it by.
struct PlanProgram {
  std::string id;
  Program program;
  /// The global ranks running the program. Empty: one group, the identity
  /// (or the schedule's plan.group when it has program.p ranks). Otherwise
  /// one or more disjoint groups of program.p ranks each, all running the
  /// program at once, each on its own ranks (a partitioned comm.group:
  /// StableHLO's replica groups, tensor parallel inside data parallel).
  /// groups[k][r] is the global rank of group rank r in group k.
  std::vector<std::vector<int64_t>> groups;

  /// The group holding global rank `g` (nullptr when no group does, or
  /// `groups` is empty) and, in `groupRank`, g's rank in it.
  const std::vector<int64_t> *groupOf(int64_t g,
                                      int64_t *groupRank = nullptr) const;
  /// Every global rank of every group, in group order.
  std::vector<int64_t> allRanks() const;
};

enum class PlanItemKind : uint8_t { Compute, Start, Wait };
const char *planItemKindName(PlanItemKind k); // compute, start, wait

struct PlanItem {
  PlanItemKind kind = PlanItemKind::Compute;
  std::string name;    ///< compute: what runs
  double costUs = 0;   ///< compute: predicted duration
  int64_t id = 0;      ///< start / wait: handle of the collective instance
  std::string program; ///< start: PlanProgram::id
};

struct Plan {
  int version = kPlanVersion;
  std::vector<PlanProgram> programs;
  std::optional<Topology> topology;
  /// The schedule ("plan" object): global ranks of the group running it and
  /// the ordered items. Empty when the document holds programs only.
  std::vector<int64_t> groupRanks;
  std::vector<PlanItem> items;

  const PlanProgram *find(std::string_view id) const;
};

enum class ProgramForm : uint8_t {
  Compact,  ///< phases with expressions
  Expanded, ///< per-rank concrete ops
  Both,
};

struct PlanWriteOptions {
  ProgramForm form = ProgramForm::Compact;
  int indent = 1; ///< -1 = one line
  /// The expanded form lists every op instance of every rank: refuse
  /// programs with more than this many (the compact form has no limit).
  int64_t maxExpandedOps = 20'000'000;
};

/// Reads and validates a plan document.
Result<Plan> readPlan(std::string_view json);
/// Reads a plan from a file (errors name the file).
Result<Plan> readPlanFile(const std::string &path);
/// Writes a plan document. Expanded forms need every program to expand
/// (errors otherwise).
Result<std::string> writePlan(const Plan &plan,
                              const PlanWriteOptions &opts = {});
/// Convenience: a plan holding one program (id "c0").
Result<std::string> writeProgram(const Program &prog,
                                 const PlanWriteOptions &opts = {},
                                 const Topology *topology = nullptr);

/// Topology as the plan's "topology" object (one line).
std::string topologyToJson(const Topology &t);
/// The link-parameter document (intra, inter, intra_shape, reduce_gbps) that
/// turns a preset of the same shape into `t` (Topology::applyLinkParams).
std::string linkParamsToJson(const Topology &t);
/// Reads a "topology" object (see docs/plan-format.md); errors name the
/// JSON path, rooted at `path`.
Result<Topology> topologyFromJson(std::string_view json,
                                  const std::string &path = "topology");

} // namespace hccl::sched

#endif // HCCL_MLIR_SCHEDULE_PLAN_H
