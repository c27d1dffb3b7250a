module attributes {x.t = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 1.0e309>} {
}
