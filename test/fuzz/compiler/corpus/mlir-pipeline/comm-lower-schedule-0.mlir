module attributes {comm.topology = #comm.topology<"910b-8">} {
  comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]

  func.func @bucket(%a: tensor<1024xf32>, %b: tensor<16xf32>) -> (tensor<1024xf32>, tensor<16xf32>) {
    %r:2 = comm.all_reduce sum %a, %b on @dp algo <ring> {comm.bucket = 2} : tensor<1024xf32>, tensor<16xf32>
    return %r#0, %r#1 : tensor<1024xf32>, tensor<16xf32>
  }

  func.func @kinds(%x: tensor<4x8xf32>, %y: tensor<64xbf16>, %z: tensor<16xi32>, %w: tensor<16xf16>, %v: tensor<3xf64>) {
    %0 = comm.all_gather %x on @dp dim 0 algo <rhd> : tensor<4x8xf32> -> tensor<32x8xf32>
    %1 = comm.reduce_scatter max %y on @dp dim 0 algo <mesh> : tensor<64xbf16> -> tensor<8xbf16>
    %2 = comm.broadcast %z on @dp root 3 algo <tree> : tensor<16xi32>
    %3 = comm.broadcast %z on @dp root 0 algo <ring, slices = 2> : tensor<16xi32>
    %4 = comm.reduce min %z on @dp root 7 algo <star> : tensor<16xi32>
    %5 = comm.all_to_all %w on @dp split_dim 0 concat_dim 0 algo <pairwise> : tensor<16xf16> -> tensor<16xf16>
    %6 = comm.all_reduce prod %v on @dp algo <rd> : tensor<3xf64>
    %7 = comm.all_reduce sum %v on @dp algo <mesh_oneshot> : tensor<3xf64>
    return
  }

  func.func @auto(%a: tensor<4xf32>, %b: tensor<16777216xf32>) {
    %0 = comm.all_reduce sum %a on @dp : tensor<4xf32>
    %1 = comm.all_reduce sum %b on @dp : tensor<16777216xf32>
    return
  }

  func.func @async(%a: tensor<64xf32>) -> tensor<64xf32> {
    %t = comm.start {
      %r = comm.all_reduce sum %a on @dp algo <ring> : tensor<64xf32>
      comm.yield %r : tensor<64xf32>
    }
    %m = arith.mulf %a, %a : tensor<64xf32>
    %w = comm.wait %t : tensor<64xf32>
    return %w : tensor<64xf32>
  }
}
