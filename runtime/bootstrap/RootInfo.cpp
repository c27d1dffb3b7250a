//===- RootInfo.cpp - The opaque HcclRootInfo blob ------------------------===//
#include "bootstrap/RootInfo.h"
#include "common/Socket.h"

#include <cstring>

namespace hccl::rt {

namespace {
constexpr char kMagic[8] = {'H', 'C', 'C', 'L', 'R', 'O', 'O', 'T'};
constexpr uint32_t kVersion = 2; // 2: with the key

struct Wire {
  char magic[8];
  uint32_t version;
  uint16_t port;
  uint16_t reserved;
  uint8_t uid[16];
  char ip[64];
  uint8_t key[32];
  uint64_t checksum;
};
} // namespace

uint64_t fnv1a(const void *data, size_t len, uint64_t h) {
  const auto *p = static_cast<const uint8_t *>(data);
  for (size_t i = 0; i < len; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

Uid Uid::random() {
  Uid u;
  randomBytes(u.b.data(), u.b.size());
  return u;
}

Uid Uid::derive(const std::string &label, uint64_t a, uint64_t b2) const {
  Uid out;
  uint64_t h1 = fnv1a(b.data(), b.size());
  h1 = fnv1a(label.data(), label.size(), h1);
  h1 = fnv1a(&a, sizeof(a), h1);
  h1 = fnv1a(&b2, sizeof(b2), h1);
  uint64_t h2 = fnv1a(&h1, sizeof(h1), h1 ^ 0x9e3779b97f4a7c15ull);
  std::memcpy(out.b.data(), &h1, 8);
  std::memcpy(out.b.data() + 8, &h2, 8);
  return out;
}

std::string Uid::hex() const {
  static const char *d = "0123456789abcdef";
  std::string s;
  for (uint8_t x : b) {
    s += d[x >> 4];
    s += d[x & 15];
  }
  return s;
}

void encodeRootInfo(const RootInfoData &d, char *out) {
  std::memset(out, 0, HCCL_ROOT_INFO_BYTES);
  Wire w{};
  std::memcpy(w.magic, kMagic, sizeof(kMagic));
  w.version = kVersion;
  w.port = d.port;
  std::memcpy(w.uid, d.uid.b.data(), 16);
  std::strncpy(w.ip, d.ip.c_str(), sizeof(w.ip) - 1);
  std::memcpy(w.key, d.key.b.data(), sizeof(w.key));
  w.checksum = fnv1a(&w, offsetof(Wire, checksum));
  std::memcpy(out, &w, sizeof(w));
}

StatusOr<RootInfoData> decodeRootInfo(const char *blob) {
  Wire w;
  std::memcpy(&w, blob, sizeof(w));
  if (std::memcmp(w.magic, kMagic, sizeof(kMagic)) != 0)
    return errPara(
        "root info is not valid (bad magic): pass the blob HcclGetRootInfo "
        "filled on the root rank");
  if (w.version != kVersion)
    return errPara("root info has version " + std::to_string(w.version) +
                   ", expected " + std::to_string(kVersion));
  if (w.checksum != fnv1a(&w, offsetof(Wire, checksum)))
    return errPara("root info is corrupt (checksum mismatch)");
  if (w.ip[sizeof(w.ip) - 1] != '\0')
    return errPara("root info is corrupt (address not terminated)");
  RootInfoData d;
  std::memcpy(d.uid.b.data(), w.uid, 16);
  d.ip = w.ip;
  std::memcpy(d.key.b.data(), w.key, sizeof(w.key));
  d.port = w.port;
  if (!SockAddr::parse(d.ip, d.port))
    return errPara("root info holds an invalid address '" + d.ip + "'");
  return d;
}

} // namespace hccl::rt
