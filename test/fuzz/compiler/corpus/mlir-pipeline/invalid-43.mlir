func.func @link_ports() attributes {l = #comm.link<roce, bandwidth = 1, latency = 1, ports = 0>} { return }
