func.func @topology_on_func() attributes {comm.topology = #comm.topology<"910b-8">} { return }
