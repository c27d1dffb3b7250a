comm.group @dp ranks = [0, 1]
func.func @waited_elsewhere(%a: tensor<4xf32>, %c: i1) {
  %t = comm.start {
    %r = comm.all_reduce sum %a on @dp : tensor<4xf32>
    comm.yield %r : tensor<4xf32>
  }
  scf.if %c {
    %0 = comm.wait %t : tensor<4xf32>
  }
  return
}
