// hccl-opt lists the comm dialect and passes, and rejects bad input with a
// located diagnostic and a non-zero exit.
// RUN: hccl-opt --show-dialects | FileCheck %s --check-prefix=DIALECTS
// RUN: hccl-opt --help | FileCheck %s --check-prefix=HELP
// RUN: not hccl-opt %s 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not hccl-opt %s --comm-no-such-pass 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not hccl-opt %S/Inputs/does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING

// DIALECTS: Available Dialects:
// DIALECTS-SAME: comm
// HELP: --comm-gradient-fusion
// BAD: hccl-opt-driver.mlir:[[# @LINE + 4]]:{{[0-9]+}}: error: 'comm.all_reduce' op references unknown group @missing
// OPTION: Unknown command line argument '--comm-no-such-pass'
// MISSING: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
func.func @bad(%a: tensor<4xf32>) {
  %0 = comm.all_reduce sum %a on @missing : tensor<4xf32>
  return
}
