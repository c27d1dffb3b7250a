module attributes {mhlo.num_replicas = 2 : i32} {
  func.func public @f0(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f1(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = func.call @f1(%a) : (tensor<4xf32>) -> tensor<4xf32>
    return %b : tensor<4xf32>
  }
  func.func private @f1(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f2(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = func.call @f2(%a) : (tensor<4xf32>) -> tensor<4xf32>
    return %b : tensor<4xf32>
  }
  func.func private @f2(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f3(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = func.call @f3(%a) : (tensor<4xf32>) -> tensor<4xf32>
    return %b : tensor<4xf32>
  }
  func.func private @f3(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f4(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = func.call @f4(%a) : (tensor<4xf32>) -> tensor<4xf32>
    return %b : tensor<4xf32>
  }
  func.func private @f4(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f5(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = func.call @f5(%a) : (tensor<4xf32>) -> tensor<4xf32>
    return %b : tensor<4xf32>
  }
  func.func private @f5(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f6(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = func.call @f6(%a) : (tensor<4xf32>) -> tensor<4xf32>
    return %b : tensor<4xf32>
  }
  func.func private @f6(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f7(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = func.call @f7(%a) : (tensor<4xf32>) -> tensor<4xf32>
    return %b : tensor<4xf32>
  }
  func.func private @f7(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f8(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = func.call @f8(%a) : (tensor<4xf32>) -> tensor<4xf32>
    return %b : tensor<4xf32>
  }
  func.func private @f8(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f9(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = func.call @f9(%a) : (tensor<4xf32>) -> tensor<4xf32>
    return %b : tensor<4xf32>
  }
  func.func private @f9(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f10(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = func.call @f10(%a) : (tensor<4xf32>) -> tensor<4xf32>
    return %b : tensor<4xf32>
  }
  func.func private @f10(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f11(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = func.call @f11(%a) : (tensor<4xf32>) -> tensor<4xf32>
    return %b : tensor<4xf32>
  }
  func.func private @f11(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = func.call @f12(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = func.call @f12(%a) : (tensor<4xf32>) -> tensor<4xf32>
    return %b : tensor<4xf32>
  }
  func.func private @f12(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "stablehlo.collective_broadcast"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
