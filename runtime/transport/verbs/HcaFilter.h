//===- HcaFilter.h - HCCL_IB_HCA device/port whitelist ----------*- C++ -*-===//
//
// Which RDMA devices (and ports) the verbs transport may use, in the syntax
// of HCCL_SOCKET_IFNAME / NCCL_IB_HCA: a comma list of "name[:port]";
// names match as prefixes ("mlx5" takes mlx5_0, mlx5_1, ...), "=" in front
// of the list asks for exact names, "^" excludes the listed devices.
// Config.cpp validates the syntax; this file matches.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_TRANSPORT_VERBS_HCAFILTER_H
#define HCCL_RUNTIME_TRANSPORT_VERBS_HCAFILTER_H

#include <string>

namespace hccl::rt::verbs {

/// True when `device` port `port` passes `spec` ("" passes everything).
bool hcaMatches(const std::string &spec, const std::string &device, int port);

} // namespace hccl::rt::verbs

#endif // HCCL_RUNTIME_TRANSPORT_VERBS_HCAFILTER_H
