comm.group @dp ranks = [0, 1, 2, 3]
func.func @nested(%x: tensor<4xf32>, %n: index) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<16xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %e) -> tensor<16xf32> {
    %g = comm.all_gather %x on @dp dim 0 : tensor<4xf32> -> tensor<16xf32>
    comm.barrier on @dp
    %s = arith.addf %acc, %g : tensor<16xf32>
    scf.yield %s : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}
