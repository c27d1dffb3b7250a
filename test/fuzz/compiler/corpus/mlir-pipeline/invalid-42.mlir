func.func @link_class() attributes {l = #comm.link<nvlink, bandwidth = 1, latency = 1, ports = 7>} { return }
