// comm-estimate link-params=FILE needs a topology to put the figures in,
// even in a function with no collective (without the option it prices
// nothing there and needs none).
// RUN: hccl-opt %s --comm-estimate -o /dev/null | FileCheck %s --check-prefix=PLAIN
// RUN: not hccl-opt %s --comm-estimate=link-params=%S/Inputs/link-params-no-knee.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=LINKS
// PLAIN: timeline @compute_only compute_us=5.000 comm_us=0.000
// LINKS: comm-estimate-link-params-no-topology.mlir:[[@LINE+1]]:1: error: comm-estimate needs the cluster topology
func.func @compute_only(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %a {comm.cost_us = 5.0} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
