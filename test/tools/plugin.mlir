// Upstream mlir-opt (LLVM 19) loads the comm dialect and passes as a plugin.
// RUN: mlir-opt %s --load-dialect-plugin=%hccl_libs/libHcclCommPlugin.so | FileCheck %s
// RUN: mlir-opt %s --load-dialect-plugin=%hccl_libs/libHcclCommPlugin.so --mlir-print-op-generic | mlir-opt --load-dialect-plugin=%hccl_libs/libHcclCommPlugin.so | FileCheck %s
// RUN: mlir-opt %s --load-dialect-plugin=%hccl_libs/libHcclCommPlugin.so \
// RUN:   --load-pass-plugin=%hccl_libs/libHcclCommPlugin.so \
// RUN:   --pass-pipeline="builtin.module(comm-gradient-fusion)" | FileCheck %s --check-prefix=PASS
// Without the plugin, mlir-opt does not know the dialect.
// RUN: not mlir-opt %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN

// NOPLUGIN: attribute created with unregistered dialect

// CHECK: module attributes {comm.topology = #comm.topology<"910b-8">}
module attributes {comm.topology = #comm.topology<"910b-8">} {
  // CHECK: comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
  comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
  // CHECK-LABEL: func.func @grads
  // PASS-LABEL: func.func @grads
  func.func @grads(%a: tensor<1024xf32>, %b: tensor<16xf32>) -> (tensor<1024xf32>, tensor<16xf32>) {
    // CHECK: comm.all_reduce sum %{{.*}} on @dp {comm.bucket = 0 : i64} : tensor<1024xf32>
    // CHECK: comm.all_reduce sum %{{.*}} on @dp {comm.bucket = 0 : i64} : tensor<16xf32>
    // PASS: comm.all_reduce sum %{{.*}}, %{{.*}} on @dp {comm.bucket = 0 : i64} : tensor<1024xf32>, tensor<16xf32>
    %0 = comm.all_reduce sum %a on @dp {comm.bucket = 0} : tensor<1024xf32>
    %1 = comm.all_reduce sum %b on @dp {comm.bucket = 0} : tensor<16xf32>
    return %0, %1 : tensor<1024xf32>, tensor<16xf32>
  }
}
