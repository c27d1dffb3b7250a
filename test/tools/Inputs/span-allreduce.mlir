// One 384 KiB all-reduce on 2 local ranks: three launches of it (a warm-up
// and two timed) pass the end of a 1 MiB span once (hccl-run.test,
// --buffer-span-mib).
module attributes {comm.topology = #comm.topology<"host-2">} {
  comm.group @w ranks = [0, 1]

  func.func @step(%x: tensor<98304xf32>) -> tensor<98304xf32> {
    %r = comm.all_reduce sum %x on @w algo <ring> : tensor<98304xf32>
    return %r : tensor<98304xf32>
  }
}
