//===- graph_test.cpp - lib/graph: read, validate, write ------------------===//
#include "hccl-mlir/graph/Graph.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>

using namespace hccl::graph;
namespace sched = hccl::sched;

namespace {

/// A small valid graph; tests mutate one piece of it.
std::string base(const std::string &ops, const std::string &tensors,
                 const std::string &extra = "") {
  return R"({"format": "hccl-mlir.graph", "version": 1, "name": "g",
             "topology": "910b-8",
             "groups": [{"name": "dp", "ranks": [0, 1, 2, 3]},
                        {"name": "tp", "ranks": [[0, 1], [2, 3]]}],
             "tensors": [)" +
         tensors + R"(], "ops": [)" + ops + "]" + extra + "}";
}

const char *kTensors =
    R"({"name": "x", "shape": [8, 4], "dtype": "fp32"},
       {"name": "g", "shape": [8, 4], "dtype": "fp32"},
       {"name": "a", "shape": [8, 4], "dtype": "fp32"},
       {"name": "s", "shape": [4, 4], "dtype": "fp32"})";
const char *kOps =
    R"({"op": "compute", "name": "bwd", "time_us": 5, "inputs": ["x"], "outputs": ["g"]},
       {"op": "all_reduce", "name": "ar", "group": "dp", "inputs": ["g"], "outputs": ["a"]},
       {"op": "reduce_scatter", "name": "rs", "group": "tp", "dim": 0,
        "reduction": "max", "inputs": ["a"], "outputs": ["s"]})";

sched::Result<Graph> parse(const std::string &text) { return parseGraph(text); }

TEST(Graph, AnOutputMayBeAGraphInputPassedThrough) {
  // Listed as an input, or derived as one (consumed, never produced).
  EXPECT_TRUE(parse(
      base(kOps, kTensors, R"(, "inputs": ["x"], "outputs": ["x", "s"])")));
  EXPECT_TRUE(parse(base(kOps, kTensors, R"(, "outputs": ["x", "s"])")));
}

TEST(Graph, ParsesAValidGraph) {
  auto g = parse(base(kOps, kTensors));
  ASSERT_TRUE(g) << g.message();
  EXPECT_EQ(g->name, "g");
  ASSERT_TRUE(g->topology.has_value());
  EXPECT_EQ(g->topology->topology.worldSize(), 8);
  ASSERT_EQ(g->groups.size(), 2u);
  EXPECT_EQ(g->groups[1].size(), 2);
  EXPECT_EQ(g->groups[1].subgroups.size(), 2u);
  ASSERT_EQ(g->ops.size(), 3u);
  EXPECT_EQ(g->ops[2].kind, OpKind::ReduceScatter);
  EXPECT_EQ(g->ops[2].reduction, sched::ReduceOp::Max);
  EXPECT_EQ(g->findTensor("s")->bytes(), 4 * 4 * 4);
}

TEST(Graph, WriteThenReadIsIdentity) {
  auto g = parse(base(kOps, kTensors, R"(, "outputs": ["s"])"));
  ASSERT_TRUE(g) << g.message();
  std::string text = writeGraph(*g);
  auto again = parse(text);
  ASSERT_TRUE(again) << again.message();
  EXPECT_EQ(writeGraph(*again), text);
  EXPECT_EQ(again->outputs, std::vector<std::string>{"s"});
  EXPECT_EQ(again->ops[1].group, "dp");
}

struct BadCase {
  const char *what;
  std::string text;
  const char *message;
};

class GraphErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(GraphErrors, NamesTheProblemAndWhere) {
  auto g = parse(GetParam().text);
  ASSERT_FALSE(g) << GetParam().what << " was accepted";
  EXPECT_EQ(g.message(), GetParam().message) << GetParam().what;
}

INSTANTIATE_TEST_SUITE_P(
    All, GraphErrors,
    ::testing::Values(
        BadCase{"malformed", "{\"format\": ", "malformed JSON"},
        BadCase{"not an object", "[1, 2]", "expected a JSON object at the top"},
        BadCase{"format", R"({"format": "onnx", "version": 1})",
                "format: expected \"hccl-mlir.graph\", found \"onnx\""},
        BadCase{"version",
                R"({"format": "hccl-mlir.graph", "version": 2, "name": "g",
                    "groups": [], "tensors": [], "ops": []})",
                "version: unsupported version 2 (this reader understands 1)"},
        BadCase{"unknown top key", base(kOps, kTensors, R"(, "extra": 1)"),
                "extra: unknown key (expected format, version, name, "
                "topology, groups, tensors, ops, inputs, outputs)"},
        BadCase{"dtype",
                base("", R"({"name": "x", "shape": [2], "dtype": "f8"})"),
                "tensors[0].dtype: unknown dtype 'f8' (expected one of int8, "
                "int16, int32, fp16, fp32, int64, uint64, uint8, uint16, "
                "uint32, fp64, bf16)"},
        BadCase{"negative dim",
                base("", R"({"name": "x", "shape": [2, -1], "dtype": "fp32"})"),
                "tensors[0].shape[1]: expected an integer >= 0, found -1"},
        BadCase{"duplicate tensor",
                base("", R"({"name": "x", "shape": [2], "dtype": "fp32"},
                           {"name": "x", "shape": [2], "dtype": "fp32"})"),
                "tensors[1]: duplicate tensor 'x'"},
        BadCase{"unknown input",
                base(R"({"op": "compute", "name": "c", "time_us": 1,
                         "inputs": ["nope"], "outputs": ["x"]})",
                     R"({"name": "x", "shape": [2], "dtype": "fp32"})"),
                "ops[0] (c).inputs[0]: unknown tensor 'nope'"},
        // A listed output nothing defines (the importer would return a
        // null value: a crash found by fuzz-graph-import).
        BadCase{"output never produced",
                base(kOps,
                     std::string(kTensors) +
                         R"(, {"name": "z", "shape": [2], "dtype": "fp32"})",
                     R"(, "outputs": ["s", "z"])"),
                "outputs[1]: tensor 'z' is neither produced by an op nor a "
                "graph input"},
        BadCase{"output not among listed inputs",
                base(kOps,
                     std::string(kTensors) +
                         R"(, {"name": "z", "shape": [2], "dtype": "fp32"})",
                     R"(, "inputs": ["x"], "outputs": ["z"])"),
                "outputs[0]: tensor 'z' is neither produced by an op nor a "
                "graph input"},
        BadCase{"cost missing",
                base(R"({"op": "compute", "name": "c", "inputs": [],
                         "outputs": ["x"]})",
                     R"({"name": "x", "shape": [2], "dtype": "fp32"})"),
                "ops[0] (c): a compute op needs 'time_us', or 'flops' and/or "
                "'bytes' to estimate it"},
        BadCase{
            "produced twice",
            base(
                R"({"op": "compute", "name": "c", "time_us": 1, "inputs": [], "outputs": ["x"]},
                       {"op": "compute", "name": "d", "time_us": 1, "inputs": [], "outputs": ["x"]})",
                R"({"name": "x", "shape": [2], "dtype": "fp32"})"),
            "ops[1] (d): tensor 'x' is already produced by ops[0]"},
        BadCase{
            "cycle",
            base(
                R"({"op": "compute", "name": "c", "time_us": 1, "inputs": ["y"], "outputs": ["x"]},
                       {"op": "compute", "name": "d", "time_us": 1, "inputs": ["x"], "outputs": ["y"]})",
                R"({"name": "x", "shape": [2], "dtype": "fp32"},
                        {"name": "y", "shape": [2], "dtype": "fp32"})"),
            "ops[0] (c).inputs[0]: tensor 'y' is produced by ops[1] (d), "
            "which does not run before this op: the graph has a cycle or "
            "is not in execution order"},
        BadCase{"all_reduce shape",
                base(R"({"op": "all_reduce", "name": "ar", "group": "dp",
                         "inputs": ["x"], "outputs": ["y"]})",
                     R"({"name": "x", "shape": [2], "dtype": "fp32"},
                        {"name": "y", "shape": [3], "dtype": "fp32"})"),
                "ops[0] (ar).outputs[0]: expected the shape and dtype of "
                "input 'x' ([2] fp32), found [3] fp32"},
        BadCase{
            "scatter not divisible",
            base(
                R"({"op": "reduce_scatter", "name": "rs", "group": "dp", "dim": 0,
                         "inputs": ["x"], "outputs": ["y"]})",
                R"({"name": "x", "shape": [6], "dtype": "fp32"},
                        {"name": "y", "shape": [2], "dtype": "fp32"})"),
            "ops[0] (rs): input dim 0 (6) is not a multiple of the group "
            "size 4"},
        BadCase{
            "root outside",
            base(R"({"op": "broadcast", "name": "b", "group": "tp", "root": 2,
                         "inputs": ["x"], "outputs": ["y"]})",
                 R"({"name": "x", "shape": [2], "dtype": "fp32"},
                        {"name": "y", "shape": [2], "dtype": "fp32"})"),
            "ops[0] (b).root: 2 is outside the group (0..1)"},
        BadCase{
            "field of another kind",
            base(R"({"op": "all_reduce", "name": "ar", "group": "dp", "dim": 0,
                         "inputs": ["x"], "outputs": ["y"]})",
                 R"({"name": "x", "shape": [2], "dtype": "fp32"},
                        {"name": "y", "shape": [2], "dtype": "fp32"})"),
            "ops[0] (ar).dim: not a field of all_reduce"},
        BadCase{"group rank outside topology",
                R"({"format": "hccl-mlir.graph", "version": 1, "name": "g",
                    "topology": "910b-8", "groups": [{"name": "w", "ranks": [7, 8]}],
                    "tensors": [], "ops": []})",
                "groups[0] (w): rank 8 is outside the topology's 8 ranks"},
        BadCase{"unequal subgroups",
                R"({"format": "hccl-mlir.graph", "version": 1, "name": "g",
                    "groups": [{"name": "w", "ranks": [[0, 1], [2]]}],
                    "tensors": [], "ops": []})",
                "groups[0].ranks[1]: subgroups must have equal sizes: "
                "expected 2 ranks, found 1"},
        BadCase{"rank table and preset",
                R"({"format": "hccl-mlir.graph", "version": 1, "name": "g",
                    "topology": {"preset": "910b-8", "rank_table": {}},
                    "groups": [], "tensors": [], "ops": []})",
                "topology: give exactly one of 'preset' and 'rank_table'"}),
    // Test names from the cases' descriptions (not their bytes).
    [](const ::testing::TestParamInfo<BadCase> &info) {
      std::string name = info.param.what;
      for (char &ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch)))
          ch = '_';
      return name;
    });

TEST(Graph, RankTableTopology) {
  std::string text = R"({"format": "hccl-mlir.graph", "version": 1, "name": "g",
    "topology": {"rank_table": {"version": "1.0", "status": "completed",
      "server_count": "2", "server_list": [
        {"server_id": "a", "device": [{"device_id": "0", "device_ip": "10.0.0.1", "rank_id": "0"},
                                      {"device_id": "1", "device_ip": "10.0.0.2", "rank_id": "1"}]},
        {"server_id": "b", "device": [{"device_id": "0", "device_ip": "10.0.1.1", "rank_id": "2"},
                                      {"device_id": "1", "device_ip": "10.0.1.2", "rank_id": "3"}]}]},
      "link_params": {"inter": {"class": "tcp", "bandwidth_gbps": 1.25}}},
    "groups": [{"name": "w", "ranks": [0, 1, 2, 3]}], "tensors": [], "ops": []})";
  auto g = parse(text);
  ASSERT_TRUE(g) << g.message();
  const sched::Topology &t = g->topology->topology;
  EXPECT_EQ(t.servers, 2);
  EXPECT_EQ(t.devicesPerServer, 2);
  EXPECT_FALSE(t.sameServer(1, 2));
  EXPECT_EQ(t.inter.cls, sched::LinkClass::TCP);
  EXPECT_DOUBLE_EQ(t.inter.bandwidthGBps, 1.25);
  // The writer keeps the rank table and link parameters.
  auto again = parse(writeGraph(*g));
  ASSERT_TRUE(again) << again.message();
  EXPECT_TRUE(again->topology->topology == t);
}

} // namespace
