module attributes {comm.topology = #comm.topology<"910b-8">} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
comm.group @tp ranks = [[0, 1], [2, 3], [4, 5], [6, 7]]

func.func @keys(%a: tensor<1024xf32>, %h: tensor<1024xbf16>) -> (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xbf16>, tensor<1024xf32>) {
  %0 = comm.all_reduce sum %a on @dp : tensor<1024xf32>
  %1 = comm.all_reduce sum %a on @dp : tensor<1024xf32>
  %2 = comm.all_reduce sum %h on @dp : tensor<1024xbf16>
  %3 = comm.all_reduce sum %a on @dp : tensor<1024xf32>
  return %0, %1, %2, %3 : tensor<1024xf32>, tensor<1024xf32>, tensor<1024xbf16>, tensor<1024xf32>
}

func.func @groups(%a: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>) {
  %0 = comm.all_reduce sum %a on @dp : tensor<1024xf32>
  %1 = comm.all_reduce sum %a on @tp : tensor<1024xf32>
  %2 = comm.all_reduce sum %a on @dp : tensor<1024xf32>
  return %0, %1, %2 : tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>
}

func.func @other_collective(%a: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<8192xf32>, tensor<1024xf32>) {
  %0 = comm.all_reduce sum %a on @dp : tensor<1024xf32>
  %1 = comm.all_gather %a on @dp dim 0 : tensor<1024xf32> -> tensor<8192xf32>
  %2 = comm.all_reduce sum %a on @dp : tensor<1024xf32>
  return %0, %1, %2 : tensor<1024xf32>, tensor<8192xf32>, tensor<1024xf32>
}

func.func @dependence(%a: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>) {
  %0 = comm.all_reduce sum %a on @dp : tensor<1024xf32>
  %1 = comm.all_reduce sum %a on @dp : tensor<1024xf32>
  %t = comm.all_reduce sum %0 on @tp : tensor<1024xf32>
  %d = arith.addf %t, %1 : tensor<1024xf32>
  %2 = comm.all_reduce sum %d on @dp : tensor<1024xf32>
  return %1, %2 : tensor<1024xf32>, tensor<1024xf32>
}

func.func @pinned(%a: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>) {
  %0 = comm.all_reduce sum %a on @dp algo <ring> : tensor<1024xf32>
  %1 = comm.all_reduce sum %a on @dp algo <ring> : tensor<1024xf32>
  %2 = comm.all_reduce sum %a on @dp : tensor<1024xf32>
  return %0, %1, %2 : tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>
}
}
