//===- rt_security_test.cpp - The bootstrap against strangers -------------===//
//
// The attacks of docs/security.md on the network surface, each tried: a
// stranger who computes a launcher job's public id and claims a rank, one
// who impersonates rank 0, idle and half-finished connections during init,
// a rank given another secret, the whitelist, the root info file (its mode,
// FIFOs, devices, files of other users), the rank table's port race.
//
//===----------------------------------------------------------------------===//
#include "bootstrap/Auth.h"
#include "bootstrap/Listener.h"
#include "bootstrap/RootInfo.h"
#include "rt_harness.h"

#include <atomic>
#include <chrono>
#include <fcntl.h>
#include <fstream>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <thread>

using namespace rtest;
using hccl::rt::Uid;

namespace {

bool contains(const std::string &s, const std::string &sub) {
  return s.find(sub) != std::string::npos;
}

int freePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof(a));
  socklen_t l = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr *>(&a), &l);
  int port = ntohs(a.sin_port);
  close(fd);
  return port;
}

/// Connects to 127.0.0.1:port, retrying until it listens (at most `ms`).
int connectLoopback(int port, int ms = 20000) {
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < until) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof(a)) == 0)
      return fd;
    close(fd);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return -1;
}

/// The hello a peer sends first (layout of runtime/bootstrap/Listener.cpp,
/// written out here as an attacker would: it is public).
struct RawHello {
  uint64_t magic = 0x4843434c48454c4full;
  uint32_t version = 2;
  uint32_t purpose = 1; // rendezvous
  uint8_t uid[16]{};
  int32_t rank = 1;
  int32_t nRanks = 2;
  uint32_t payloadBytes = 0;
  uint32_t reserved = 0;
  uint8_t nonce[16]{};
};
static_assert(sizeof(RawHello) == 64, "hello layout");

/// The id a launcher job's first communicator has: public values only.
Uid launcherUid(int port, int size) {
  std::string jobKey = "/" + std::to_string(size);
  Uid base;
  return base.derive("env:127.0.0.1:" + std::to_string(port),
                     hccl::rt::fnv1a(jobKey.data(), jobKey.size()), 1);
}

/// All-reduce of rank-dependent data, checked.
std::string checkedAllReduce(HcclComm comm, int rank, int size) {
  const size_t n = 4096;
  std::vector<int32_t> in(n), out(n, -1);
  for (size_t i = 0; i < n; ++i)
    in[i] = static_cast<int32_t>(i % 97) * (rank + 1);
  RT_OK(HcclAllReduce(in.data(), out.data(), n, HCCL_DATA_TYPE_INT32,
                      HCCL_REDUCE_SUM, comm, nullptr));
  int32_t f = size * (size + 1) / 2;
  for (size_t i = 0; i < n; ++i)
    RT_CHECK(out[i] == static_cast<int32_t>(i % 97) * f,
             "element " + std::to_string(i) + " is " + std::to_string(out[i]));
  return "";
}

void launcherEnv(int rank, int size, int port) {
  setenv("RANK", std::to_string(rank).c_str(), 1);
  setenv("WORLD_SIZE", std::to_string(size).c_str(), 1);
  setenv("MASTER_ADDR", "127.0.0.1", 1);
  setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
}

RunOptions opts(std::vector<std::pair<std::string, std::string>> env = {}) {
  RunOptions o;
  o.timeoutSec = 90;
  o.env = {{"HCCL_EXEC_TIMEOUT", "30"}, {"HCCL_IF_IP", "127.0.0.1"}};
  for (auto &kv : env)
    o.env.push_back(kv);
  return o;
}

const char *kSecret = "0123456789abcdef0123456789abcdef";

std::string tmpPath(const std::string &what) {
  return "/tmp/hccl-sec-" + what + "-" + std::to_string(getpid());
}

/// Runs `body` with stderr sent to a file and returns what it wrote.
std::string captureStderr(const std::function<void()> &body) {
  std::string path = tmpPath("stderr-" + std::to_string(getpid()));
  fflush(stderr);
  int saved = dup(2);
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  dup2(fd, 2);
  close(fd);
  body();
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::ifstream f(path);
  std::string text((std::istreambuf_iterator<char>(f)),
                   std::istreambuf_iterator<char>());
  std::remove(path.c_str());
  return text;
}

} // namespace

//===----------------------------------------------------------------------===//
// Strangers on the network
//===----------------------------------------------------------------------===//

// A stranger computes the launcher job's id, connects first and claims rank
// 1 with a forged proof: it is dropped, the real ranks' result is exact.
TEST(Security, StrangerClaimingARankIsDropped) {
  static int port;
  port = freePort();
  std::atomic<int> strangerVerdict{0}; // 1: dropped by rank 0, 2: admitted
  std::thread stranger([&] {
    int fd = connectLoopback(port);
    if (fd < 0)
      return;
    RawHello h;
    Uid u = launcherUid(port, 2);
    std::memcpy(h.uid, u.b.data(), 16);
    (void)!write(fd, &h, sizeof(h));
    char challenge[56];
    if (recv(fd, challenge, sizeof(challenge), MSG_WAITALL) != 56) {
      close(fd);
      return;
    }
    char forged[32];
    std::memset(forged, 0x5a, sizeof(forged));
    (void)!write(fd, forged, sizeof(forged));
    char b;
    // Dropped: the connection is closed. Admitted: the rank table comes.
    ssize_t n = recv(fd, &b, 1, 0);
    strangerVerdict = n <= 0 ? 1 : 2;
    close(fd);
  });
  auto body = [](RankCtx &c) -> std::string {
    launcherEnv(c.rank, c.size, port);
    if (c.rank == 1) // give the stranger a head start
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    HcclComm comm;
    RT_OK(HcclCommInitFromEnv(&comm));
    std::string e = checkedAllReduce(comm, c.rank, c.size);
    RT_OK(HcclCommDestroy(comm));
    return e;
  };
  EXPECT_EQ(runRanks(2, body, opts({{"HCCL_JOB_SECRET", kSecret}})), "");
  stranger.join();
  EXPECT_EQ(strangerVerdict.load(), 1) << "the stranger was not dropped";
}

// The stranger listens on MASTER_PORT before rank 0 does: a rank holding
// the secret notices that the "root" cannot prove the key, and says so.
TEST(Security, ImpersonatedRootIsRefused) {
  static int port;
  port = freePort();
  auto fake = hccl::rt::Listener::open("127.0.0.1", static_cast<uint16_t>(port),
                                       1, {hccl::rt::publicKey(), nullptr});
  ASSERT_TRUE(fake.isOk()) << fake.status().message();
  auto body = [](RankCtx &) -> std::string {
    launcherEnv(1, 2, port);
    setenv("HCCL_CONNECT_TIMEOUT_MS", "5000", 1);
    HcclComm comm;
    HcclResult rc = HcclCommInitFromEnv(&comm);
    RT_CHECK(rc != HCCL_SUCCESS, "joined a fake root");
    RT_CHECK(contains(HcclGetLastErrorMessage(),
                      "does not hold this communicator's key"),
             HcclGetLastErrorMessage());
    return "";
  };
  std::thread serve([&] {
    (void)(*fake)->acceptFor(Uid(), hccl::rt::ConnPurpose::Rendezvous,
                             hccl::rt::Deadline::afterMs(8000));
  });
  EXPECT_EQ(runRanks(1, body, opts({{"HCCL_JOB_SECRET", kSecret}})), "");
  serve.join();
}

// A rank given another secret fails with a message that says so; the others
// report it missing instead of admitting it.
TEST(Security, RankWithAnotherSecretIsNotAdmitted) {
  static int port;
  port = freePort();
  auto body = [](RankCtx &c) -> std::string {
    launcherEnv(c.rank, c.size, port);
    setenv("HCCL_CONNECT_TIMEOUT_MS", "4000", 1);
    if (c.rank == 1)
      setenv("HCCL_JOB_SECRET", "another secret, 32 characters...", 1);
    HcclComm comm;
    HcclResult rc = HcclCommInitFromEnv(&comm);
    RT_CHECK(rc != HCCL_SUCCESS, "init succeeded with mismatched secrets");
    std::string m = HcclGetLastErrorMessage();
    if (c.rank == 1)
      RT_CHECK(contains(m, "different job secrets"), m);
    else
      RT_CHECK(contains(m, "missing ranks: 1"), m);
    return "";
  };
  EXPECT_EQ(runRanks(2, body, opts({{"HCCL_JOB_SECRET", kSecret}})), "");
}

// 40 idle connections, 10 half hellos and 10 hellos announcing a 16 MiB
// payload reach rank 0 before the real ranks: init still succeeds, and rank
// 0 does not grow by the payloads.
TEST(Security, HostileConnectionsDoNotBreakInit) {
  static int port;
  port = freePort();
  std::atomic<bool> stop{false};
  std::vector<int> fds;
  std::thread attacker([&] {
    int first = connectLoopback(port);
    if (first < 0)
      return;
    fds.push_back(first);
    for (int i = 0; i < 59; ++i)
      fds.push_back(connectLoopback(port, 2000));
    RawHello big;
    big.payloadBytes = 16u << 20;
    for (int i = 40; i < 60; ++i) {
      if (fds[static_cast<size_t>(i)] < 0)
        continue;
      if (i < 50)
        (void)!write(fds[static_cast<size_t>(i)], &big, 32); // half a hello
      else
        (void)!write(fds[static_cast<size_t>(i)], &big, sizeof(big));
    }
    while (!stop)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    for (int fd : fds)
      if (fd >= 0)
        close(fd);
  });
  auto rssKb = [] {
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
      if (line.rfind("VmRSS:", 0) == 0)
        return std::stoull(line.substr(6));
    return 0ull;
  };
  auto body = [&](RankCtx &c) -> std::string {
    launcherEnv(c.rank, c.size, port);
    if (c.rank != 0) // the hostile connections come first
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    uint64_t before = rssKb();
    auto t0 = std::chrono::steady_clock::now();
    HcclComm comm;
    RT_OK(HcclCommInitFromEnv(&comm));
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - t0)
                  .count();
    c.publish(0, static_cast<uint64_t>(ms));
    c.publish(1, rssKb() - before);
    std::string e = checkedAllReduce(comm, c.rank, c.size);
    RT_OK(HcclCommDestroy(comm));
    return e;
  };
  RunOptions o = opts({{"HCCL_JOB_SECRET", kSecret}});
  uint64_t initMs = 0, growKb = 0;
  o.after = [&](const Shared &sh) {
    initMs = sh.values[1][0].load();
    growKb = sh.values[0][1].load();
  };
  EXPECT_EQ(runRanks(3, body, o), "");
  stop = true;
  attacker.join();
  EXPECT_GE(fds.size(), 60u);
  // The old listener kept each announced payload (16 MiB) for its life.
  EXPECT_LT(growKb, 64u * 1024) << "rank 0 grew by " << growKb << " KiB";
  std::printf("init of rank 1 with 60 hostile connections present: %llu ms; "
              "rank 0 grew by %llu KiB\n",
              static_cast<unsigned long long>(initMs),
              static_cast<unsigned long long>(growKb));
}

// Without a secret a launcher job still works, and each rank says once, on
// stderr, that anyone can join it (two communicators, one warning).
TEST(Security, NoSecretWarnsOnce) {
  static int port;
  port = freePort();
  auto body = [](RankCtx &c) -> std::string {
    launcherEnv(c.rank, c.size, port);
    unsetenv("HCCL_JOB_SECRET");
    std::string err;
    std::string out = captureStderr([&] {
      for (int k = 0; k < 2 && err.empty(); ++k) {
        HcclComm comm;
        if (HcclCommInitFromEnv(&comm) != HCCL_SUCCESS) {
          err = HcclGetLastErrorMessage();
          break;
        }
        err = checkedAllReduce(comm, c.rank, c.size);
        (void)HcclCommDestroy(comm);
      }
    });
    if (!err.empty())
      return err;
    size_t first = out.find("this job has no secret");
    RT_CHECK(first != std::string::npos, "no warning: " + out);
    RT_CHECK(out.find("this job has no secret", first + 1) == std::string::npos,
             "warned twice: " + out);
    RT_CHECK(contains(out, "127.0.0.1:" + std::to_string(port)), out);
    return "";
  };
  EXPECT_EQ(runRanks(2, body, opts()), "");
}

TEST(Security, BadSecretsAreRejected) {
  auto body = [](RankCtx &) -> std::string {
    launcherEnv(1, 2, 1234);
    HcclComm comm;
    setenv("HCCL_JOB_SECRET", "short", 1);
    HcclResult rc = HcclCommInitFromEnv(&comm);
    RT_CHECK(rc == HCCL_E_PARA && contains(HcclGetLastErrorMessage(),
                                           "HCCL_JOB_SECRET: the secret has 5"),
             HcclGetLastErrorMessage());
    std::string path = tmpPath("secret");
    {
      std::ofstream f(path);
      f << kSecret << "\n";
    }
    chmod(path.c_str(), 0644);
    setenv("HCCL_JOB_SECRET_FILE", path.c_str(), 1);
    rc = HcclCommInitFromEnv(&comm);
    RT_CHECK(rc == HCCL_E_PARA &&
                 contains(HcclGetLastErrorMessage(), "both set"),
             HcclGetLastErrorMessage());
    unsetenv("HCCL_JOB_SECRET");
    rc = HcclCommInitFromEnv(&comm);
    RT_CHECK(rc == HCCL_E_PARA &&
                 contains(HcclGetLastErrorMessage(), "mode 0644"),
             HcclGetLastErrorMessage());
    std::remove(path.c_str());
    return "";
  };
  EXPECT_EQ(runRanks(1, body, opts()), "");
}

// The secret from a 0600 file works like the variable.
TEST(Security, SecretFile) {
  static int port;
  static std::string path;
  port = freePort();
  path = tmpPath("secretfile");
  {
    std::ofstream f(path);
    f << kSecret << "\n";
  }
  chmod(path.c_str(), 0600);
  auto body = [](RankCtx &c) -> std::string {
    launcherEnv(c.rank, c.size, port);
    // Only the file: a secret the caller's shell exports would make the
    // two sources conflict (an error of its own, tested elsewhere).
    unsetenv("HCCL_JOB_SECRET");
    HcclComm comm;
    RT_OK(HcclCommInitFromEnv(&comm));
    std::string e = checkedAllReduce(comm, c.rank, c.size);
    RT_OK(HcclCommDestroy(comm));
    return e;
  };
  EXPECT_EQ(runRanks(2, body, opts({{"HCCL_JOB_SECRET_FILE", path}})), "");
  std::remove(path.c_str());
}

//===----------------------------------------------------------------------===//
// The whitelist (HCCL_WHITELIST_DISABLE=0 + HCCL_WHITELIST_FILE)
//===----------------------------------------------------------------------===//

namespace {
std::string writeWhitelist(const std::string &name, const std::string &json) {
  std::string path = tmpPath(name);
  std::ofstream f(path);
  f << json;
  return path;
}

Body rootInfoAllReduce() {
  return [](RankCtx &c) -> std::string {
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    std::string e = checkedAllReduce(comm, c.rank, c.size);
    RT_OK(HcclCommDestroy(comm));
    return e;
  };
}
} // namespace

TEST(Security, WhitelistAdmitsListedHosts) {
  std::string wl =
      writeWhitelist("wl-ok", R"({"host_ip": ["127.0.0.1"], "device_ip": []})");
  EXPECT_EQ(runRanks(3, rootInfoAllReduce(),
                     opts({{"HCCL_WHITELIST_DISABLE", "0"},
                           {"HCCL_WHITELIST_FILE", wl},
                           {"HCCL_TRANSPORT", "tcp"}})),
            "");
  std::remove(wl.c_str());
}

TEST(Security, WhitelistDropsOtherHosts) {
  static std::string wl;
  wl = writeWhitelist("wl-other", R"({"host_ip": ["127.0.0.9"]})");
  auto body = [](RankCtx &c) -> std::string {
    HcclComm comm;
    HcclResult rc = c.initComm(&comm);
    RT_CHECK(rc != HCCL_SUCCESS, "a host outside the whitelist joined");
    std::string m = HcclGetLastErrorMessage();
    if (c.rank == 0)
      RT_CHECK(contains(m, "missing ranks: 1"), m);
    else
      RT_CHECK(contains(m, "HCCL_WHITELIST_FILE"), m);
    return "";
  };
  EXPECT_EQ(runRanks(2, body,
                     opts({{"HCCL_WHITELIST_DISABLE", "0"},
                           {"HCCL_WHITELIST_FILE", wl},
                           {"HCCL_CONNECT_TIMEOUT_MS", "3000"}})),
            "");
  std::remove(wl.c_str());
}

TEST(Security, BadWhitelists) {
  static std::string bad;
  bad = writeWhitelist("wl-bad", R"({"host_ip": ["10.0.0.300"]})");
  auto body = [](RankCtx &) -> std::string {
    HcclRootInfo ri;
    setenv("HCCL_WHITELIST_DISABLE", "0", 1);
    HcclResult rc = HcclGetRootInfo(&ri);
    RT_CHECK(rc == HCCL_E_PARA &&
                 contains(HcclGetLastErrorMessage(), "HCCL_WHITELIST_FILE"),
             HcclGetLastErrorMessage());
    setenv("HCCL_WHITELIST_FILE", bad.c_str(), 1);
    rc = HcclGetRootInfo(&ri);
    RT_CHECK(rc == HCCL_E_PARA &&
                 contains(HcclGetLastErrorMessage(), "host_ip[0] '10.0.0.300'"),
             HcclGetLastErrorMessage());
    setenv("HCCL_WHITELIST_FILE", "/dev/zero", 1);
    rc = HcclGetRootInfo(&ri);
    RT_CHECK(rc == HCCL_E_PARA &&
                 contains(HcclGetLastErrorMessage(), "not a regular file"),
             HcclGetLastErrorMessage());
    return "";
  };
  EXPECT_EQ(runRanks(1, body, opts()), "");
  std::remove(bad.c_str());
}

//===----------------------------------------------------------------------===//
// The root info file (HCCL_ROOT_INFO_FILE)
//===----------------------------------------------------------------------===//

// Rank 0 writes the file 0600 (it holds the communicator's key); rank 1
// looks at it before joining.
TEST(Security, RootInfoFileIsPrivate) {
  static std::string path;
  path = tmpPath("rootinfo");
  std::remove(path.c_str());
  auto body = [](RankCtx &c) -> std::string {
    setenv("RANK", std::to_string(c.rank).c_str(), 1);
    setenv("WORLD_SIZE", "2", 1);
    setenv("HCCL_ROOT_INFO_FILE", path.c_str(), 1);
    if (c.rank == 1) {
      struct stat st{};
      for (int i = 0; i < 2000 && stat(path.c_str(), &st) != 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      c.publish(0, st.st_mode & 07777);
    }
    HcclComm comm;
    RT_OK(HcclCommInitFromEnv(&comm));
    std::string e = checkedAllReduce(comm, c.rank, c.size);
    RT_OK(HcclCommDestroy(comm));
    return e;
  };
  RunOptions o = opts();
  unsigned mode = 0;
  o.after = [&](const Shared &sh) {
    mode = static_cast<unsigned>(sh.values[1][0].load());
  };
  EXPECT_EQ(runRanks(2, body, o), "");
  EXPECT_EQ(mode, 0600u);
}

// A root info path that is a FIFO, a device or another user's file fails at
// once with the reason, instead of blocking or reading without end.
TEST(Security, RootInfoFileThatIsNoFile) {
  static std::string fifo, wide;
  fifo = tmpPath("fifo");
  wide = tmpPath("wide");
  std::remove(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  {
    std::ofstream f(wide);
    f << std::string(HCCL_ROOT_INFO_BYTES, 'x');
  }
  chmod(wide.c_str(), 0644);
  auto body = [](RankCtx &) -> std::string {
    setenv("RANK", "1", 1);
    setenv("WORLD_SIZE", "2", 1);
    setenv("HCCL_CONNECT_TIMEOUT_MS", "20000", 1);
    const std::pair<std::string, std::string> cases[] = {
        {fifo, "not a regular file"},
        {"/dev/zero", "not a regular file"},
        {"/dev/urandom", "not a regular file"},
        {wide, "mode 0644"}};
    for (const auto &k : cases) {
      setenv("HCCL_ROOT_INFO_FILE", k.first.c_str(), 1);
      HcclComm comm;
      HcclResult rc = HcclCommInitFromEnv(&comm);
      RT_CHECK(rc == HCCL_E_PARA, k.first + ": " + HcclGetErrorString(rc) +
                                      " " + HcclGetLastErrorMessage());
      RT_CHECK(contains(HcclGetLastErrorMessage(), k.second),
               k.first + ": " + HcclGetLastErrorMessage());
    }
    if (geteuid() == 0) {
      chmod(wide.c_str(), 0600);
      RT_CHECK(chown(wide.c_str(), 65534, 65534) == 0, "chown");
      setenv("HCCL_ROOT_INFO_FILE", wide.c_str(), 1);
      HcclComm comm;
      HcclResult rc = HcclCommInitFromEnv(&comm);
      RT_CHECK(rc == HCCL_E_PARA &&
                   contains(HcclGetLastErrorMessage(), "belongs to uid 65534"),
               HcclGetLastErrorMessage());
    }
    return "";
  };
  // The harness kills a rank that hangs: a FIFO that blocked would show.
  RunOptions o = opts();
  o.timeoutSec = 30;
  EXPECT_EQ(runRanks(1, body, o), "");
  std::remove(fifo.c_str());
  std::remove(wide.c_str());
}

//===----------------------------------------------------------------------===//
// Rank tables
//===----------------------------------------------------------------------===//

// Rank 0 must listen on exactly HCCL_IF_BASE_PORT; the other ranks of the
// host start first and open their own listeners meanwhile. None may take
// the base port (it failed "Address already in use" when they did).
TEST(Security, RankTablePortIsRank0s) {
  static std::string table;
  table = tmpPath("ranktable.json");
  {
    std::ofstream f(table);
    f << R"({"version":"1.0","server_count":"1","server_list":[{"server_id":"127.0.0.1","device":[)";
    for (int d = 0; d < 4; ++d)
      f << (d ? "," : "") << R"({"device_id":")" << d
        << R"(","device_ip":"192.168.1.)" << d << R"(","rank_id":")" << d
        << R"("})";
    f << "]}]}";
  }
  static int port;
  for (int round = 0; round < 3; ++round) {
    port = freePort();
    auto body = [](RankCtx &c) -> std::string {
      setenv("HCCL_IF_BASE_PORT", std::to_string(port).c_str(), 1);
      if (c.rank == 0) // the others' listeners exist by now
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
      HcclComm comm;
      RT_OK(HcclCommInitClusterInfo(table.c_str(),
                                    static_cast<uint32_t>(c.rank), &comm));
      std::string e = checkedAllReduce(comm, c.rank, c.size);
      RT_OK(HcclCommDestroy(comm));
      return e;
    };
    EXPECT_EQ(runRanks(4, body, opts({{"HCCL_JOB_SECRET", kSecret}})), "")
        << "round " << round;
  }
  std::remove(table.c_str());
}
