comm.group @g ranks = [0, 1, 2, 3]
func.func @total(%a: tensor<1152921504606846976xf32>, %b: tensor<1152921504606846976xf32>) {
  %r:2 = comm.all_reduce sum %a, %b on @g : tensor<1152921504606846976xf32>, tensor<1152921504606846976xf32>
  return
}
