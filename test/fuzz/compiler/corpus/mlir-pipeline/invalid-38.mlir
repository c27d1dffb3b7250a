module attributes {comm.topology = #comm.topology<8>} {}
