//===- ReadFile.cpp - Small files named by the environment ----------------===//
#include "config/ReadFile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
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

} // namespace hccl::rt
