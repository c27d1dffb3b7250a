//===- launcher_test.cpp - hccl-test's local launcher ---------------------===//
#include "Launcher.h"

#include <gtest/gtest.h>
#include <hccl/hccl_host.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

// MASTER_PORT comes from the kernel's ephemeral range, which the ranks'
// listeners (HCCL_IF_BASE_PORT + 1 ..) may overlap: a port there could be
// taken by a rank's listener before rank 0 binds it. With the listeners'
// span at the range's start it covers a part of the range (a seventh of
// Linux's default 32768-60999), so 300 ports drawn without the exclusion
// would all miss it with a probability of about 1e-20.
TEST(Launcher, MasterPortAvoidsTheListenersPorts) {
  long lo = 0, hi = 0;
  FILE *f = std::fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
  bool read = f && std::fscanf(f, "%ld %ld", &lo, &hi) == 2;
  if (f)
    std::fclose(f);
  if (!read || lo < 1025 || lo > 65521 ||
      hi - lo < 2 * HCCL_HOST_LISTENER_PORTS)
    GTEST_SKIP() << "the ephemeral port range (" << lo << "-" << hi
                 << ") is unreadable or too narrow to hold the listeners' "
                 << HCCL_HOST_LISTENER_PORTS << " ports and others";
  const char *old = std::getenv("HCCL_IF_BASE_PORT");
  std::string saved = old ? old : "";
  ::setenv("HCCL_IF_BASE_PORT", std::to_string(lo - 1).c_str(), 1);
  for (int i = 0; i < 300; ++i) {
    int port = hccltest::freeMasterPort();
    ASSERT_GT(port, 0);
    EXPECT_TRUE(port < lo || port > lo + HCCL_HOST_LISTENER_PORTS - 1) << port;
  }
  if (old)
    ::setenv("HCCL_IF_BASE_PORT", saved.c_str(), 1);
  else
    ::unsetenv("HCCL_IF_BASE_PORT");
}

} // namespace
