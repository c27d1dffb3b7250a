module attributes {comm.topology = #comm.topology<"910b-8">} {
  comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 8]
}
