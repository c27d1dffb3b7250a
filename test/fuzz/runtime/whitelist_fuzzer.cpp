//===- whitelist_fuzzer.cpp - HCCL_WHITELIST_FILE into Whitelist::parse ---===//
//
// The whitelist decides who may connect: its text parses or is refused with
// an error, and a parsed list answers for any address.
//
//===----------------------------------------------------------------------===//
#include "bootstrap/Whitelist.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace hccl::rt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  auto wl = Whitelist::parse(text, "fuzz");
  if (!wl) {
    if (wl.status().isOk() || wl.status().message().empty())
      abort();
    return 0;
  }
  if (!*wl)
    abort(); // parse gives a list; only a disabled whitelist is null
  for (const char *ip : {"127.0.0.1", "::1", "::ffff:10.0.0.1", "10.0.0.1"}) {
    auto a = SockAddr::parse(ip, 1);
    if (a)
      (void)(*wl)->allows(*a);
  }
  return 0;
}
