// One 64 MiB all-reduce over two 910B servers, for sim-table.test.
module attributes {comm.topology = #comm.topology<"910b-8x2">} {
comm.group @all ranks = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
func.func @f(%a: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %0 = comm.all_reduce sum %a on @all : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
}
