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
  EXPECT_EQ(o.stepFactor, 2u);
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
  EXPECT_EQ(o.warmupIters, 5);
  EXPECT_EQ(o.root, 0u);
  EXPECT_TRUE(o.check);
  EXPECT_EQ(o.npus, 8);
  EXPECT_FALSE(o.npusGiven);
  EXPECT_EQ(o.sizes().size(), 1u);
}

TEST(HcclTestOptions, EveryCollectiveName) {
  const std::pair<const char *, Op> names[] = {
      {"all_reduce", Op::AllReduce},     {"all_gather", Op::AllGather},
      {"reduce_scatter", Op::ReduceScatter}, {"broadcast", Op::Broadcast},
      {"reduce", Op::Reduce},            {"alltoall", Op::AllToAll},
      {"alltoallv", Op::AllToAllV},      {"all_reduce_test", Op::AllReduce},
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
  Options o = ok({"all_reduce", "--csv", "out.csv", "--algo",
                  "level0:ring", "--sync", "--malloc"});
  EXPECT_EQ(o.csvPath, "out.csv");
  EXPECT_EQ(o.algo, "level0:ring");
  EXPECT_TRUE(o.sync);
  EXPECT_TRUE(o.useMalloc);
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
  EXPECT_NE(err({"all_reduce", "-i", "0"}).find("at least 1 byte"),
            std::string::npos);
  EXPECT_NE(err({"all_reduce", "-i", "1K", "-f", "2"}).find("exclusive"),
            std::string::npos);
  EXPECT_NE(err({"all_reduce", "-n", "0"}).find("-n 0"), std::string::npos);
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
  EXPECT_NE(err({"all_reduce", "-b"}).find("needs a value"),
            std::string::npos);
  EXPECT_NE(err({"all_reduce", "--sync=1"}).find("takes no value"),
            std::string::npos);
  EXPECT_NE(err({"all_reduce", "--csv="}).find("--csv needs a file name"),
            std::string::npos);
  EXPECT_NE(err({"all_reduce", "-b", "1", "-e", "1G", "-i", "1"})
                .find("more than 10000 sizes"),
            std::string::npos);
  EXPECT_NE(err({"all_reduce", "-b", "0", "-e", "8", "-f", "2"})
                .find("cannot grow a zero size"),
            std::string::npos);
}

} // namespace
