module attributes {comm.topology = #comm.topology<"910b-8x4">} {
comm.group @world ranks = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]
comm.group @tp ranks = [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9], [10, 11], [12, 13], [14, 15], [16, 17], [18, 19], [20, 21], [22, 23], [24, 25], [26, 27], [28, 29], [30, 31]]
comm.group @cross ranks = [0, 8, 16, 24]
func.func @four_servers(%s: tensor<1024xf32>, %l: tensor<16777216xf32>)
    -> (tensor<1024xf32>, tensor<16777216xf32>, tensor<1024xf32>, tensor<16777216xf32>, tensor<16777216xf32>) {
  %0 = comm.all_reduce sum %s on @world : tensor<1024xf32>
  %1 = comm.all_reduce sum %l on @world : tensor<16777216xf32>
  %2 = comm.all_reduce sum %s on @tp : tensor<1024xf32>
  %3 = comm.all_reduce sum %l on @tp : tensor<16777216xf32>
  %4 = comm.all_reduce sum %l on @cross : tensor<16777216xf32>
  return %0, %1, %2, %3, %4 : tensor<1024xf32>, tensor<16777216xf32>, tensor<1024xf32>, tensor<16777216xf32>, tensor<16777216xf32>
}
}
