module attributes {comm.topology = #comm.topology<"910b-8x2">} {
  comm.group @world ranks = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
  func.func @hierarchical(%a: tensor<4096xf32>) -> tensor<4096xf32> {
    %r = comm.all_reduce sum %a on @world algo <hierarchical(mesh, ring)> : tensor<4096xf32>
    return %r : tensor<4096xf32>
  }
}
