func.func @wait_block_arg(%t: !comm.token) {
  %0 = comm.wait %t : tensor<4xf32>
  return
}
