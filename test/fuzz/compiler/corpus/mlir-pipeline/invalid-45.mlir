module attributes {comm.topology = "910b-8"} {}
