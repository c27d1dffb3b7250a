//===- Whitelist.h - HCCL's communication whitelist ------------*- C++ -*-===//
//
// With HCCL_WHITELIST_DISABLE=0, a listener accepts connections only from the
// addresses of HCCL_WHITELIST_FILE, HCCL's JSON format:
//   { "host_ip": ["10.0.0.1", "10.0.0.2"], "device_ip": [] }
// ("device_ip" is reserved by HCCL and ignored here, as there). Others are
// closed at accept, before a byte is read, and logged.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_BOOTSTRAP_WHITELIST_H
#define HCCL_RUNTIME_BOOTSTRAP_WHITELIST_H

#include "common/Socket.h"
#include "config/Config.h"

#include <memory>
#include <set>
#include <string>

namespace hccl::rt {

class Whitelist {
public:
  /// nullptr when the whitelist is disabled.
  static StatusOr<std::shared_ptr<const Whitelist>> load(const Config &cfg);
  /// Parses the file's text; `where` names it in errors.
  static StatusOr<std::shared_ptr<const Whitelist>>
  parse(const std::string &text, const std::string &where);

  bool allows(const SockAddr &peer) const;
  size_t size() const { return addrs_.size(); }

private:
  std::set<std::string> addrs_; ///< binary addresses (4 or 16 bytes)
};

constexpr size_t kMaxWhitelistBytes = 1 << 20;

} // namespace hccl::rt

#endif // HCCL_RUNTIME_BOOTSTRAP_WHITELIST_H
