module attributes {comm.topology = #comm.topology<"910b-8x2">} {
  comm.group @odd ranks = [0, 1, 2, 8]
  func.func @uneven(%a: tensor<8xf32>) -> tensor<8xf32> {
    %r = comm.all_reduce sum %a on @odd algo <hierarchical(mesh, rhd)> : tensor<8xf32>
    return %r : tensor<8xf32>
  }
}
