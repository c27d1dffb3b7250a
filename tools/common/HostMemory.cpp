//===- HostMemory.cpp - The host's memory settings the tools report -------===//
#include "HostMemory.h"

#include <cstdlib>
#include <fstream>
#include <iterator>

namespace hccl::tools {
namespace {

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

// The file that decides for PMD-sized shared-memory pages and its mode,
// each read once; both "" where neither file has a mode.
struct Setting {
  std::string file, mode;
};

Setting decide(const std::string &thpDir) {
  // No such file (or no number in it): no per-size setting either.
  unsigned long long bytes =
      std::strtoull(readFile(thpDir + "/hpage_pmd_size").c_str(), nullptr, 10);
  if (bytes >= 1024) {
    std::string own = thpDir + "/hugepages-" + std::to_string(bytes / 1024) +
                      "kB/shmem_enabled";
    std::string mode = bracketed(readFile(own));
    if (!mode.empty() && mode != "inherit")
      return {own, mode};
  }
  std::string top = thpDir + "/shmem_enabled";
  std::string mode = bracketed(readFile(top));
  return mode.empty() ? Setting{} : Setting{top, mode};
}

} // namespace

std::string shmemHugePageFile(const std::string &thpDir) {
  return decide(thpDir).file;
}

std::string shmemHugePageMode(const std::string &thpDir) {
  return decide(thpDir).mode;
}

bool shmemHugePagesAllowed(const std::string &mode) {
  return mode == "advise" || mode == "always" || mode == "within_size" ||
         mode == "force";
}

std::string shmemHugePageAdvice(const std::string &thpDir) {
  Setting s = decide(thpDir);
  if (s.file.empty())
    return "this kernel has no transparent huge pages "
           "(CONFIG_TRANSPARENT_HUGEPAGE)";
  return s.file + " is [" + s.mode + "]; as root: echo advise > " + s.file;
}

} // namespace hccl::tools
