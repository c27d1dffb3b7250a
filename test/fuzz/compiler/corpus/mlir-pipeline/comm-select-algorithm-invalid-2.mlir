module attributes {comm.topology = #comm.topology<"910b-8">} {
comm.group @dp ranks = [0, 1, 2, 3]
func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = comm.all_reduce sum %a on @dp : tensor<?xf32>
  return %0 : tensor<?xf32>
}
}
