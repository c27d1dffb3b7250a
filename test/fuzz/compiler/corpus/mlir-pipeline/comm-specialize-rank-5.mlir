module attributes {comm.topology = #comm.topology<"910b-8">} {
  comm.group @g ranks = [0, 1, 2, 3, 4, 5]
  func.func @mesh_p6(%a: tensor<60xf32>) -> tensor<60xf32> {
    %r = comm.all_reduce sum %a on @g algo <mesh> : tensor<60xf32>
    return %r : tensor<60xf32>
  }
}
