module attributes {x.link = #comm.link<hccs, bandwidth = 1.0e309, latency = 1.5, ports = 7>} {
}
