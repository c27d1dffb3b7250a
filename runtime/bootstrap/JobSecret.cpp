//===- JobSecret.cpp - The secret that admits a rank to a job -------------===//
#include "bootstrap/JobSecret.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <sys/stat.h>
#include <unistd.h>

namespace hccl::rt {

StatusOr<std::string> readPrivateFile(const std::string &path, size_t maxBytes,
                                      bool requirePrivate) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return Status(HCCL_E_OPEN_FILE_FAILURE,
                  "cannot open '" + path + "': " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st{};
  if (::fstat(fd, &st) != 0)
    return Status(HCCL_E_OPEN_FILE_FAILURE,
                  "cannot stat '" + path + "': " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return errPara("'" + path + "' is not a regular file");
  if (static_cast<uint64_t>(st.st_size) > maxBytes)
    return errPara("'" + path + "' has " + std::to_string(st.st_size) +
                   " bytes, more than the " + std::to_string(maxBytes) +
                   " allowed");
  if (requirePrivate) {
    if (st.st_uid != ::geteuid())
      return errPara("'" + path + "' belongs to uid " +
                     std::to_string(st.st_uid) + ", not to this user (uid " +
                     std::to_string(::geteuid()) + "): refusing to trust it");
    if (st.st_mode & 077) {
      char mode[8];
      std::snprintf(mode, sizeof(mode), "%04o",
                    static_cast<unsigned>(st.st_mode & 07777));
      return errPara("'" + path + "' has mode " + mode +
                     ": other users may read or change it (chmod 600)");
    }
  }
  std::string out(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::read(fd, out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return Status(HCCL_E_OPEN_FILE_FAILURE,
                    "cannot read '" + path + "': " + std::strerror(errno));
    if (n == 0)
      break; // shrank meanwhile
    got += static_cast<size_t>(n);
  }
  out.resize(got);
  return out;
}

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
