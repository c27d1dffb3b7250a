//===- RankInfo.cpp - What each rank tells the others at init -------------===//
#include "core/RankInfo.h"

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace hccl::rt {

using nlohmann::json;

std::string RankInfo::encode() const {
  json j = {{"rank", rank},
            {"host", hostId},
            {"hostname", hostname},
            {"pid", pid},
            {"ip", ip},
            {"port", port},
            {"segFd", segFd},
            {"nSlots", nSlots},
            {"slotBytes", slotBytes},
            {"server", server},
            {"settings", settings}};
  return j.dump();
}

StatusOr<RankInfo> RankInfo::decode(const std::string &s) {
  json j = json::parse(s, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return errInternal("malformed rank description in the rendezvous");
  RankInfo r;
  try {
    r.rank = j.at("rank").get<int>();
    r.hostId = j.at("host").get<std::string>();
    r.hostname = j.at("hostname").get<std::string>();
    r.pid = j.at("pid").get<int>();
    r.ip = j.at("ip").get<std::string>();
    r.port = j.at("port").get<uint16_t>();
    r.segFd = j.at("segFd").get<int>();
    r.nSlots = j.at("nSlots").get<uint32_t>();
    r.slotBytes = j.at("slotBytes").get<uint32_t>();
    r.server = j.at("server").get<std::string>();
    r.settings = j.at("settings").get<std::string>();
  } catch (const std::exception &e) {
    return errInternal(std::string("malformed rank description: ") + e.what());
  }
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
