//===- verbs_faults_test.cpp - The error contract over RoCE ---------------===//
//
// Faults injected in the fake libibverbs (FAKEVERBS_FAULT, set in one rank
// only) while three ranks run all-reduces over verbs. Every rank's call must
// fail with the code that fits (HCCL_E_ROCE_TRANSFER where the adapter
// reported the failure, HCCL_E_REMOTE where a peer's abort brought the
// news), a message with the verbs status string and the peer, and no rank
// may end by HCCL_EXEC_TIMEOUT (60 s here): the failure travels in
// milliseconds. A killed peer, mismatched calls and a silent peer keep the
// runtime's usual contract over verbs too.
//
//===----------------------------------------------------------------------===//
#include "verbs_env.h"

#include <csignal>
#include <vector>

using namespace rtest;

namespace {

constexpr int kCodeSlot = 10; ///< values slot: the first failure's code

/// Runs ring all-reduces (1 MiB) until one fails; returns "" and fills
/// rc/msg with that failure, or an error when none failed.
std::string runUntilFailure(HcclComm comm, int rank, HcclResult &rc,
                            std::string &msg, int maxIterations = 200) {
  const size_t n = (1u << 20) / 4;
  std::vector<float> buf(n);
  for (int it = 0; it < maxIterations; ++it) {
    for (size_t i = 0; i < n; ++i)
      buf[i] = static_cast<float>(rank + 1);
    rc = HcclAllReduce(buf.data(), buf.data(), n, HCCL_DATA_TYPE_FP32,
                       HCCL_REDUCE_SUM, comm, nullptr);
    if (rc != HCCL_SUCCESS) {
      msg = HcclGetLastErrorMessage();
      return "";
    }
  }
  return "no call failed in " + std::to_string(maxIterations) + " iterations";
}

std::string codeName(HcclResult rc) { return HcclGetErrorString(rc); }

struct FaultCase {
  const char *fault;
  /// Verbs status / event strings that may explain the failure; every
  /// rank's message must carry one of them (its own or in the abort).
  std::vector<const char *> texts;
  /// The faulting rank (1) must itself report HCCL_E_ROCE_TRANSFER (when
  /// no peer can notice the fault before it does).
  bool faultyReportsFirst = false;
};

/// Rank 1 gets the fault; everyone fails with a verbs reason, nobody by
/// timeout; at least one rank reports the adapter's error itself.
Body faultBody(const FaultCase *k) {
  return [k](RankCtx &c) -> std::string {
    if (c.rank == 1)
      setenv("FAKEVERBS_FAULT", k->fault, 1);
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    HcclResult rc = HCCL_SUCCESS;
    std::string msg;
    std::string e = runUntilFailure(comm, c.rank, rc, msg);
    if (!e.empty())
      return e;
    c.publish(kCodeSlot, static_cast<uint64_t>(rc) + 1);
    RT_CHECK(rc == HCCL_E_ROCE_TRANSFER || rc == HCCL_E_REMOTE,
             "got " + codeName(rc) + ": " + msg);
    bool found = false;
    for (const char *t : k->texts)
      found = found || contains(msg, t);
    RT_CHECK(found, "no verbs status in: " + msg);
    bool namesPeer = false;
    for (int q = 0; q < c.size; ++q)
      namesPeer = namesPeer ||
                  (q != c.rank && contains(msg, "rank " + std::to_string(q)));
    RT_CHECK(namesPeer, "no peer named in: " + msg);
    if (c.rank == 1 && k->faultyReportsFirst)
      RT_CHECK(rc == HCCL_E_ROCE_TRANSFER, "got " + codeName(rc) + ": " + msg);
    HcclResult async = HCCL_SUCCESS;
    RT_OK(HcclGetCommAsyncError(comm, &async));
    RT_CHECK(async != HCCL_SUCCESS, "communicator not marked broken");
    HcclCommDestroy(comm);
    return "";
  };
}

class VerbsFaults : public VerbsFixture {
protected:
  void run(const FaultCase &k) {
    RunOptions o = verbsOpts("verbs", 90);
    int transferErrors = 0;
    o.after = [&](const Shared &sh) {
      for (int r = 0; r < 3; ++r)
        transferErrors +=
            sh.values[r][kCodeSlot].load() == HCCL_E_ROCE_TRANSFER + 1;
    };
    EXPECT_EQ(runRanks(3, faultBody(&k), o), "");
    EXPECT_GE(transferErrors, 1)
        << "no rank reported the adapter's error itself";
  }
};

} // namespace

TEST_F(VerbsFaults, ErrorCompletion) {
  run({"cqe_error:after=40", {"general error"}, /*faultyReportsFirst=*/true});
}

TEST_F(VerbsFaults, RemoteAccessError) {
  // The faulting rank writes with a corrupted rkey; the receiver's checks
  // reject it (NAK to the writer, an access-error event at the receiver).
  run({"rem_access:after=40",
       {"remote access error", "local access violation work queue error"}});
}

TEST_F(VerbsFaults, QueuePairInErrorState) {
  run({"qp_error:after=40",
       {"local work queue catastrophic error", "Work Request Flushed Error"}});
}

TEST_F(VerbsFaults, AsyncPortError) {
  run({"port_error:after=40", {"port error", "Work Request Flushed Error"}});
}

TEST_F(VerbsFaults, StalledPeerExhaustsRetries) {
  // Rank 1's adapter stops answering. Its peers' writes time out after
  // HCCL_RDMA_TIMEOUT (2^14 x 4.096 us) x (HCCL_RDMA_RETRY_CNT + 1); rank 1
  // itself hears their aborts on the bootstrap sockets.
  auto body = [](RankCtx &c) -> std::string {
    if (c.rank == 1)
      setenv("FAKEVERBS_FAULT", "stall:after=40", 1);
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    HcclResult rc = HCCL_SUCCESS;
    std::string msg;
    std::string e = runUntilFailure(comm, c.rank, rc, msg);
    if (!e.empty())
      return e;
    c.publish(kCodeSlot, static_cast<uint64_t>(rc) + 1);
    RT_CHECK(rc != HCCL_E_TIMEOUT, "failed only by timeout: " + msg);
    if (rc == HCCL_E_ROCE_TRANSFER)
      RT_CHECK(contains(msg, "transport retry counter exceeded") &&
                   contains(msg, "rank 1"),
               msg);
    else
      RT_CHECK(rc == HCCL_E_REMOTE &&
                   contains(msg, "transport retry counter exceeded"),
               "got " + codeName(rc) + ": " + msg);
    HcclCommDestroy(comm);
    return "";
  };
  RunOptions o = verbsOpts("verbs", 90);
  o.env.push_back({"HCCL_RDMA_TIMEOUT", "14"});
  o.env.push_back({"HCCL_RDMA_RETRY_CNT", "2"});
  int transferErrors = 0;
  o.after = [&](const Shared &sh) {
    for (int r = 0; r < 3; ++r)
      transferErrors +=
          sh.values[r][kCodeSlot].load() == HCCL_E_ROCE_TRANSFER + 1;
  };
  EXPECT_EQ(runRanks(3, body, o), "");
  // The adapters of rank 1's peers saw the retries run out.
  EXPECT_GE(transferErrors, 1);
}

TEST_F(VerbsFaults, KilledPeerIsNoticedThroughItsSocket) {
  auto body = [](RankCtx &c) -> std::string {
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    const size_t n = (1u << 20) / 4;
    std::vector<float> buf(n, 1.0f);
    for (int it = 0; it < 200; ++it) {
      if (c.rank == 1 && it == 3)
        raise(SIGKILL);
      HcclResult rc =
          HcclAllReduce(buf.data(), buf.data(), n, HCCL_DATA_TYPE_FP32,
                        HCCL_REDUCE_SUM, comm, nullptr);
      if (rc != HCCL_SUCCESS) {
        std::string msg = HcclGetLastErrorMessage();
        RT_CHECK(rc == HCCL_E_REMOTE, "got " + codeName(rc) + ": " + msg);
        RT_CHECK(contains(msg, "rank 1"), msg);
        HcclCommDestroy(comm);
        return "";
      }
    }
    return "no call failed";
  };
  RunOptions o = verbsOpts("verbs", 90);
  o.mayDie = {1};
  EXPECT_EQ(runRanks(3, body, o), "");
}

TEST_F(VerbsFaults, MismatchedCountsAreDetected) {
  auto body = [](RankCtx &c) -> std::string {
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    uint64_t n = c.rank == 1 ? 2048 : 4096;
    std::vector<float> buf(4096, 1.0f);
    HcclResult rc =
        HcclAllReduce(buf.data(), buf.data(), n, HCCL_DATA_TYPE_FP32,
                      HCCL_REDUCE_SUM, comm, nullptr);
    if (rc == HCCL_SUCCESS) {
      // This rank's part was done; the next call reports the break.
      HcclResult async = HCCL_SUCCESS;
      for (int i = 0; i < 2000 && async == HCCL_SUCCESS; ++i) {
        RT_OK(HcclGetCommAsyncError(comm, &async));
        usleep(1000);
      }
      rc = async;
    }
    std::string msg = HcclGetLastErrorMessage();
    RT_CHECK(rc == HCCL_E_PARA || rc == HCCL_E_REMOTE,
             "got " + codeName(rc) + ": " + msg);
    HcclCommDestroy(comm);
    return "";
  };
  EXPECT_EQ(runRanks(2, body, verbsOpts("verbs", 90)), "");
}

TEST_F(VerbsFaults, SilentPeerTimesOut) {
  auto body = [](RankCtx &c) -> std::string {
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    if (c.rank == 0) {
      std::vector<float> buf(1024, 1.0f);
      HcclResult rc =
          HcclAllReduce(buf.data(), buf.data(), 1024, HCCL_DATA_TYPE_FP32,
                        HCCL_REDUCE_SUM, comm, nullptr);
      std::string msg = HcclGetLastErrorMessage();
      RT_CHECK(rc == HCCL_E_TIMEOUT, "got " + codeName(rc) + ": " + msg);
      RT_CHECK(contains(msg, "rank 1"), msg);
    }
    c.sync(1);
    HcclCommDestroy(comm);
    return "";
  };
  RunOptions o = verbsOpts("verbs", 60);
  for (auto &kv : o.env)
    if (kv.first == "HCCL_EXEC_TIMEOUT")
      kv.second = "2";
  EXPECT_EQ(runRanks(2, body, o), "");
}

TEST_F(VerbsFaults, HungPeerIsFoundByTheKeepAliveProbe) {
  // Rank 1's process stops (SIGSTOP: alive, socket open, adapter silent)
  // while rank 0 only waits to receive from it: nothing of rank 0's is
  // outstanding, so only the keep-alive probe can notice, after the RC retry
  // window, long before HCCL_EXEC_TIMEOUT (60 s).
  auto body = [](RankCtx &c) -> std::string {
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    c.publish(20, static_cast<uint64_t>(getpid()));
    c.sync(1);
    if (c.rank == 1) {
      raise(SIGSTOP);
      return "rank 1 continued";
    }
    while (c.peek(1, 20) == 0)
      usleep(1000);
    std::vector<float> buf(1024);
    HcclResult rc =
        HcclRecv(buf.data(), buf.size(), HCCL_DATA_TYPE_FP32, 1, comm, nullptr);
    std::string msg = HcclGetLastErrorMessage();
    kill(static_cast<pid_t>(c.peek(1, 20)), SIGKILL);
    RT_CHECK(rc == HCCL_E_ROCE_TRANSFER, "got " + codeName(rc) + ": " + msg);
    RT_CHECK(contains(msg, "transport retry counter exceeded") &&
                 contains(msg, "rank 1"),
             msg);
    HcclCommDestroy(comm);
    return "";
  };
  RunOptions o = verbsOpts("verbs", 90);
  o.env.push_back({"HCCL_RDMA_TIMEOUT", "14"});
  o.env.push_back({"HCCL_RDMA_RETRY_CNT", "2"});
  o.mayDie = {1};
  EXPECT_EQ(runRanks(2, body, o), "");
}
