//===- rt_smoke_test.cpp - First end-to-end runs of the runtime -----------===//
#include "rt_harness.h"

#include <gtest/gtest.h>
#include <vector>

using namespace rtest;

static std::string allReduceOnce(RankCtx &c) {
  HcclComm comm;
  RT_OK(c.initComm(&comm));
  std::vector<float> in(1000), out(1000, -1);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = static_cast<float>(c.rank + 1) * static_cast<float>(i % 7);
  RT_OK(HcclAllReduce(in.data(), out.data(), in.size(), HCCL_DATA_TYPE_FP32,
                      HCCL_REDUCE_SUM, comm, nullptr));
  float ranksum = static_cast<float>(c.size * (c.size + 1) / 2);
  for (size_t i = 0; i < out.size(); ++i)
    RT_CHECK(out[i] == ranksum * static_cast<float>(i % 7),
             "element " + std::to_string(i) + " = " + std::to_string(out[i]));
  RT_OK(HcclCommDestroy(comm));
  return "";
}

TEST(RuntimeSmoke, AllReduceShm) {
  for (int p : {1, 2, 3, 4})
    EXPECT_EQ(runRanks(p, allReduceOnce, {30}), "") << "p=" << p;
}

TEST(RuntimeSmoke, AllReduceTcp) {
  RunOptions o;
  o.timeoutSec = 30;
  o.env = {{"HCCL_TRANSPORT", "tcp"}};
  for (int p : {2, 3})
    EXPECT_EQ(runRanks(p, allReduceOnce, o), "") << "p=" << p;
}
