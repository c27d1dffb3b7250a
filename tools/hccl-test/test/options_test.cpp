//===- options_test.cpp - hccl-test's command line ------------------------===//
#include "Options.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <vector>

using namespace hccltest;

namespace {

ParseResult parse(std::initializer_list<const char *> args) {
  std::vector<const char *> argv{"hccl-test"};
  argv.insert(argv.end(), args.begin(), args.end());
  return parseOptions(static_cast<int>(argv.size()), argv.data());
}

Options ok(std::initializer_list<const char *> args) {
  ParseResult r = parse(args);
  EXPECT_TRUE(r.options.has_value()) << r.error;
  return r.options.value_or(Options{});
}

std::string err(std::initializer_list<const char *> args) {
  ParseResult r = parse(args);
  EXPECT_FALSE(r.options.has_value()) << "accepted";
  EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
  EXPECT_EQ(r.error.rfind("hccl-test: ", 0), 0u) << r.error;
  return r.error;
}

TEST(HcclTestOptions, HuaweiExampleLine) {
  Options o = ok({"all_reduce", "-b", "8K", "-e", "64M", "-f", "2", "-d",
                  "fp32", "-o", "sum", "-p", "8"});
  EXPECT_EQ(o.op, Op::AllReduce);
  EXPECT_EQ(o.minBytes, 8192u);
  EXPECT_EQ(o.maxBytes, 64u << 20);
  EXPECT_EQ(o.stepFactor, 2.0);
  EXPECT_EQ(o.dataType, HCCL_DATA_TYPE_FP32);
  EXPECT_EQ(o.reduceOp, HCCL_REDUCE_SUM);
  EXPECT_EQ(o.npus, 8);
  EXPECT_TRUE(o.npusGiven);
  std::vector<uint64_t> sizes = o.sizes();
  ASSERT_EQ(sizes.size(), 14u); // 8K, 16K, ..., 64M
  EXPECT_EQ(sizes.front(), 8192u);
  EXPECT_EQ(sizes.back(), 64u << 20);
}

TEST(HcclTestOptions, DefaultsAreHcclTests) {
  Options o = ok({"broadcast"});
  EXPECT_EQ(o.minBytes, 64u << 20);
  EXPECT_EQ(o.maxBytes, 64u << 20);
  EXPECT_EQ(o.iters, 20);
  EXPECT_EQ(o.warmupIters, 10); // hccl_test's default
  EXPECT_EQ(o.root, 0u);
  EXPECT_TRUE(o.check);
  EXPECT_EQ(o.npus, 8);
  EXPECT_FALSE(o.npusGiven);
  EXPECT_EQ(o.sizes().size(), 1u);
}

TEST(HcclTestOptions, EveryCollectiveName) {
  const std::pair<const char *, Op> names[] = {
      {"all_reduce", Op::AllReduce},
      {"all_gather", Op::AllGather},
      {"reduce_scatter", Op::ReduceScatter},
      {"broadcast", Op::Broadcast},
      {"reduce", Op::Reduce},
      {"alltoall", Op::AllToAll},
      {"alltoallv", Op::AllToAllV},
      {"all_reduce_test", Op::AllReduce},
      {"AllGather", Op::AllGather}};
  for (auto &[name, op] : names)
    EXPECT_EQ(ok({name}).op, op) << name;
}

TEST(HcclTestOptions, SpellingsOfAValue) {
  EXPECT_EQ(ok({"all_reduce", "-b8K", "-e8K"}).minBytes, 8192u);
  EXPECT_EQ(ok({"all_reduce", "--minbytes=1k", "-e", "1G"}).minBytes, 1024u);
  EXPECT_EQ(ok({"all_reduce", "--iters", "3"}).iters, 3);
  EXPECT_EQ(ok({"all_reduce", "-w", "0"}).warmupIters, 0);
  EXPECT_EQ(ok({"reduce", "-r", "3"}).root, 3u);
  EXPECT_EQ(ok({"reduce", "-o", "MAX"}).reduceOp, HCCL_REDUCE_MAX);
  EXPECT_EQ(ok({"reduce", "-d", "bfp16"}).dataType, HCCL_DATA_TYPE_BFP16);
  EXPECT_EQ(ok({"reduce", "-d", "bf16"}).dataType, HCCL_DATA_TYPE_BFP16);
  EXPECT_FALSE(ok({"reduce", "-c", "0"}).check);
  Options o = ok({"all_reduce", "--csv", "out.csv", "--algo", "level0:ring",
                  "--sync", "--malloc"});
  EXPECT_EQ(o.csvPath, "out.csv");
  EXPECT_EQ(o.algo, "level0:ring");
  EXPECT_TRUE(o.sync);
  EXPECT_TRUE(o.useMalloc);
  EXPECT_EQ(o.gapUs, 0);
  EXPECT_EQ(ok({"all_reduce", "--gap-us", "1000"}).gapUs, 1000);
  EXPECT_NE(err({"all_reduce", "--gap-us", "-1"}).find("--gap-us -1: expected"),
            std::string::npos);
  EXPECT_FALSE(ok({"all_reduce", "--gap-us", "1000"}).issueAhead);
  EXPECT_TRUE(
      ok({"all_reduce", "--gap-us", "1000", "--issue", "ahead"}).issueAhead);
  EXPECT_FALSE(
      ok({"all_reduce", "--gap-us", "1000", "--issue=host"}).issueAhead);
  EXPECT_NE(err({"all_reduce", "--gap-us", "9", "--issue", "early"})
                .find("--issue early: expected host or ahead"),
            std::string::npos);
  // An option that changes nothing is refused: nothing to hold the calls
  // behind, no stream.
  EXPECT_NE(err({"all_reduce", "--issue", "ahead"})
                .find("the gap of --gap-us or the eviction of --flush-mib or "
                      "--evict-buffers; give one of them"),
            std::string::npos);
  EXPECT_NE(err({"all_reduce", "--gap-us", "9", "--issue", "ahead", "--sync"})
                .find("--sync has none"),
            std::string::npos);
  EXPECT_EQ(ok({"all_reduce"}).flushMiB, 0);
  EXPECT_EQ(ok({"all_reduce", "--flush-mib", "256"}).flushMiB, 256);
  EXPECT_EQ(ok({"all_reduce", "--flush-mib", "64", "--sync"}).flushMiB, 64);
  EXPECT_NE(err({"all_reduce", "--flush-mib", "0"})
                .find("--flush-mib 0: expected MiB in 1..65536"),
            std::string::npos);
  EXPECT_NE(err({"all_reduce", "--flush-mib", "65537"}).find("1..65536"),
            std::string::npos);
  // Two ways of making a call cold: one at a time.
  EXPECT_NE(err({"all_reduce", "--flush-mib", "64", "--gap-us", "100"})
                .find("give one of them"),
            std::string::npos);
  // --evict-buffers: a flag, from memory like --flush-mib, and exclusive
  // with both other ways.
  EXPECT_FALSE(ok({"all_reduce"}).evictBuffers);
  EXPECT_TRUE(ok({"all_reduce", "--evict-buffers"}).evictBuffers);
  EXPECT_TRUE(ok({"all_reduce", "--evict-buffers", "--sync"}).evictBuffers);
  EXPECT_NE(err({"all_reduce", "--evict-buffers=1"}).find("takes no value"),
            std::string::npos);
  EXPECT_NE(err({"all_reduce", "--evict-buffers", "--gap-us", "100"})
                .find("--evict-buffers times calls from memory, --gap-us"),
            std::string::npos);
  EXPECT_NE(err({"all_reduce", "--evict-buffers", "--flush-mib", "64"})
                .find("--evict-buffers evicts the call's buffers alone"),
            std::string::npos);
  // Calls from memory queued behind stream tasks that evict: not blocking.
  Options q = ok({"all_reduce", "--evict-buffers", "--issue", "ahead"});
  EXPECT_TRUE(q.issueAhead && q.evictBuffers && q.fromMemory());
  EXPECT_TRUE(
      ok({"all_reduce", "--flush-mib", "8", "--issue", "ahead"}).issueAhead);
  EXPECT_FALSE(
      ok({"all_reduce", "--evict-buffers", "--issue", "host"}).issueAhead);
  EXPECT_NE(err({"all_reduce", "--evict-buffers", "--issue", "ahead", "--sync"})
                .find("--sync has none"),
            std::string::npos);
  EXPECT_TRUE(ok({"--help"}).help);
  EXPECT_TRUE(ok({"all_reduce", "-h"}).help);
}

TEST(HcclTestOptions, AdditiveSteps) {
  Options o = ok({"all_reduce", "-b", "1K", "-e", "4K", "-i", "1K"});
  EXPECT_EQ(o.sizes(), (std::vector<uint64_t>{1024, 2048, 3072, 4096}));
  // The last step may overshoot -e: it is not run.
  o = ok({"all_reduce", "-b", "100", "-e", "250", "-i", "100"});
  EXPECT_EQ(o.sizes(), (std::vector<uint64_t>{100, 200}));
  o = ok({"all_reduce", "-b", "0", "-e", "0"});
  EXPECT_EQ(o.sizes(), (std::vector<uint64_t>{0}));
}

TEST(HcclTestOptions, BadValuesAreOneLineErrors) {
  EXPECT_NE(err({}).find("missing collective"), std::string::npos);
  EXPECT_NE(err({"-b", "8K"}).find("missing collective"), std::string::npos);
  EXPECT_NE(err({"allreduce_x"}).find("unknown collective 'allreduce_x'"),
            std::string::npos);
  EXPECT_NE(err({"all_reduce", "-b", "abc"}).find("-b abc: expected a size"),
            std::string::npos);
  EXPECT_NE(err({"all_reduce", "-b", "8X"}).find("-b 8X"), std::string::npos);
  EXPECT_NE(err({"all_reduce", "-e", "-5"}).find("-e -5"), std::string::npos);
  EXPECT_NE(err({"all_reduce", "-b", "99999999999999999999G"}).find("-b"),
            std::string::npos);
  EXPECT_NE(err({"all_reduce", "-b", "64M", "-e", "8K"})
                .find("-b 67108864 is larger than -e 8192"),
            std::string::npos);
  EXPECT_NE(err({"all_reduce", "-f", "0"}).find("-f 0"), std::string::npos);
  EXPECT_NE(err({"all_reduce", "-w", "x"}).find("-w x"), std::string::npos);
  EXPECT_NE(err({"all_reduce", "-o", "avg"}).find("sum, prod, max or min"),
            std::string::npos);
  EXPECT_NE(err({"all_reduce", "-d", "fp8"}).find("-d fp8: expected one of"),
            std::string::npos);
  EXPECT_NE(err({"all_reduce", "-c", "2"}).find("0 or 1"), std::string::npos);
  EXPECT_NE(err({"all_reduce", "-p", "0"}).find("-p 0"), std::string::npos);
  EXPECT_NE(err({"all_reduce", "-r", "-1"}).find("-r -1"), std::string::npos);
  EXPECT_NE(err({"all_reduce", "-x", "1"}).find("unknown option '-x'"),
            std::string::npos);
  EXPECT_NE(err({"all_reduce", "--frobnicate"}).find("--frobnicate"),
            std::string::npos);
  EXPECT_NE(err({"all_reduce", "-b"}).find("needs a value"), std::string::npos);
  EXPECT_NE(err({"all_reduce", "--sync=1"}).find("takes no value"),
            std::string::npos);
  EXPECT_NE(err({"all_reduce", "--csv="}).find("--csv needs a file name"),
            std::string::npos);
  EXPECT_NE(err({"all_reduce", "-b", "1", "-e", "1G", "-i", "1"})
                .find("more than 10000 sizes"),
            std::string::npos);
  EXPECT_NE(err({"all_reduce", "-f", "1"}).find("greater than 1.0"),
            std::string::npos);
  EXPECT_NE(err({"all_reduce", "-f", "1.0"}).find("greater than 1.0"),
            std::string::npos);
  EXPECT_NE(err({"all_reduce", "-n", "0x10"}).find("-n 0x10"),
            std::string::npos);
  EXPECT_NE(err({"all_reduce", "stray"}).find("non-option argument 'stray'"),
            std::string::npos);
  EXPECT_NE(err({"all_reduce", "-z", "2"}).find("0 or 1"), std::string::npos);
}

// hccl_test's semantics (its common/src/hccl_test_common.cc).
TEST(HcclTestOptions, HcclTestsFlagSemantics) {
  // Sizes as strtol reads them (base 0), with one K/M/G suffix.
  EXPECT_EQ(ok({"all_reduce", "-b", "0x1000", "-e", "0x1000"}).minBytes, 4096u);
  EXPECT_EQ(ok({"all_reduce", "-b", "010", "-e", "1K"}).minBytes, 8u);
  EXPECT_EQ(ok({"all_reduce", "-b", "2k", "-e", "2k"}).minBytes, 2048u);
  // A fractional factor.
  Options f = ok({"all_reduce", "-b", "1000", "-e", "4000", "-f", "1.5"});
  EXPECT_EQ(f.stepFactor, 1.5);
  EXPECT_EQ(f.sizes(), (std::vector<uint64_t>{1000, 1500, 2250, 3375}));
  // Default step: (max - min) / 10.
  Options d = ok({"all_reduce", "-b", "1000", "-e", "2000"});
  EXPECT_FALSE(d.stepBytesGiven);
  std::vector<uint64_t> ds = d.sizes();
  ASSERT_EQ(ds.size(), 11u);
  EXPECT_EQ(ds[1], 1100u);
  EXPECT_EQ(ds.back(), 2000u);
  // -i with -f: a warning, the factor wins.
  Options both =
      ok({"all_reduce", "-b", "1K", "-e", "4K", "-i", "1K", "-f", "2"});
  ASSERT_EQ(both.warnings.size(), 1u);
  EXPECT_NE(both.warnings[0].find("[-f,--stepfactor] is enabled by default"),
            std::string::npos);
  EXPECT_EQ(both.sizes(), (std::vector<uint64_t>{1024, 2048, 4096}));
  // -i 0 and -n 0 are accepted; a step that does not grow runs once.
  Options zero =
      ok({"all_reduce", "-b", "1K", "-e", "4K", "-i", "0", "-n", "0"});
  EXPECT_EQ(zero.iters, 0);
  EXPECT_EQ(zero.sizes(), (std::vector<uint64_t>{1024}));
  EXPECT_EQ(ok({"all_reduce", "-b", "0", "-e", "8", "-f", "2"}).sizes(),
            (std::vector<uint64_t>{0}));
  // -o on a collective without reduction: hccl_test's warning.
  EXPECT_EQ(ok({"all_gather", "-o", "max"}).warnings.size(), 1u);
  EXPECT_TRUE(ok({"all_gather", "-z", "1"}).zeroCopy);
}

TEST(HcclTestOptions, SizesAlignToTheRanksAsHcclTest) {
  // -b 1K -e 1M -f 32 on 3 ranks: bounds down to multiples of 3.
  Options ag = ok({"all_gather", "-b", "1K", "-e", "1M", "-f", "32"});
  EXPECT_EQ(ag.alignedMin(3), 1023u);
  EXPECT_EQ(ag.alignedMax(3), 1048575u);
  EXPECT_EQ(ag.sizes(3), (std::vector<uint64_t>{1023, 32736, 1047552}));
  // Above 1 MiB, sizes round up to 512 * ranks.
  Options big = ok({"reduce_scatter", "-b", "3M", "-e", "4M", "-i", "1M"});
  for (uint64_t s : big.sizes(3))
    EXPECT_EQ(s % (512 * 3), 0u) << s;
  // all_reduce is not aligned.
  EXPECT_EQ(ok({"all_reduce", "-b", "1K", "-e", "1K"}).sizes(3),
            (std::vector<uint64_t>{1024}));
}

TEST(HcclTestOptions, BinaryNamesGiveTheCollective) {
  const char *argv[] = {"/opt/hccl_test/bin/all_gatherv_test", "-b", "8K"};
  ParseResult r = parseOptions(3, argv);
  ASSERT_TRUE(r.options.has_value()) << r.error;
  EXPECT_EQ(r.options->op, Op::AllGatherV);
  EXPECT_EQ(r.options->minBytes, 8192u);
  const std::pair<const char *, Op> names[] = {
      {"all_reduce_test", Op::AllReduce},
      {"all_gather_test", Op::AllGather},
      {"reduce_scatter_test", Op::ReduceScatter},
      {"reduce_scatterv_test", Op::ReduceScatterV},
      {"broadcast_test", Op::Broadcast},
      {"reduce_test", Op::Reduce},
      {"alltoall_test", Op::AllToAll},
      {"alltoallv_test", Op::AllToAllV},
      {"scatter_test", Op::Scatter},
      {"all_gatherv_test", Op::AllGatherV}};
  for (auto &[name, op] : names) {
    const char *a[] = {name};
    ParseResult p = parseOptions(1, a);
    ASSERT_TRUE(p.options.has_value()) << name << ": " << p.error;
    EXPECT_EQ(p.options->op, op) << name;
    EXPECT_EQ(std::string(binaryName(op)), name);
  }
}

} // namespace
