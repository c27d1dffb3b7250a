//===- CacheSize.cpp - The last-level cache, from sysfs -------------------===//
#include "common/CacheSize.h"
#include "common/HostLoad.h"

#include <algorithm>
#include <cstdio>
#include <sched.h>

namespace hccl::rt {
namespace {

/// The first line of a small sysfs file; empty if it cannot be read or
/// does not end within 4 KiB (a long cpu list cut short would miscount).
std::string readLine(const std::string &path) {
  FILE *f = std::fopen(path.c_str(), "re");
  if (!f)
    return {};
  std::string s(4096, '\0');
  size_t got = std::fread(s.data(), 1, s.size(), f);
  std::fclose(f);
  size_t nl = s.find('\n');
  if (nl == std::string::npos || nl >= got)
    return {};
  s.resize(nl);
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

LastLevelCache lastLevelCacheIn(const std::string &cpuDir) {
  LastLevelCache best;
  long bestLevel = 2; // L3 and up only
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
    if (level <= bestLevel || li != levelText.size() || size == 0)
      continue;
    bestLevel = level;
    best.bytes = size;
    best.sharing = cpuListCount(readLine(dir + "/shared_cpu_list"));
  }
  return best;
}

size_t cacheSharePerRank(const LastLevelCache &llc, int cpus, int localRanks) {
  if (llc.bytes == 0 || localRanks < 1)
    return 0;
  // Instances these CPUs reach (an unreadable share: one for them all).
  int reach = llc.sharing > 0 && cpus > llc.sharing
                  ? (cpus + llc.sharing - 1) / llc.sharing
                  : 1;
  size_t used = static_cast<size_t>(std::min(reach, localRanks));
  size_t total = 0;
  if (__builtin_mul_overflow(llc.bytes, used, &total))
    return 0;
  return total / static_cast<size_t>(localRanks);
}

size_t cacheSharePerRank(int localRanks) {
  static const LastLevelCache llc = lastLevelCacheIn("/sys/devices/system/cpu");
  cpu_set_t set;
  CPU_ZERO(&set);
  int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                         : hostCores();
  return cacheSharePerRank(llc, cpus, localRanks);
}

} // namespace hccl::rt
