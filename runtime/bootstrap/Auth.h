//===- Auth.h - Bootstrap keys and message MACs -----------------*- C++ -*-===//
//
// Every connection to a rank's listener proves, before anything it sends is
// used, that it holds the key of the communicator it asks for (HMAC-SHA256
// challenge-response, both ways; runtime/bootstrap/Listener.h). Keys come
// from the root info blob (random), a job secret (HCCL_JOB_SECRET /
// HCCL_JOB_SECRET_FILE) or, without one, a public constant (and a warning).
// The primitives are OpenSSL's: no home-made cryptography.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_BOOTSTRAP_AUTH_H
#define HCCL_RUNTIME_BOOTSTRAP_AUTH_H

#include <array>
#include <cstdint>
#include <string_view>

namespace hccl::rt {

struct Uid;

/// A 256-bit key.
struct Key {
  std::array<uint8_t, 32> b{};
  bool operator==(const Key &o) const;
  bool operator!=(const Key &o) const { return !(*this == o); }
};

using Mac = std::array<uint8_t, 32>;

/// Cryptographically random bytes (OpenSSL's CSPRNG). Aborts the process
/// when the generator fails: a predictable key would be worse than a crash.
void randomBytes(void *out, size_t n);
Key randomKey();

/// HMAC-SHA256 of `msg` under `key`.
Mac hmac(const Key &key, std::string_view msg);
/// Constant-time comparison.
bool macEqual(const Mac &a, const Mac &b);

/// A key for a derived use (a child communicator, one communicator of a
/// job): HMAC(key, label || uid). Everyone who holds `key` can compute it.
Key deriveKey(const Key &key, std::string_view label, const Uid &uid);
/// The key of a job secret given as text.
Key keyFromSecret(std::string_view secret);
/// The key of a job without a secret: a constant anyone can compute.
Key publicKey();

} // namespace hccl::rt

#endif // HCCL_RUNTIME_BOOTSTRAP_AUTH_H
