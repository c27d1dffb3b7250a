comm.group @g ranks = [0, 1, 2, 3]
func.func @bytes(%a: tensor<2305843009213693952xf32>) -> tensor<2305843009213693952xf32> {
  %r = comm.all_reduce sum %a on @g : tensor<2305843009213693952xf32>
  return %r : tensor<2305843009213693952xf32>
}
