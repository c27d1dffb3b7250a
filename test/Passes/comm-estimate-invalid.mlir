// comm-estimate: preconditions and options.
// RUN: hccl-opt %s -split-input-file -verify-diagnostics --comm-estimate -o /dev/null
// RUN: not hccl-opt %s -split-input-file --comm-estimate=output=%t.missing/report.txt -o /dev/null 2>&1 | FileCheck %s --check-prefix=OUT
// RUN: not hccl-opt %s -split-input-file --comm-estimate=trace=%t.missing/trace.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRACE
// RUN: not hccl-opt %s -split-input-file --comm-estimate=peak-tflops=-3 -o /dev/null 2>&1 | FileCheck %s --check-prefix=PEAK
// RUN: not hccl-opt %s -split-input-file --comm-estimate=link-params=%t.missing/links.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=LINKS-READ
// RUN: not hccl-opt %s -split-input-file --comm-estimate=link-params=%S/Inputs/algo-table-910b-8-flat.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=LINKS-FIELD

// OUT: error: comm-estimate: cannot open output file '{{.*}}.missing/report.txt': No such file or directory
// TRACE: error: comm-estimate: cannot open trace file '{{.*}}.missing/trace.json': No such file or directory
// PEAK: error: comm-estimate: option peak-tflops must be a positive number, found -3
// LINKS-READ: error: comm-estimate: option link-params='{{.*}}.missing/links.json': cannot read: No such file or directory
// A file that is not link parameters (an algorithm table) is refused by name.
// LINKS-FIELD: error: comm-estimate: option link-params='{{.*}}algo-table-910b-8-flat.json': link parameters: {{.*}}

// Collectives to price, but no topology.
comm.group @dp ranks = [0, 1, 2, 3]
// expected-error @+1 {{comm-estimate needs the cluster topology: add a 'comm.topology' attribute to the enclosing module, e.g. #comm.topology<"910b-8">}}
func.func @no_topology(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = comm.all_reduce sum %a on @dp : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

module attributes {comm.topology = #comm.topology<"910b-8">} {
comm.group @dp ranks = [0, 1, 2, 3]
func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'comm.all_reduce' op has a dynamically shaped payload; the cost model needs static shapes}}
  %0 = comm.all_reduce sum %a on @dp : tensor<?xf32>
  return %0 : tensor<?xf32>
}
}
