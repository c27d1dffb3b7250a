//===- Options.cpp - hccl-test's command line -----------------------------===//
#include "Options.h"

#include "CacheEvict.h"
#include "Layout.h"

#include "hccl-mlir/schedule/Types.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace hccltest {
namespace {

struct OpNameEntry {
  const char *name;
  Op op;
};
// Names as Huawei's binaries (all_reduce_test ...) and nccl-tests spell them.
const OpNameEntry kOps[] = {
    {"all_reduce", Op::AllReduce},
    {"allreduce", Op::AllReduce},
    {"all_gather", Op::AllGather},
    {"allgather", Op::AllGather},
    {"reduce_scatter", Op::ReduceScatter},
    {"reducescatter", Op::ReduceScatter},
    {"broadcast", Op::Broadcast},
    {"reduce", Op::Reduce},
    {"alltoall", Op::AllToAll},
    {"all_to_all", Op::AllToAll},
    {"alltoallv", Op::AllToAllV},
    {"all_to_allv", Op::AllToAllV},
    {"scatter", Op::Scatter},
    {"all_gatherv", Op::AllGatherV},
    {"allgatherv", Op::AllGatherV},
    {"reduce_scatterv", Op::ReduceScatterV},
    {"reducescatterv", Op::ReduceScatterV},
};
const char *const kOpList = "all_reduce, all_gather, reduce_scatter, "
                            "broadcast, reduce, alltoall, alltoallv, scatter, "
                            "all_gatherv, reduce_scatterv";

std::optional<Op> opFromName(std::string name) {
  for (char &c : name)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (name.size() > 5 && name.compare(name.size() - 5, 5, "_test") == 0)
    name.resize(name.size() - 5);
  for (const OpNameEntry &e : kOps)
    if (name == e.name)
      return e.op;
  return std::nullopt;
}

struct TypeEntry {
  const char *name;
  HcclDataType type;
  size_t size;
};
const TypeEntry kTypes[] = {
    {"int8", HCCL_DATA_TYPE_INT8, 1},     {"int16", HCCL_DATA_TYPE_INT16, 2},
    {"int32", HCCL_DATA_TYPE_INT32, 4},   {"fp16", HCCL_DATA_TYPE_FP16, 2},
    {"fp32", HCCL_DATA_TYPE_FP32, 4},     {"int64", HCCL_DATA_TYPE_INT64, 8},
    {"uint64", HCCL_DATA_TYPE_UINT64, 8}, {"uint8", HCCL_DATA_TYPE_UINT8, 1},
    {"uint16", HCCL_DATA_TYPE_UINT16, 2}, {"uint32", HCCL_DATA_TYPE_UINT32, 4},
    {"fp64", HCCL_DATA_TYPE_FP64, 8},     {"bfp16", HCCL_DATA_TYPE_BFP16, 2},
};

const char *const kReduceOps[] = {"sum", "prod", "max", "min"};

/// hccl_test's counts (-i -n -r -w -c -p): digits only, then strtol with
/// base 0, so a leading 0 reads octal as there.
std::optional<uint64_t> parseCount(const std::string &s) {
  if (s.empty() || s.size() > 19)
    return std::nullopt;
  for (char c : s)
    if (c < '0' || c > '9')
      return std::nullopt;
  errno = 0;
  char *end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  if (errno == ERANGE || *end != '\0')
    return std::nullopt; // "09": not octal
  return static_cast<uint64_t>(v);
}

std::string lower(std::string s) {
  for (char &c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string typeList() {
  std::string s;
  for (const TypeEntry &t : kTypes)
    s += (s.empty() ? "" : ", ") + std::string(t.name);
  return s;
}

} // namespace

const char *opName(Op op) {
  switch (op) {
  case Op::AllReduce:
    return "all_reduce";
  case Op::AllGather:
    return "all_gather";
  case Op::ReduceScatter:
    return "reduce_scatter";
  case Op::Broadcast:
    return "broadcast";
  case Op::Reduce:
    return "reduce";
  case Op::AllToAll:
    return "alltoall";
  case Op::AllToAllV:
    return "alltoallv";
  case Op::Scatter:
    return "scatter";
  case Op::AllGatherV:
    return "all_gatherv";
  case Op::ReduceScatterV:
    return "reduce_scatterv";
  }
  return "?";
}

const char *binaryName(Op op) {
  switch (op) {
  case Op::AllReduce:
    return "all_reduce_test";
  case Op::AllGather:
    return "all_gather_test";
  case Op::ReduceScatter:
    return "reduce_scatter_test";
  case Op::Broadcast:
    return "broadcast_test";
  case Op::Reduce:
    return "reduce_test";
  case Op::AllToAll:
    return "alltoall_test";
  case Op::AllToAllV:
    return "alltoallv_test";
  case Op::Scatter:
    return "scatter_test";
  case Op::AllGatherV:
    return "all_gatherv_test";
  case Op::ReduceScatterV:
    return "reduce_scatterv_test";
  }
  return "?";
}

bool alignsToRanks(Op op) {
  return op != Op::AllReduce && op != Op::Broadcast && op != Op::Reduce;
}

const char *dataTypeName(HcclDataType t) {
  for (const TypeEntry &e : kTypes)
    if (e.type == t)
      return e.name;
  return "?";
}

size_t dataTypeSize(HcclDataType t) {
  for (const TypeEntry &e : kTypes)
    if (e.type == t)
      return e.size;
  return 0;
}

const char *reduceOpName(HcclReduceOp op) {
  int i = static_cast<int>(op);
  return i >= 0 && i < 4 ? kReduceOps[i] : "?";
}

namespace {
constexpr uint64_t kAlignLine = 1u << 20; // hccl_test's BUF_ALGIN_LINE
constexpr uint64_t kAlignUnit = 512;      // BUF_ALGIN_SIZE

uint64_t alignDown(uint64_t x, uint32_t p) {
  uint64_t big = uint64_t(p) * kAlignUnit;
  if (x < p)
    x = p;
  return x > kAlignLine ? x / big * big : x / p * p;
}

uint64_t alignUp(uint64_t x, uint64_t unit) {
  return (x + unit - 1) / unit * unit;
}
} // namespace

uint64_t Options::alignedMin(uint32_t p) const {
  return alignsToRanks(op) ? alignDown(minBytes, p) : minBytes;
}

uint64_t Options::alignedMax(uint32_t p) const {
  return alignsToRanks(op) ? alignDown(maxBytes, p) : maxBytes;
}

std::vector<uint64_t> Options::sizes(uint32_t p) const {
  bool align = alignsToRanks(op);
  uint64_t lo = alignedMin(p), hi = alignedMax(p);
  uint64_t step = stepBytes;
  if (!stepBytesGiven)
    step = hi > lo ? (hi - lo) / 10 : 1;
  if (align)
    step = step > kAlignLine ? alignUp(step, uint64_t(p) * kAlignUnit)
                             : alignUp(step, p);
  std::vector<uint64_t> out;
  for (uint64_t s = lo; s <= hi;) {
    if (align && s > kAlignLine)
      s = alignUp(s, uint64_t(p) * kAlignUnit);
    out.push_back(s);
    uint64_t next =
        stepFactor > 1.0
            ? static_cast<uint64_t>(static_cast<double>(s) * stepFactor)
            : s + step;
    if (next <= s || out.size() > 10000)
      break; // no growth (hccl_test loops here), or overflow
    s = next;
  }
  return out;
}

std::string usage() {
  return "usage: hccl-test <collective> [options]\n"
         "       <collective>_test [options]   (hccl_test's binary names)\n"
         "  collectives: " +
         std::string(kOpList) +
         "\n"
         "  -b, --minbytes SIZE     smallest size in bytes (K/M/G, 0x.. hex), "
         "default 64M\n"
         "  -e, --maxbytes SIZE     largest size, default 64M\n"
         "  -i, --stepbytes SIZE    increment, default (max - min) / 10\n"
         "  -f, --stepfactor F      multiply the size by F (> 1.0, may be "
         "fractional); wins over -i\n"
         "  -n, --iters N           timed iterations per size, default 20\n"
         "  -w, --warmup_iters N    untimed iterations first, default 10\n"
         "  -o, --op OP             sum | prod | max | min, default sum\n"
         "  -r, --root N            root rank (broadcast, reduce, scatter), "
         "default 0\n"
         "  -d, --datatype TYPE     " +
         typeList() +
         "; default fp32\n"
         "  -c, --check 0|1         check each size's output, default 1\n"
         "  -p, --npus N            NPUs (ranks) per node; without a launcher "
         "hccl-test starts N local ranks, default 8\n"
         "  -z, --zero_copy 0|1     buffers in an HcclCommSetMemoryRange "
         "range, "
         "default 0\n"
         "  --csv FILE              also write the rows to FILE as CSV\n"
         "  --algo VALUE            HCCL_ALGO for this run (e.g. "
         "level0:ring)\n"
         "  --sync                  blocking calls (NULL stream) instead of a "
         "host stream\n"
         "  --malloc                plain heap buffers instead of "
         "HcclMemAlloc (single-copy path)\n"
         "  --gap-us N              before each iteration every rank waits N "
         "us,\n"
         "                          as between a training step's collectives; "
         "the time\n"
         "                          is then launch to completion alone (cold "
         "calls)\n"
         "  --issue host|ahead      with --gap-us: host (default) idles on "
         "the\n"
         "                          calling thread, then launches and "
         "synchronizes;\n"
         "                          ahead queues every call at once, each "
         "behind a\n"
         "                          stream task that idles the gap, and times "
         "from\n"
         "                          its end (as hccl-run --issue ahead);\n"
         "                          with --flush-mib or --evict-buffers: "
         "ahead\n"
         "                          queues every call at once, each behind a "
         "stream\n"
         "                          task that flushes or evicts and a "
         "barrier on\n"
         "                          the stream, and followed by another, so "
         "no host\n"
         "                          thread parks (a step's queue of "
         "collectives)\n"
         "  --flush-mib N           before each call every rank writes N MiB "
         "of its\n"
         "                          own, the ranks meet, and the call is timed "
         "alone:\n"
         "                          its buffers come from memory, not the "
         "caches;\n"
         "                          on one kernel from the last rank's start "
         "to "
         "the\n"
         "                          last rank's end (--issue ahead: queued, "
         "above)\n"
         "  --evict-buffers         as --flush-mib, but each rank evicts only "
         "its\n"
         "                          send and receive buffers' cache lines: the "
         "data\n"
         "                          comes from memory, the runtime's own "
         "state stays\n"
         "                          as warm as in a step's run of "
         "collectives\n"
         "                          (x86-64 and AArch64; not with --gap-us "
         "or\n"
         "                          --flush-mib)\n"
         "  -h, --help              this text\n"
         "Run under mpirun (one process per rank) or alone (hccl-test forks "
         "-p ranks).\n";
}

ParseResult parseOptions(int argc, const char *const *argv) {
  ParseResult res;
  auto fail = [&](const std::string &msg) {
    res.options.reset();
    res.error = "hccl-test: " + msg;
    return res;
  };
  Options o;
  // all_reduce_test -b 8K ...: the collective is the program's name.
  int first = 1;
  {
    std::string prog = argc > 0 && argv[0] ? argv[0] : "";
    size_t slash = prog.rfind('/');
    std::string base =
        slash == std::string::npos ? prog : prog.substr(slash + 1);
    std::optional<Op> byName =
        base.size() > 5 && base.compare(base.size() - 5, 5, "_test") == 0
            ? opFromName(base)
            : std::nullopt;
    if (byName) {
      o.op = *byName;
    } else {
      if (argc >= 2 && (std::strcmp(argv[1], "-h") == 0 ||
                        std::strcmp(argv[1], "--help") == 0)) {
        o.help = true;
        res.options = o;
        return res;
      }
      if (argc < 2 || argv[1][0] == '-')
        return fail(std::string("missing collective: expected one of ") +
                    kOpList + " (try --help)");
      std::optional<Op> op = opFromName(argv[1]);
      if (!op)
        return fail("unknown collective '" + std::string(argv[1]) +
                    "': expected one of " + kOpList);
      o.op = *op;
      first = 2;
    }
  }
  bool stepFactorGiven = false;
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    std::string flag = arg, value;
    bool hasValue = false;
    // --name=value, -bVALUE, or the value in the next argument.
    if (arg.rfind("--", 0) == 0) {
      size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        flag = arg.substr(0, eq);
        value = arg.substr(eq + 1);
        hasValue = true;
      }
    } else if (arg.size() > 2 && arg[0] == '-') {
      flag = arg.substr(0, 2);
      value = arg.substr(2);
      hasValue = true;
    } else if (arg.empty() || arg[0] != '-') {
      return fail("non-option argument '" + arg + "' (try --help)");
    }
    static const struct {
      const char *shortName, *longName;
    } kAliases[] = {
        {"-b", "--minbytes"},   {"-e", "--maxbytes"}, {"-i", "--stepbytes"},
        {"-f", "--stepfactor"}, {"-n", "--iters"},    {"-w", "--warmup_iters"},
        {"-o", "--op"},         {"-r", "--root"},     {"-d", "--datatype"},
        {"-c", "--check"},      {"-p", "--npus"},     {"-z", "--zero_copy"},
        {"-h", "--help"}};
    for (auto &a : kAliases)
      if (flag == a.longName)
        flag = a.shortName;
    if (flag == "-h") {
      o.help = true;
      continue;
    }
    if (flag == "--sync" || flag == "--malloc" || flag == "--evict-buffers") {
      if (hasValue)
        return fail(flag + " takes no value");
      (flag == "--sync"     ? o.sync
       : flag == "--malloc" ? o.useMalloc
                            : o.evictBuffers) = true;
      continue;
    }
    static const char *const kValued[] = {
        "-b",    "-e",     "-i",       "-f",      "-n",         "-w",
        "-o",    "-r",     "-d",       "-c",      "-p",         "-z",
        "--csv", "--algo", "--gap-us", "--issue", "--flush-mib"};
    bool known = false;
    for (const char *k : kValued)
      known = known || flag == k;
    if (!known)
      return fail("unknown option '" + arg + "' (try --help)");
    if (!hasValue) {
      if (i + 1 >= argc)
        return fail("option " + arg + " needs a value");
      value = argv[++i];
    }
    const std::string shown = flag + " " + value;
    auto count = [&](uint64_t lo, uint64_t hi,
                     const char *what) -> std::optional<uint64_t> {
      std::optional<uint64_t> v = parseCount(value);
      if (!v || *v < lo || *v > hi) {
        fail(shown + ": expected " + what);
        return std::nullopt;
      }
      return v;
    };
    if (flag == "-b" || flag == "-e" || flag == "-i") {
      // hccl_test's sizes: strtol with base 0, then one of K, M, G.
      std::optional<uint64_t> v =
          hccl::sched::parseByteSize(value, hccl::sched::SizeDigits::C);
      if (!v)
        return fail(shown + ": expected a size in bytes like 8192, 8K, 64M, "
                            "1G or 0x2000");
      if (flag == "-b")
        o.minBytes = *v;
      else if (flag == "-e")
        o.maxBytes = *v;
      else {
        o.stepBytes = *v; // 0 is accepted, as by hccl_test
        o.stepBytesGiven = true;
      }
    } else if (flag == "-f") {
      char *end = nullptr;
      errno = 0;
      double f = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || errno == ERANGE || !(f > 1.0) ||
          f > 1e6)
        return fail(shown + ": expected a factor greater than 1.0 (may be "
                            "fractional, e.g. 1.5)");
      o.stepFactor = f;
      stepFactorGiven = true;
    } else if (flag == "-n") {
      auto v = count(0, 1000000, "an iteration count in 0..1000000");
      if (!v)
        return res;
      o.iters = static_cast<int>(*v);
    } else if (flag == "-w") {
      auto v = count(0, 1000000, "a warm-up count in 0..1000000");
      if (!v)
        return res;
      o.warmupIters = static_cast<int>(*v);
    } else if (flag == "-o") {
      std::string l = lower(value);
      bool found = false;
      for (int k = 0; k < 4; ++k)
        if (l == kReduceOps[k]) {
          o.reduceOp = static_cast<HcclReduceOp>(k);
          found = true;
        }
      if (!found)
        return fail(shown + ": expected sum, prod, max or min");
      o.reduceOpGiven = true;
    } else if (flag == "-r") {
      auto v = count(0, UINT32_MAX - 1, "a rank number");
      if (!v)
        return res;
      o.root = static_cast<uint32_t>(*v);
    } else if (flag == "-d") {
      std::string l = lower(value);
      if (l == "bf16" || l == "bfloat16")
        l = "bfp16";
      bool found = false;
      for (const TypeEntry &t : kTypes)
        if (l == t.name) {
          o.dataType = t.type;
          found = true;
        }
      if (!found)
        return fail(shown + ": expected one of " + typeList());
    } else if (flag == "-c" || flag == "-z") {
      if (value != "0" && value != "1")
        return fail(shown + ": expected 0 or 1");
      (flag == "-c" ? o.check : o.zeroCopy) = value == "1";
    } else if (flag == "-p") {
      auto v = count(1, 4096, "a rank count in 1..4096");
      if (!v)
        return res;
      o.npus = static_cast<int>(*v);
      o.npusGiven = true;
    } else if (flag == "--csv") {
      if (value.empty())
        return fail("--csv needs a file name");
      o.csvPath = value;
    } else if (flag == "--gap-us") {
      auto v = count(0, 10000000, "microseconds in 0..10000000");
      if (!v)
        return res;
      o.gapUs = static_cast<int>(*v);
    } else if (flag == "--flush-mib") {
      auto v = count(1, 65536, "MiB in 1..65536");
      if (!v)
        return res;
      o.flushMiB = static_cast<int>(*v);
    } else if (flag == "--issue") {
      if (value != "host" && value != "ahead")
        return fail(shown + ": expected host or ahead");
      o.issueAhead = value == "ahead";
    } else if (flag == "--algo") {
      if (value.empty())
        return fail("--algo needs a value such as level0:ring");
      o.algo = value;
    }
  }
  if (o.minBytes > o.maxBytes)
    return fail("-b " + std::to_string(o.minBytes) + " is larger than -e " +
                std::to_string(o.maxBytes) +
                " (maxbytes < minbytes, as hccl_test says)");
  if (o.stepBytesGiven && stepFactorGiven)
    o.warnings.push_back("Warning: [-f,--stepfactor] and [-i,--stepbytes] "
                         "are set, [-f,--stepfactor] is enabled by default.");
  if (o.reduceOpGiven && !isReductionOp(o.op))
    o.warnings.push_back("Warning: The -o,--op <sum/prod/min/max> option "
                         "does not take effect. Check the cmd parameter.");
  // An option that changes nothing is refused, not ignored.
  if (o.issueAhead && o.gapUs == 0 && !o.fromMemory())
    return fail("--issue ahead holds each call on the stream behind the gap "
                "of --gap-us or the eviction of --flush-mib or "
                "--evict-buffers; give one of them");
  if (o.flushMiB > 0 && o.gapUs > 0)
    return fail("--flush-mib times calls from memory, --gap-us after an "
                "idle gap; give one of them");
  if (o.evictBuffers && o.gapUs > 0)
    return fail("--evict-buffers times calls from memory, --gap-us after an "
                "idle gap; give one of them");
  if (o.evictBuffers && o.flushMiB > 0)
    return fail("--evict-buffers evicts the call's buffers alone, --flush-mib "
                "every cache line; give one of them");
  if (o.evictBuffers && !cacheEvictionSupported())
    return fail("--evict-buffers: evicting cache lines is not implemented "
                "for this CPU architecture (x86-64 and AArch64 are)");
  if (o.issueAhead && o.sync)
    return fail("--issue ahead queues the calls on a stream; --sync has "
                "none");
  if (o.sizes(1).size() > 10000)
    return fail("-b/-e/-i give more than 10000 sizes; use a larger -i or -f");
  res.options = o;
  return res;
}

} // namespace hccltest
