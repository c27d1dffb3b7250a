func.func @compute_no_results(%a: tensor<4xf32>) {
  comm.compute "sink"(%a) : (tensor<4xf32>) -> ()
  return
}
