// A slice of a data-parallel training step: the backward pass produces three
// gradients, each all-reduced on its own as a framework would issue them.
// comm-bucket-sizing has put the two small ones in one bucket.
module attributes {comm.topology = #comm.topology<"910b-8">} {
  comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
  func.func @backward(%x: tensor<4096x1024xf32>, %w1: tensor<1024x1024xf32>,
                      %w2: tensor<1024x1024xf32>, %b2: tensor<1024xf32>)
      -> (tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<1024xf32>) {
    %g2 = arith.mulf %w2, %w2 {comm.cost_us = 220.0} : tensor<1024x1024xf32>
    %gb = arith.addf %b2, %b2 {comm.cost_us = 2.0} : tensor<1024xf32>
    %r2 = comm.all_reduce sum %g2 on @dp {comm.bucket = 0} : tensor<1024x1024xf32>
    %rb = comm.all_reduce sum %gb on @dp {comm.bucket = 0} : tensor<1024xf32>
    %g1 = arith.mulf %w1, %w1 {comm.cost_us = 220.0} : tensor<1024x1024xf32>
    %r1 = comm.all_reduce sum %g1 on @dp {comm.bucket = 1} : tensor<1024x1024xf32>
    return %r1, %r2, %rb : tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<1024xf32>
  }
}
