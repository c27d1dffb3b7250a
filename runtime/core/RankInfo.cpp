//===- RankInfo.cpp - What each rank tells the others at init -------------===//
#include "core/RankInfo.h"

#include "hccl-mlir/schedule/JsonRead.h"

#include <cstdlib>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace hccl::rt {

using nlohmann::json;

std::string RankInfo::encode() const {
  json j = {{"rank", rank},     {"host", hostId},   {"hostname", hostname},
            {"pid", pid},       {"ip", ip},         {"port", port},
            {"segFd", segFd},   {"nSlots", nSlots}, {"slotBytes", slotBytes},
            {"server", server}, {"cores", cores},   {"settings", settings}};
  return j.dump();
}

// A description comes from another process over the bootstrap: every
// value is type- and range-checked (nlohmann's get<int>() on 1e86 or on
// 2^32 + 1 is undefined or wraps: found by test/fuzz/runtime's rendezvous
// target).
StatusOr<RankInfo> RankInfo::decode(const std::string &s) {
  namespace jr = sched::jsonread;
  const std::string top; // paths read "port: ...", as in the other files
  jr::Json j;
  RankInfo r;
  int64_t rank = 0, pid = 0, port = 0, segFd = 0, nSlots = 0, slotBytes = 0,
          cores = 0;
  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  constexpr int64_t kU32Max = std::numeric_limits<uint32_t>::max();
  constexpr int64_t kMaxCores = 1 << 20;
  sched::Status parsed = jr::parseObject(s, top, j);
  if (!parsed)
    return errInternal("malformed rank description in the rendezvous: " +
                       parsed.message());
  for (sched::Status st :
       {jr::intField(j, "rank", top, 0, kIntMax, rank, true),
        jr::stringField(j, "host", top, r.hostId, true),
        jr::stringField(j, "hostname", top, r.hostname, true),
        jr::intField(j, "pid", top, 0, kIntMax, pid, true),
        jr::stringField(j, "ip", top, r.ip, true),
        jr::intField(j, "port", top, 0, 65535, port, true),
        jr::intField(j, "segFd", top, -1, kIntMax, segFd, true),
        jr::intField(j, "nSlots", top, 0, kU32Max, nSlots, true),
        jr::intField(j, "slotBytes", top, 0, kU32Max, slotBytes, true),
        jr::stringField(j, "server", top, r.server, true),
        jr::intField(j, "cores", top, 1, kMaxCores, cores, true),
        jr::stringField(j, "settings", top, r.settings, true)}) {
    if (!st)
      return errInternal("malformed rank description in the rendezvous: " +
                         st.message());
  }
  r.rank = static_cast<int>(rank);
  r.pid = static_cast<int>(pid);
  r.port = static_cast<uint16_t>(port);
  r.segFd = static_cast<int>(segFd);
  r.nSlots = static_cast<uint32_t>(nSlots);
  r.slotBytes = static_cast<uint32_t>(slotBytes);
  r.cores = static_cast<int>(cores);
  return r;
}

static std::string nsInode(const char *path) {
  struct stat st;
  if (::stat(path, &st) != 0)
    return "?";
  return std::to_string(st.st_dev) + "." + std::to_string(st.st_ino);
}

std::string localHostId() {
  std::string boot;
  std::ifstream f("/proc/sys/kernel/random/boot_id");
  std::getline(f, boot);
  if (boot.empty())
    boot = localHostname();
  std::string id = boot + "/net" + nsInode("/proc/self/ns/net") + "/pid" +
                   nsInode("/proc/self/ns/pid");
  // Tests: processes of one machine that should count as different hosts
  // (servers) say so; they then share no memory and talk verbs or TCP.
  const char *fake = ::getenv("HCCL_FAKE_HOST_ID");
  if (fake && *fake)
    id += "/fake=" + std::string(fake);
  return id;
}

std::string localHostname() {
  char buf[256] = {0};
  ::gethostname(buf, sizeof(buf) - 1);
  return buf;
}

Status checkSettingsAgree(const std::vector<RankInfo> &infos) {
  if (infos.empty())
    return Status::ok();
  for (const auto &r : infos) {
    if (r.settings == infos[0].settings)
      continue;
    // Settings are "NAME=value;..." lists; name the first difference.
    auto split = [](const std::string &s) {
      std::vector<std::string> v;
      std::stringstream ss(s);
      std::string item;
      while (std::getline(ss, item, ';'))
        v.push_back(item);
      return v;
    };
    auto a = split(infos[0].settings), b = split(r.settings);
    for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
      std::string x = i < a.size() ? a[i] : "", y = i < b.size() ? b[i] : "";
      if (x != y)
        return errPara("ranks disagree on their settings: rank 0 has " + x +
                       " but rank " + std::to_string(r.rank) + " has " + y +
                       " (every rank must use the same value)");
    }
  }
  return Status::ok();
}

} // namespace hccl::rt
