//===- HostMemory.cpp - The host's memory settings the tools report -------===//
#include "HostMemory.h"

#include <cstdlib>
#include <fstream>
#include <iterator>

namespace hccl::tools {
namespace {

const std::string kThpDir = "/sys/kernel/mm/transparent_hugepage";

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

// The bracketed word of a sysfs mode file ("always [madvise] never").
std::string bracketed(const std::string &text) {
  size_t open = text.find('['), close = text.find(']', open);
  if (open == std::string::npos || close == std::string::npos)
    return "";
  return text.substr(open + 1, close - open - 1);
}

} // namespace

std::string shmemHugePageMode() {
  // No such file (or no number in it): no per-size setting either.
  unsigned long long bytes =
      std::strtoull(readFile(kThpDir + "/hpage_pmd_size").c_str(), nullptr, 10);
  if (bytes >= 1024) {
    std::string own =
        bracketed(readFile(kThpDir + "/hugepages-" +
                           std::to_string(bytes / 1024) + "kB/shmem_enabled"));
    if (!own.empty() && own != "inherit")
      return own;
  }
  return bracketed(readFile(kThpDir + "/shmem_enabled"));
}

bool shmemHugePagesAllowed(const std::string &mode) {
  return mode == "advise" || mode == "always" || mode == "within_size" ||
         mode == "force";
}

std::string shmemHugePageAdvice(const std::string &mode) {
  if (mode.empty())
    return "this kernel has no transparent huge pages "
           "(CONFIG_TRANSPARENT_HUGEPAGE)";
  return kThpDir + "/shmem_enabled is [" + mode + "]; as root: echo advise > " +
         kThpDir + "/shmem_enabled";
}

} // namespace hccl::tools
