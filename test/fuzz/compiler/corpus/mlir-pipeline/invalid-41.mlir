func.func @link_bw() attributes {l = #comm.link<hccs, bandwidth = 0, latency = 1, ports = 7>} { return }
