comm.group @dp ranks = [0, 1, 2, 3]
func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  %r = comm.all_reduce sum %a on @dp algo <ring> : tensor<?xf32>
  return %r : tensor<?xf32>
}
