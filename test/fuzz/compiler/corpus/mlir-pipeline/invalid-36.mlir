module attributes {comm.topology = #comm.topology<"910c">} {}
