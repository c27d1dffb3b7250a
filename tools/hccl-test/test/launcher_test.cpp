//===- launcher_test.cpp - hccl-test's local launcher ---------------------===//
#include "Launcher.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

// MASTER_PORT comes from the kernel's ephemeral range, which the ranks'
// listeners (HCCL_IF_BASE_PORT + 1 ..) overlap: a port there could be taken
// by a rank's listener before rank 0 binds it. With the base at the range's
// start the span covers about a seventh of it, so 300 ports drawn without
// the exclusion would all miss it with a probability of about 1e-20.
TEST(Launcher, MasterPortAvoidsTheListenersPorts) {
  const char *old = std::getenv("HCCL_IF_BASE_PORT");
  std::string saved = old ? old : "";
  ::setenv("HCCL_IF_BASE_PORT", "32767", 1);
  for (int i = 0; i < 300; ++i) {
    int port = hccltest::freeMasterPort();
    ASSERT_GT(port, 0);
    EXPECT_TRUE(port < 32768 || port > 32768 + 4094) << port;
  }
  if (old)
    ::setenv("HCCL_IF_BASE_PORT", saved.c_str(), 1);
  else
    ::unsetenv("HCCL_IF_BASE_PORT");
}

} // namespace
