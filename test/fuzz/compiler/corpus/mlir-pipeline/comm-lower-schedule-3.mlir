module {
  comm.group @tp ranks = [0, 1, 2, 3]
  func.func @layers(%a: tensor<256xf32>, %b: tensor<16x16xf32>, %c: tensor<256xf32>) {
    %0 = comm.all_reduce sum %a on @tp algo <ring> : tensor<256xf32>
    %1 = comm.all_reduce sum %b on @tp algo <ring> : tensor<16x16xf32>
    %2 = comm.all_reduce sum %c on @tp algo <ring> : tensor<256xf32>
    return
  }
}
