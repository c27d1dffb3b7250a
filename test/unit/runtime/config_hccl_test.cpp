//===- config_hccl_test.cpp - Values HCCL accepts do not stop init --------===//
//
// HCCL_ALGO with a super-pod level, NHR_V1, AHC and sections for operations
// the runtime builds from others; HCCL_RDMA_TIMEOUT up to HCCL's maximum;
// HCCL_EXEC_TIMEOUT with decimals. Each is accepted, mapped where an
// equivalent exists, and said to have no effect where none does.
//
//===----------------------------------------------------------------------===//
#include "config_env.h"

#include <gtest/gtest.h>

using hccl::sched::Algorithm;
using hccl::sched::Collective;

namespace {

bool anyWarning(const hccl::rt::Config &c, const std::string &fragment) {
  for (const auto &w : c.warnings)
    if (w.find(fragment) != std::string::npos)
      return true;
  return false;
}

TEST(ConfigHcclValues, AlgoLevel2IsDroppedWithAWarning) {
  auto r = cfgtest::load({{"HCCL_ALGO", "level0:NA;level1:H-D_R;level2:NHR"}});
  ASSERT_TRUE(r.isOk()) << r.message();
  ASSERT_TRUE(r->algoSpec.has_value());
  EXPECT_EQ(r->algo, "level0:NA;level1:H-D_R");
  EXPECT_TRUE(anyWarning(*r, "'level2:NHR' has no effect")) << r->warnings[0];
}

TEST(ConfigHcclValues, NhrV1RunsAsNhr) {
  auto v1 = cfgtest::load({{"HCCL_ALGO", "level0:NA;level1:NHR_V1"}});
  auto nhr = cfgtest::load({{"HCCL_ALGO", "level0:NA;level1:NHR"}});
  ASSERT_TRUE(v1.isOk()) << v1.message();
  ASSERT_TRUE(nhr.isOk()) << nhr.message();
  EXPECT_EQ(
      v1->algoSpec->forCollective(Collective::AllReduce).level1.algorithm,
      nhr->algoSpec->forCollective(Collective::AllReduce).level1.algorithm);
  EXPECT_TRUE(anyWarning(*v1, "NHR_V1 runs as NHR"));
}

TEST(ConfigHcclValues, AhcLeavesTheLevelAutomatic) {
  auto r = cfgtest::load({{"HCCL_ALGO", "level0:NA;level1:AHC"}});
  ASSERT_TRUE(r.isOk()) << r.message();
  EXPECT_EQ(r->algo, "level0:NA");
  EXPECT_TRUE(anyWarning(*r, "AHC is not available here"));
  auto only = cfgtest::load({{"HCCL_ALGO", "level1:AHC_BROKE"}});
  ASSERT_TRUE(only.isOk()) << only.message();
  EXPECT_TRUE(only->algo.empty()); // nothing left: automatic
  EXPECT_FALSE(only->algoSpec.has_value());
}

TEST(ConfigHcclValues, SectionsForOtherOperationsAreIgnored) {
  auto r = cfgtest::load(
      {{"HCCL_ALGO", "scatter=level0:NA;level1:ring/allreduce=level0:NA;"
                     "level1:ring/alltoallvc=level0:NA;level1:pairwise"}});
  ASSERT_TRUE(r.isOk()) << r.message();
  EXPECT_EQ(r->algo, "allreduce=level0:NA;level1:ring");
  EXPECT_TRUE(r->algoSpec->forCollective(Collective::AllReduce).set);
  EXPECT_TRUE(anyWarning(*r, "section 'scatter=level0:NA;level1:ring'"));
  EXPECT_TRUE(anyWarning(*r, "alltoallvc runs as other collectives"));
}

TEST(ConfigHcclValues, WhatHcclRejectsStaysAnError) {
  for (const char *bad : {"level7:nonsense", "level1:bogus", "level0"}) {
    auto r = cfgtest::load({{"HCCL_ALGO", bad}});
    EXPECT_FALSE(r.isOk()) << bad;
    EXPECT_EQ(r.message().rfind(std::string("HCCL_ALGO=") + bad + ": ", 0), 0u)
        << r.message();
  }
}

TEST(ConfigHcclValues, RdmaTimeoutUpToHcclsMaximum) {
  auto r = cfgtest::load({{"HCCL_RDMA_TIMEOUT", "24"}});
  ASSERT_TRUE(r.isOk()) << r.message();
  EXPECT_EQ(r->rdmaTimeout, 24u);
  EXPECT_FALSE(cfgtest::load({{"HCCL_RDMA_TIMEOUT", "25"}}).isOk());
}

TEST(ConfigHcclValues, ExecTimeoutWithDecimals) {
  auto r = cfgtest::load({{"HCCL_EXEC_TIMEOUT", "0.05"}});
  ASSERT_TRUE(r.isOk()) << r.message();
  EXPECT_EQ(r->execTimeoutSec, 1u); // whole seconds here, rounded up
  EXPECT_TRUE(anyWarning(*r, "counts whole seconds; using 1 s"));
  auto whole = cfgtest::load({{"HCCL_EXEC_TIMEOUT", "1800.00"}});
  ASSERT_TRUE(whole.isOk());
  EXPECT_EQ(whole->execTimeoutSec, 1800u);
  EXPECT_TRUE(whole->warnings.empty());
  for (const char *bad : {"1.", ".5", "1.2.3", "2147483647.5", "1,5"})
    EXPECT_FALSE(cfgtest::load({{"HCCL_EXEC_TIMEOUT", bad}}).isOk()) << bad;
}

} // namespace
