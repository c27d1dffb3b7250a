//===- JobSecret.h - The secret that admits a rank to a job -----*- C++ -*-===//
//
// Launcher and rank-table jobs have no root info blob to carry a random key,
// so the key comes from a secret every rank is given:
//   HCCL_JOB_SECRET=<text, >= 16 characters>   or
//   HCCL_JOB_SECRET_FILE=<path>  (a regular file owned by this user, mode
//                                 0600 or stricter; its first line)
// Without either, the job uses a public key: it still works, but anyone who
// reaches rank 0's port can join it, which is said once, loudly, on stderr.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_BOOTSTRAP_JOBSECRET_H
#define HCCL_RUNTIME_BOOTSTRAP_JOBSECRET_H

#include "bootstrap/Auth.h"
#include "common/Status.h"
#include "config/ReadFile.h"

#include <functional>
#include <string>

namespace hccl::rt {

struct JobKey {
  Key key;
  bool secret = false; ///< false: the public key (no secret was given)
};

constexpr size_t kMinSecretChars = 16;
constexpr size_t kMaxSecretFileBytes = 4096;

/// Reads HCCL_JOB_SECRET / HCCL_JOB_SECRET_FILE. Errors name the variable.
StatusOr<JobKey>
readJobKey(const std::function<const char *(const char *)> &getenv);

/// Prints, once per process, that `what` (e.g. "MASTER_ADDR:MASTER_PORT
/// 10.0.0.1:29500") admits anyone who reaches it.
void warnNoSecretOnce(const std::string &what);

} // namespace hccl::rt

#endif // HCCL_RUNTIME_BOOTSTRAP_JOBSECRET_H
