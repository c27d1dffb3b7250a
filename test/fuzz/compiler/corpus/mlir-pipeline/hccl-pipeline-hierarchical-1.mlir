module attributes {comm.topology = #comm.topology<"910b-8x4">} {
  comm.group @w ranks = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                         16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]
  func.func @gather(%x: tensor<64xf32>) -> tensor<2048xf32> {
    %0 = comm.all_gather %x on @w dim 0 : tensor<64xf32> -> tensor<2048xf32>
    return %0 : tensor<2048xf32>
  }
}
