//===- Auth.cpp - Keys and message authentication for the bootstrap -------===//
#include "bootstrap/Auth.h"
#include "bootstrap/RootInfo.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <string>

namespace hccl::rt {

bool Key::operator==(const Key &o) const {
  return CRYPTO_memcmp(b.data(), o.b.data(), b.size()) == 0;
}

void randomBytes(void *out, size_t n) {
  if (RAND_bytes(static_cast<unsigned char *>(out), static_cast<int>(n)) != 1) {
    std::fputs("HCCL: fatal: the random number generator failed\n", stderr);
    std::abort();
  }
}

Key randomKey() {
  Key k;
  randomBytes(k.b.data(), k.b.size());
  return k;
}

Mac hmac(const Key &key, std::string_view msg) {
  Mac m{};
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.b.data(), static_cast<int>(key.b.size()),
       reinterpret_cast<const unsigned char *>(msg.data()), msg.size(),
       m.data(), &len);
  return m;
}

bool macEqual(const Mac &a, const Mac &b) {
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

Key deriveKey(const Key &key, std::string_view label, const Uid &uid) {
  std::string msg(label);
  msg.push_back('\0');
  msg.append(reinterpret_cast<const char *>(uid.b.data()), uid.b.size());
  Key out;
  out.b = hmac(key, msg);
  return out;
}

namespace {
Key labelKey(std::string_view label) {
  Key zero;
  Key out;
  out.b = hmac(zero, label);
  return out;
}
} // namespace

Key keyFromSecret(std::string_view secret) {
  Key out;
  out.b = hmac(labelKey("hccl-mlir job secret v1"), secret);
  return out;
}

Key publicKey() { return labelKey("hccl-mlir public key v1 (no secret)"); }

} // namespace hccl::rt
