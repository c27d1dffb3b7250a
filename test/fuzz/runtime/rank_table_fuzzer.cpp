//===- rank_table_fuzzer.cpp - Rank tables into Topology::fromRankTable ---===//
//
// The input is a rank table, optionally followed by a NUL and a
// link-parameter document (both are files a job is given). A topology read
// from them goes into plans: it must write and read back unchanged.
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/schedule/Plan.h"
#include "hccl-mlir/schedule/Topology.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

using namespace hccl::sched;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view in(reinterpret_cast<const char *>(data), size);
  std::string_view table = in, links;
  if (size_t nul = in.find('\0'); nul != std::string_view::npos) {
    table = in.substr(0, nul);
    links = in.substr(nul + 1);
  }
  auto t = Topology::fromRankTable(table, links);
  if (!t) {
    if (t.message().empty())
      abort(); // an error names the problem
    return 0;
  }
  auto back = topologyFromJson(topologyToJson(*t));
  if (!back || !(*back == *t))
    abort();
  return 0;
}
