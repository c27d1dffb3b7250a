module attributes {x.link = #comm.link<hccs, bandwidth = 56, latency = 1.0e309, ports = 7>} {
}
