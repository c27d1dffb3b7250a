//===- verbs_env.h - Running ranks over the fake libibverbs -----*- C++ -*-===//
//
// The verbs tests point HCCL_IB_LIB at test/fakeverbs' library. Each test
// gets a fabric of its own (FAKEVERBS_FABRIC), whose directory in /dev/shm
// the fixture removes afterwards, so tests never see each other's queue
// pairs (even after a killed rank).
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TEST_RUNTIME_VERBS_ENV_H
#define HCCL_TEST_RUNTIME_VERBS_ENV_H

#include "core/Communicator.h"
#include "rt_harness.h"
#include "transport/verbs/VerbsPair.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

namespace rtest {

class VerbsFixture : public testing::Test {
protected:
  void SetUp() override {
    const testing::TestInfo *t =
        testing::UnitTest::GetInstance()->current_test_info();
    fabric_ =
        "vt" + std::to_string(getpid()) + "-" + std::to_string(++counter());
    (void)t;
  }
  void TearDown() override {
    ::shm_unlink(("/hccl-fakeverbs-" + fabric_).c_str());
  }
  static int &counter() {
    static int n = 0;
    return n;
  }
  /// Environment for ranks on the fake: library, fabric, a generous exec
  /// timeout (a failure by timeout is then told apart by its code).
  RunOptions verbsOpts(const std::string &transport = "verbs",
                       int timeoutSec = 120) const {
    RunOptions o;
    o.timeoutSec = timeoutSec;
    o.env = {{"HCCL_IB_LIB", HCCL_FAKEVERBS_LIB},
             {"FAKEVERBS_FABRIC", fabric_},
             {"HCCL_EXEC_TIMEOUT", "60"},
             {"HCCL_CONNECT_TIMEOUT_MS", "30000"}};
    if (!transport.empty())
      o.env.push_back({"HCCL_TRANSPORT", transport});
    return o;
  }
  std::string fabric_;
};

inline hccl::rt::Communicator *commOf(HcclComm c) {
  return static_cast<hccl::rt::Communicator *>(c);
}

/// The verbs pair to `peer`, or nullptr when the link is something else.
inline const hccl::rt::verbs::VerbsPair *verbsPair(HcclComm c, int peer) {
  return dynamic_cast<const hccl::rt::verbs::VerbsPair *>(
      commOf(c)->pairFor(peer));
}

/// "" when every link of this rank is `want` ("verbs", "shm", ...) or as
/// `expect(peer)` says.
template <typename F>
std::string checkLinks(HcclComm c, int rank, int p, F expect) {
  for (int q = 0; q < p; ++q) {
    if (q == rank)
      continue;
    std::string want = expect(q);
    std::string got = commOf(c)->linkKind(q);
    if (got != want)
      return "rank " + std::to_string(rank) + ": link to rank " +
             std::to_string(q) + " is " + got + ", expected " + want;
  }
  return "";
}

inline bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

} // namespace rtest

#endif // HCCL_TEST_RUNTIME_VERBS_ENV_H
