module attributes {comm.topology = #comm.topology<"910b-8x2">} {
  comm.group @w ranks = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
  func.func @gather(%x: tensor<64xf32>) -> tensor<1024xf32> {
    %0 = comm.all_gather %x on @w dim 0 : tensor<64xf32> -> tensor<1024xf32>
    return %0 : tensor<1024xf32>
  }
}
