//===- CacheSize.cpp - The host's last-level cache, from sysfs ------------===//
#include "common/CacheSize.h"
#include "common/HostLoad.h"

#include <algorithm>
#include <cstdio>

namespace hccl::rt {
namespace {

/// The first line of a small sysfs file; empty if it cannot be read.
std::string readLine(const std::string &path) {
  FILE *f = std::fopen(path.c_str(), "re");
  if (!f)
    return {};
  char buf[256] = {0};
  size_t got = std::fread(buf, 1, sizeof(buf) - 1, f);
  std::fclose(f);
  std::string s(buf, got);
  s.erase(std::find(s.begin(), s.end(), '\n'), s.end());
  return s;
}

/// A decimal of at most 9 digits at [i, end) of s; -1 if none or longer.
long digitsAt(const std::string &s, size_t &i) {
  size_t start = i;
  long v = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - start < 9)
    v = v * 10 + (s[i++] - '0');
  bool more = i < s.size() && s[i] >= '0' && s[i] <= '9';
  return i == start || more ? -1 : v;
}

} // namespace

size_t cacheSizeOf(const std::string &text) {
  size_t i = 0;
  long v = digitsAt(text, i);
  if (v <= 0)
    return 0;
  size_t unit = 1;
  if (i < text.size()) {
    if (text[i] == 'K')
      unit = size_t(1) << 10;
    else if (text[i] == 'M')
      unit = size_t(1) << 20;
    else if (text[i] == 'G')
      unit = size_t(1) << 30;
    else
      return 0;
    ++i;
  }
  return i == text.size() ? static_cast<size_t>(v) * unit : 0;
}

int cpuListCount(const std::string &text) {
  size_t i = 0;
  long n = 0;
  while (i < text.size()) {
    long lo = digitsAt(text, i), hi = lo;
    if (lo < 0)
      return 0;
    if (i < text.size() && text[i] == '-') {
      ++i;
      hi = digitsAt(text, i);
      if (hi < lo)
        return 0;
    }
    n += hi - lo + 1;
    if (n > 1000000)
      return 0;
    if (i < text.size() && text[i++] != ',')
      return 0;
    if (i == text.size() && text.back() == ',')
      return 0;
  }
  return static_cast<int>(n);
}

size_t lastLevelCacheIn(const std::string &cpuDir, int cores) {
  int bestLevel = 0;
  size_t bytes = 0;
  int sharing = 0;
  for (int index = 0; index < 16; ++index) {
    std::string dir = cpuDir + "/cpu0/cache/index" + std::to_string(index);
    std::string type = readLine(dir + "/type");
    if (type.empty())
      break;
    if (type != "Data" && type != "Unified")
      continue;
    size_t li = 0;
    std::string levelText = readLine(dir + "/level");
    long level = digitsAt(levelText, li);
    size_t size = cacheSizeOf(readLine(dir + "/size"));
    int shared = cpuListCount(readLine(dir + "/shared_cpu_list"));
    if (level <= bestLevel || li != levelText.size() || size == 0)
      continue;
    bestLevel = static_cast<int>(level);
    bytes = size;
    sharing = shared;
  }
  if (bytes == 0)
    return 0;
  // Instances: the host's cores over those sharing one (at least one; an
  // unreadable share counts as one cache for the whole host).
  size_t instances = sharing > 0 && cores > sharing
                         ? static_cast<size_t>((cores + sharing - 1) / sharing)
                         : 1;
  return bytes * instances;
}

size_t lastLevelCacheBytes() {
  static const size_t bytes =
      lastLevelCacheIn("/sys/devices/system/cpu", hostCores());
  return bytes;
}

} // namespace hccl::rt
