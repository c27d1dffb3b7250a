//===- ReadFile.h - Small files named by the environment --------*- C++ -*-===//
//
// Files that HCCL_* variables name (a job secret, a whitelist, an algorithm
// table) are read with one bounded, non-blocking read: a path an attacker
// or a typo points at a FIFO or a device must not hang init.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_CONFIG_READFILE_H
#define HCCL_RUNTIME_CONFIG_READFILE_H

#include "common/Status.h"

#include <cstddef>
#include <string>

namespace hccl::rt {

/// Reads a regular file of at most `maxBytes`; with `requirePrivate` it must
/// also be private to this user (owner the effective uid, no group/other
/// permission bits). Never blocks on a FIFO or device: opened non-blocking
/// and checked with fstat first.
StatusOr<std::string> readPrivateFile(const std::string &path, size_t maxBytes,
                                      bool requirePrivate);

} // namespace hccl::rt

#endif // HCCL_RUNTIME_CONFIG_READFILE_H
