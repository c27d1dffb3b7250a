module attributes {comm.topology = #comm.topology<"910b-8">} {
  comm.group @g ranks = [0, 1, 2, 3]
  func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {
    %r = comm.all_reduce sum %a on @g algo <ring> : tensor<8xf32>
    return %r : tensor<8xf32>
  }
}
