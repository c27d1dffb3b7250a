module attributes {mhlo.num_replicas = 2 : i32} {
  func.func public @f0(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f1(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f1(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f2(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f2(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f3(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f3(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f4(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f4(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f5(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f5(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f6(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f6(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f7(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f7(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f8(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f8(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f9(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f9(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f10(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f10(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f11(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f11(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f12(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f12(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f13(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f13(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f14(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f14(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f15(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f15(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f16(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f16(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f17(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f17(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f18(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f18(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f19(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f19(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f20(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f20(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f21(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f21(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f22(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f22(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f23(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f23(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f24(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f24(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f25(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f25(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f26(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f26(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f27(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f27(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f28(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f28(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f29(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f29(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f30(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f30(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f31(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f31(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f32(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f32(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f33(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f33(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f34(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f34(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f35(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f35(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f36(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f36(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f37(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f37(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f38(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f38(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f39(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f39(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f40(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %a : tensor<4xf32>
  }
  func.func private @f40(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "stablehlo.collective_broadcast"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
    %1 = func.call @f0(%0) : (tensor<4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
