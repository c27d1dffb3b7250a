//===- rt_shared_mem_test.cpp - memfd mappings shared with peers ----------===//
//
// common/SharedMem.h: sealing against a peer that shrinks the memory, and
// the huge-page hint on large mappings (both the owner's and a peer's).
//
//===----------------------------------------------------------------------===//
#include "HostMemory.h"
#include "common/SharedMem.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/syscall.h>
#include <unistd.h>

using namespace hccl::rt;

namespace {

// The smaps entry of the mapping that starts at `base`: its "VmFlags:" and
// "ShmemPmdMapped:" lines, empty when there is no such mapping.
struct SmapsEntry {
  bool found = false;
  std::string vmFlags;
  uint64_t shmemPmdKiB = 0;
};

SmapsEntry smapsOf(const void *base) {
  std::ostringstream want;
  want << std::hex << reinterpret_cast<uintptr_t>(base) << '-';
  std::ifstream in("/proc/self/smaps");
  SmapsEntry e;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    // A mapping's first line is "start-end perms ...", a field's is
    // "Name: value".
    std::string first = line.substr(0, line.find(' '));
    bool header = !first.empty() && first.back() != ':' &&
                  first.find('-') != std::string::npos;
    if (header) {
      if (inside)
        break;
      inside = line.rfind(want.str(), 0) == 0;
      e.found = e.found || inside;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      e.vmFlags = line.substr(8) + " ";
    } else if (inside && line.rfind("ShmemPmdMapped:", 0) == 0) {
      e.shmemPmdKiB = std::stoull(line.substr(15));
    }
  }
  return e;
}

bool hasFlag(const SmapsEntry &e, const char *flag) {
  return e.vmFlags.find(std::string(" ") + flag + " ") != std::string::npos;
}

} // namespace

// create() seals its memory's size; mapPeer() refuses memory that is not
// sealed (a peer could shrink it under our mapping: SIGBUS on touch).
TEST(SharedMapping, PeersMapOnlySealedMemory) {
  auto own = SharedMapping::create(3 * pageSize(), "seal-test");
  ASSERT_TRUE(own.isOk());
  EXPECT_NE(::ftruncate((*own)->fd(), 0), 0) << "shrinking sealed memory";
  auto self = PeerProcess::open(::getpid());
  ASSERT_TRUE(self.isOk());
  auto dup = (*self)->importFd((*own)->fd());
  ASSERT_TRUE(dup.isOk());
  auto peer = SharedMapping::mapPeer(*dup, 3 * pageSize(), false);
  ASSERT_TRUE(peer.isOk()) << peer.status().message();
  EXPECT_EQ((*peer)->fd(), -1) << "the imported descriptor is closed";

  int raw = static_cast<int>(::syscall(SYS_memfd_create, "unsealed", 0));
  ASSERT_GE(raw, 0);
  ASSERT_EQ(::ftruncate(raw, static_cast<off_t>(pageSize())), 0);
  auto bad = SharedMapping::mapPeer(raw, pageSize(), false);
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.status().message().find("not sealed"), std::string::npos)
      << bad.status().message();
}

// Mappings of 2 MiB or more, the owner's and a peer's, carry the huge-page
// hint (smaps' VmFlags "hg"); smaller ones do not. The kernel keeps the
// hint whatever shmem_enabled says; whether pages are huge is the next test.
TEST(SharedMapping, LargeMappingsAskForHugePages) {
  if (hccl::tools::shmemHugePageMode().empty())
    GTEST_SKIP() << hccl::tools::shmemHugePageAdvice();
  auto small = SharedMapping::create(64 << 10, "small");
  auto large = SharedMapping::create(8 << 20, "large");
  ASSERT_TRUE(small.isOk() && large.isOk());
  auto self = PeerProcess::open(::getpid());
  ASSERT_TRUE(self.isOk());
  auto dup = (*self)->importFd((*large)->fd());
  ASSERT_TRUE(dup.isOk());
  auto peer = SharedMapping::mapPeer(*dup, 8 << 20, false);
  ASSERT_TRUE(peer.isOk()) << peer.status().message();

  SmapsEntry s = smapsOf((*small)->base()), l = smapsOf((*large)->base()),
             p = smapsOf((*peer)->base());
  ASSERT_TRUE(s.found && l.found && p.found) << "mappings not in smaps";
  EXPECT_FALSE(hasFlag(s, "hg")) << "64 KiB:" << s.vmFlags;
  EXPECT_TRUE(hasFlag(l, "hg")) << "8 MiB, the owner's:" << l.vmFlags;
  EXPECT_TRUE(hasFlag(p, "hg")) << "8 MiB, a peer's:" << p.vmFlags;
}

// Where the host lets shared memory have huge pages on request, a large
// mapping written through gets some of them mapped whole (PMD-mapped).
TEST(SharedMapping, LargeMappingsGetHugePagesWhereTheHostAllows) {
  // The setting that decides for 2 MiB pages, the per-size one included
  // (tools/common/HostMemory, which hccl-run reports from).
  std::string mode = hccl::tools::shmemHugePageMode();
  if (!hccl::tools::shmemHugePagesAllowed(mode))
    GTEST_SKIP() << "shared memory gets no huge pages on this host: "
                 << hccl::tools::shmemHugePageAdvice();
  auto large = SharedMapping::create(8 << 20, "large");
  ASSERT_TRUE(large.isOk());
  std::memset((*large)->base(), 1, (*large)->size());
  SmapsEntry l = smapsOf((*large)->base());
  ASSERT_TRUE(l.found);
  // Huge pages may be short (fragmented memory): the kernel then falls back
  // to 4 KiB pages. 8 MiB holds at least three aligned 2 MiB pages.
  EXPECT_GT(l.shmemPmdKiB, 0u)
      << "shmem_enabled [" << mode << "], yet no 2 MiB page mapped";
}
