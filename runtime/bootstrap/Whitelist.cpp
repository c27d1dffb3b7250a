//===- Whitelist.cpp - HCCL's communication whitelist ---------------------===//
#include "bootstrap/Whitelist.h"
#include "bootstrap/JobSecret.h"

#include <arpa/inet.h>
#include <cstring>
#include <netinet/in.h>
#include <nlohmann/json.hpp>

namespace hccl::rt {

namespace {
/// The address as bytes; IPv4-mapped IPv6 addresses as IPv4.
std::string addrBytes(const SockAddr &a) {
  if (a.ss.ss_family == AF_INET) {
    const auto *in = reinterpret_cast<const sockaddr_in *>(&a.ss);
    return std::string(reinterpret_cast<const char *>(&in->sin_addr), 4);
  }
  const auto *in6 = reinterpret_cast<const sockaddr_in6 *>(&a.ss);
  if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
    return std::string(reinterpret_cast<const char *>(&in6->sin6_addr) + 12, 4);
  return std::string(reinterpret_cast<const char *>(&in6->sin6_addr), 16);
}
} // namespace

StatusOr<std::shared_ptr<const Whitelist>> Whitelist::load(const Config &cfg) {
  if (cfg.whitelistDisable)
    return std::shared_ptr<const Whitelist>();
  // The whitelist decides who may connect: a file others can change would
  // hand that decision to them.
  auto text = readPrivateFile(cfg.whitelistFile, kMaxWhitelistBytes, false);
  if (!text)
    return text.status().withContext("HCCL_WHITELIST_FILE");
  return parse(*text, "HCCL_WHITELIST_FILE=" + cfg.whitelistFile);
}

StatusOr<std::shared_ptr<const Whitelist>>
Whitelist::parse(const std::string &text, const std::string &where) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded())
    return errPara(where + ": not valid JSON");
  if (!j.is_object())
    return errPara(where + ": expected an object with a \"host_ip\" list");
  auto it = j.find("host_ip");
  if (it == j.end() || !it->is_array())
    return errPara(where + ": \"host_ip\" must be a list of IP addresses");
  auto wl = std::make_shared<Whitelist>();
  for (size_t i = 0; i < it->size(); ++i) {
    const auto &e = (*it)[i];
    std::string at = where + ": host_ip[" + std::to_string(i) + "]";
    if (!e.is_string())
      return errPara(at + " is not a string");
    auto ip = e.get<std::string>();
    auto a = SockAddr::parse(ip, 0);
    if (!a)
      return errPara(at + " '" + ip + "' is not an IP address");
    wl->addrs_.insert(addrBytes(*a));
  }
  auto dev = j.find("device_ip");
  if (dev != j.end() && !dev->is_array())
    return errPara(where + ": \"device_ip\" must be a list");
  return std::shared_ptr<const Whitelist>(std::move(wl));
}

bool Whitelist::allows(const SockAddr &peer) const {
  return addrs_.count(addrBytes(peer)) != 0;
}

} // namespace hccl::rt
