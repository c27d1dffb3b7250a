//===- JobSecret.cpp - The secret that admits a rank to a job -------------===//
#include "bootstrap/JobSecret.h"

#include <cstdio>
#include <mutex>

namespace hccl::rt {

StatusOr<JobKey>
readJobKey(const std::function<const char *(const char *)> &getenv) {
  const char *text = getenv("HCCL_JOB_SECRET");
  const char *file = getenv("HCCL_JOB_SECRET_FILE");
  bool hasText = text && *text, hasFile = file && *file;
  if (hasText && hasFile)
    return errPara("HCCL_JOB_SECRET and HCCL_JOB_SECRET_FILE are both set: "
                   "set only one");
  std::string secret;
  std::string var;
  if (hasText) {
    secret = text;
    var = "HCCL_JOB_SECRET";
  } else if (hasFile) {
    auto body = readPrivateFile(file, kMaxSecretFileBytes, true);
    if (!body)
      return body.status().withContext("HCCL_JOB_SECRET_FILE");
    secret = body->substr(0, body->find('\n'));
    if (!secret.empty() && secret.back() == '\r')
      secret.pop_back();
    var = std::string("HCCL_JOB_SECRET_FILE=") + file;
  } else {
    return JobKey{publicKey(), false};
  }
  if (secret.size() < kMinSecretChars)
    return errPara(var + ": the secret has " + std::to_string(secret.size()) +
                   " characters; use at least " +
                   std::to_string(kMinSecretChars) +
                   " (e.g. the output of `openssl rand -hex 32`)");
  return JobKey{keyFromSecret(secret), true};
}

void warnNoSecretOnce(const std::string &what) {
  static std::once_flag once;
  std::call_once(once, [&] {
    std::fprintf(
        stderr,
        "HCCL: WARNING: this job has no secret (HCCL_JOB_SECRET or "
        "HCCL_JOB_SECRET_FILE is not set): any process that can reach %s can "
        "join it as a rank and change its results. Give every rank the same "
        "secret, e.g. HCCL_JOB_SECRET=$(openssl rand -hex 32).\n",
        what.c_str());
  });
}

} // namespace hccl::rt
