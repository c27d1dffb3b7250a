//===- LinkRead.h - The one reader of link figures --------------*- C++ -*-===//
//
// A plan's "topology" object and a link-parameter file carry the same
// figures (intra, inter, intra_shape, reduce_gbps, collective_overhead_us).
// Both are read here, so a value one accepts the other accepts too. Private
// to lib/schedule.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_LIB_SCHEDULE_LINKREAD_H
#define HCCL_LIB_SCHEDULE_LINKREAD_H

#include "hccl-mlir/schedule/JsonRead.h"
#include "hccl-mlir/schedule/Topology.h"

#include <string>

namespace hccl::sched::detail {

/// Reads the link keys present in object `j` over `t` (the others are the
/// caller's). Errors read "<path>.<key>: <problem>" ("<key>: ..." when
/// `path` is empty).
Status readLinkFields(const jsonread::Json &j, const std::string &path,
                      Topology &t);

} // namespace hccl::sched::detail

#endif // HCCL_LIB_SCHEDULE_LINKREAD_H
