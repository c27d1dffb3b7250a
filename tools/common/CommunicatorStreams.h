//===- CommunicatorStreams.h - One stream per communicator ------*- C++ -*-===//
//
// hccl-run and hccl-sim `--streams group`: each communicator gets a stream of
// its own, numbered as first met, as comm-estimate's timeline keys streams.
// A communicator is a program's groups (none given: the identity on its p
// ranks).
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TOOLS_COMMUNICATORSTREAMS_H
#define HCCL_TOOLS_COMMUNICATORSTREAMS_H

#include "hccl-mlir/schedule/Plan.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace hccl::tools {

class CommunicatorStreams {
public:
  /// The stream of `pp`'s communicator.
  size_t streamOf(const sched::PlanProgram &pp) {
    std::vector<std::vector<int64_t>> key = pp.groups;
    if (key.empty()) {
      key.emplace_back();
      for (int64_t r = 0; r < pp.program.p; ++r)
        key.back().push_back(r);
    }
    auto found = std::find(seen_.begin(), seen_.end(), key);
    if (found != seen_.end())
      return static_cast<size_t>(found - seen_.begin());
    seen_.push_back(std::move(key));
    return seen_.size() - 1;
  }
  /// Communicators met so far.
  size_t size() const { return seen_.size(); }

private:
  std::vector<std::vector<std::vector<int64_t>>> seen_;
};

} // namespace hccl::tools

#endif // HCCL_TOOLS_COMMUNICATORSTREAMS_H
