//===- host_memory_test.cpp - The host's huge-page setting, as reported ---===//
//
// tools/common/HostMemory on fake sysfs trees: the 2 MiB size's own
// shmem_enabled decides unless it inherits, the advice names the file that
// decided, and a tree without the files (no transparent huge pages) or with
// garbage in them reads as no setting. bench/model's HostSettings test holds
// tools/calibrate/host_memory.py to the same cases.
//
//===----------------------------------------------------------------------===//
#include "HostMemory.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;
using namespace hccl::tools;

namespace {

class FakeThp : public ::testing::Test {
protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "thp-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir = tmpl;
  }
  void TearDown() override { fs::remove_all(dir); }
  void write(const std::string &rel, const std::string &text) {
    fs::create_directories(fs::path(dir + "/" + rel).parent_path());
    std::ofstream(dir + "/" + rel) << text;
  }
  // A 2 MiB PMD size with these top-level and per-size settings.
  void tree(const std::string &top, const std::string &own) {
    write("shmem_enabled", top);
    write("hpage_pmd_size", "2097152\n");
    write("hugepages-2048kB/shmem_enabled", own);
  }
  std::string dir;
};

const char *kTop = "always within_size advise [never] deny force\n";

} // namespace

TEST_F(FakeThp, TheSizesOwnSettingDecides) {
  tree(kTop, "always inherit within_size [advise] never\n");
  EXPECT_EQ(shmemHugePageFile(dir), dir + "/hugepages-2048kB/shmem_enabled");
  EXPECT_EQ(shmemHugePageMode(dir), "advise");
  EXPECT_TRUE(shmemHugePagesAllowed(shmemHugePageMode(dir)));
}

TEST_F(FakeThp, InheritLeavesItToTheTopLevel) {
  tree(kTop, "always [inherit] within_size advise never\n");
  EXPECT_EQ(shmemHugePageFile(dir), dir + "/shmem_enabled");
  EXPECT_EQ(shmemHugePageMode(dir), "never");
  EXPECT_FALSE(shmemHugePagesAllowed("never"));
  EXPECT_EQ(shmemHugePageAdvice(dir), dir +
                                          "/shmem_enabled is [never]; as "
                                          "root: echo advise > " +
                                          dir + "/shmem_enabled");
}

TEST_F(FakeThp, TheAdviceNamesTheFileThatDecided) {
  tree("always within_size [advise] never deny force\n",
       "always inherit within_size advise [never]\n");
  EXPECT_EQ(shmemHugePageMode(dir), "never");
  std::string own = dir + "/hugepages-2048kB/shmem_enabled";
  EXPECT_EQ(shmemHugePageAdvice(dir),
            own + " is [never]; as root: echo advise > " + own);
}

TEST_F(FakeThp, AnotherPmdSizeIsLookedUpByItsSize) {
  // AArch64 with 64 KiB base pages: PMD pages of 512 MiB.
  write("shmem_enabled", kTop);
  write("hpage_pmd_size", "536870912\n");
  write("hugepages-2048kB/shmem_enabled", "[always] inherit never\n");
  write("hugepages-524288kB/shmem_enabled", "always inherit [within_size]\n");
  EXPECT_EQ(shmemHugePageMode(dir), "within_size");
}

TEST_F(FakeThp, NoFilesOrGarbageIsNoSetting) {
  EXPECT_EQ(shmemHugePageFile(dir), "");
  EXPECT_EQ(shmemHugePageMode(dir), "");
  EXPECT_NE(shmemHugePageAdvice(dir).find("no transparent huge pages"),
            std::string::npos);
  write("shmem_enabled", "advise\n"); // no bracket
  write("hpage_pmd_size", "lots\n");
  EXPECT_EQ(shmemHugePageMode(dir), "");
  EXPECT_FALSE(shmemHugePagesAllowed(""));
}
