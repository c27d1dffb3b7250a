//===- root_info_fuzzer.cpp - Root info blobs into decodeRootInfo ---------===//
//
// The blob reaches a rank from the job (a file, the launcher, the user's own
// channel). Each input is decoded twice: as given (zero-padded to the blob's
// size), and with magic, version and checksum made valid, so that the checks
// behind the checksum (address text, port) see fuzzed data too.
//
//===----------------------------------------------------------------------===//
#include "bootstrap/RootInfo.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

using namespace hccl::rt;

namespace {
// Mirrors RootInfo.cpp's layout; checked against encodeRootInfo below.
constexpr size_t kVersionAt = 8, kChecksumAt = 128;

void makeValid(char *blob) {
  std::memcpy(blob, "HCCLROOT", 8);
  uint32_t version = 2;
  std::memcpy(blob + kVersionAt, &version, 4);
  uint64_t sum = fnv1a(blob, kChecksumAt);
  std::memcpy(blob + kChecksumAt, &sum, 8);
}

void checkLayout() {
  RootInfoData d;
  d.ip = "10.0.0.1";
  d.port = 4242;
  char a[HCCL_ROOT_INFO_BYTES], b[HCCL_ROOT_INFO_BYTES];
  encodeRootInfo(d, a);
  std::memcpy(b, a, sizeof(a));
  makeValid(b);
  if (std::memcmp(a, b, sizeof(a)) != 0)
    abort(); // the blob's layout changed: update kVersionAt / kChecksumAt
}

void decode(const char *blob) {
  auto r = decodeRootInfo(blob);
  if (!r) {
    if (r.status().isOk() || r.status().message().empty())
      abort();
    return;
  }
  // What decodes must encode to a blob that decodes the same.
  char again[HCCL_ROOT_INFO_BYTES];
  encodeRootInfo(*r, again);
  auto back = decodeRootInfo(again);
  if (!back || back->ip != r->ip || back->port != r->port ||
      back->uid != r->uid)
    abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool checked = (checkLayout(), true);
  (void)checked;
  char blob[HCCL_ROOT_INFO_BYTES] = {};
  std::memcpy(blob, data, size < sizeof(blob) ? size : sizeof(blob));
  decode(blob);
  makeValid(blob);
  decode(blob);
  return 0;
}
