module attributes {comm.topology = #comm.topology<"910b-8x0">} {}
