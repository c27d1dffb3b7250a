//===- HostMemory.cpp - The host's memory settings the tools report -------===//
#include "HostMemory.h"

#include <fstream>
#include <iterator>

namespace hccl::tools {

const char *const kShmemHugePath =
    "/sys/kernel/mm/transparent_hugepage/shmem_enabled";

std::string shmemHugePageMode() {
  std::ifstream in(kShmemHugePath);
  std::string all((std::istreambuf_iterator<char>(in)),
                  std::istreambuf_iterator<char>());
  size_t open = all.find('['), close = all.find(']', open);
  if (open == std::string::npos || close == std::string::npos)
    return "";
  return all.substr(open + 1, close - open - 1);
}

bool shmemHugePagesAllowed(const std::string &mode) {
  return mode == "advise" || mode == "always" || mode == "within_size" ||
         mode == "force";
}

} // namespace hccl::tools
