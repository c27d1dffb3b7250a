//===- Graph.h - Exported training graphs -----------------------*- C++ -*-===//
//
// The JSON graph format our PyTorch exporter writes and hccl-translate
// imports: tensors, compute ops with predicted device time (or FLOPs and
// bytes), collectives, groups and the topology. Ops are listed in execution
// order, which for a backward pass is gradient-ready order.
//
// MLIR-free (nlohmann_json): parsing validates everything and names the JSON
// path of the first problem; exceptions never escape.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_GRAPH_GRAPH_H
#define HCCL_MLIR_GRAPH_GRAPH_H

#include "hccl-mlir/schedule/Result.h"
#include "hccl-mlir/schedule/Topology.h"
#include "hccl-mlir/schedule/Types.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hccl::graph {

inline constexpr int kGraphVersion = 1;
inline constexpr const char *kGraphFormat = "hccl-mlir.graph";

struct Tensor {
  std::string name;
  std::vector<int64_t> shape;
  sched::DataType dtype = sched::DataType::Fp32;
  int64_t elements() const;
  int64_t bytes() const;
};

/// A communicator group: one rank list, or equal-size subgroups.
struct Group {
  std::string name;
  std::vector<std::vector<int64_t>> subgroups;
  int64_t size() const {
    return subgroups.empty() ? 0 : static_cast<int64_t>(subgroups[0].size());
  }
};

enum class OpKind : uint8_t {
  Compute,
  AllReduce,
  AllGather,
  ReduceScatter,
  Broadcast,
  Reduce,
  AllToAll,
};
/// compute, all_reduce, all_gather, reduce_scatter, broadcast, reduce,
/// all_to_all
const char *opKindName(OpKind k);
std::optional<OpKind> parseOpKind(std::string_view s);

struct Op {
  OpKind kind = OpKind::Compute;
  std::string name;
  std::vector<std::string> inputs, outputs;
  // compute
  std::optional<double> timeUs, flops, bytes;
  // collectives
  std::string group;
  sched::ReduceOp reduction = sched::ReduceOp::Sum;
  int64_t dim = 0;       ///< all_gather / reduce_scatter
  int64_t root = 0;      ///< broadcast / reduce
  int64_t splitDim = 0;  ///< all_to_all
  int64_t concatDim = 0; ///< all_to_all
};

/// Where the topology comes from.
struct TopologySpec {
  std::string preset;         ///< e.g. "910b-8x4"; empty when a rank table
  std::string rankTableJson;  ///< inline rank table (re-serialised)
  std::string linkParamsJson; ///< optional link parameters
  sched::Topology topology;   ///< resolved
};

struct Graph {
  std::string name;
  std::optional<TopologySpec> topology;
  std::vector<Group> groups;
  std::vector<Tensor> tensors;
  std::vector<Op> ops;
  /// Graph inputs and outputs; when absent from the file, inputs are the
  /// tensors no op produces and outputs the produced tensors no op uses.
  std::vector<std::string> inputs, outputs;

  const Tensor *findTensor(std::string_view name) const;
  const Group *findGroup(std::string_view name) const;
};

/// Parses and validates a graph document. Errors read
/// "ops[12] (layer3.backward).inputs[0]: unknown tensor 'x'".
sched::Result<Graph> parseGraph(std::string_view json);
sched::Result<Graph> readGraphFile(const std::string &path);
/// Checks a graph built in code (the same rules parseGraph applies).
sched::Status validateGraph(const Graph &g);
/// Writes a graph document (stable key order, indented).
std::string writeGraph(const Graph &g);

} // namespace hccl::graph

#endif // HCCL_MLIR_GRAPH_GRAPH_H
