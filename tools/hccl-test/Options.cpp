//===- Options.cpp - hccl-test's command line -----------------------------===//
#include "Options.h"

#include <cctype>
#include <cstring>

namespace hccltest {
namespace {

struct OpNameEntry {
  const char *name;
  Op op;
};
// Names as Huawei's binaries (all_reduce_test ...) and nccl-tests spell them.
const OpNameEntry kOps[] = {
    {"all_reduce", Op::AllReduce},         {"allreduce", Op::AllReduce},
    {"all_gather", Op::AllGather},         {"allgather", Op::AllGather},
    {"reduce_scatter", Op::ReduceScatter}, {"reducescatter", Op::ReduceScatter},
    {"broadcast", Op::Broadcast},          {"reduce", Op::Reduce},
    {"alltoall", Op::AllToAll},            {"all_to_all", Op::AllToAll},
    {"alltoallv", Op::AllToAllV},          {"all_to_allv", Op::AllToAllV},
};

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

std::optional<uint64_t> parseUnsigned(const std::string &s) {
  if (s.empty() || s.size() > 20)
    return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return std::nullopt;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10)
      return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

/// "8192", "8K", "64M", "1G" (binary multiples, as hccl_test).
std::optional<uint64_t> parseSize(std::string s) {
  uint64_t mult = 1;
  if (!s.empty()) {
    switch (std::toupper(static_cast<unsigned char>(s.back()))) {
    case 'K':
      mult = 1ull << 10;
      break;
    case 'M':
      mult = 1ull << 20;
      break;
    case 'G':
      mult = 1ull << 30;
      break;
    default:
      break;
    }
    if (mult != 1)
      s.pop_back();
  }
  std::optional<uint64_t> v = parseUnsigned(s);
  if (!v || *v > UINT64_MAX / mult)
    return std::nullopt;
  return *v * mult;
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
  }
  return "?";
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

std::vector<uint64_t> Options::sizes() const {
  std::vector<uint64_t> out;
  uint64_t s = minBytes;
  while (s <= maxBytes) {
    out.push_back(s);
    uint64_t next = stepFactor > 1 ? s * stepFactor : s + stepBytes;
    if (next <= s || (stepFactor > 1 && next / stepFactor != s))
      break; // overflow, or a zero size that a factor cannot grow
    s = next;
  }
  return out;
}

std::string usage() {
  return "usage: hccl-test <collective> [options]\n"
         "  collectives: all_reduce all_gather reduce_scatter broadcast "
         "reduce alltoall alltoallv\n"
         "  -b, --minbytes SIZE     smallest size (K/M/G suffixes), default "
         "64M\n"
         "  -e, --maxbytes SIZE     largest size, default 64M\n"
         "  -i, --stepbytes SIZE    size increment when -f is 1, default 1M\n"
         "  -f, --stepfactor N      multiply the size by N (N > 1), default "
         "1\n"
         "  -n, --iters N           timed iterations per size, default 20\n"
         "  -w, --warmup_iters N    untimed iterations first, default 5\n"
         "  -o, --op OP             sum | prod | max | min, default sum\n"
         "  -r, --root N            root rank (broadcast, reduce), default 0\n"
         "  -d, --datatype TYPE     " +
         typeList() +
         "; default fp32\n"
         "  -c, --check 0|1         check each size's output against a local reference, "
         "default 1\n"
         "  -p, --npus N            ranks per node; without a launcher "
         "hccl-test starts N local ranks, default 8\n"
         "  --csv FILE              also write the rows to FILE as CSV\n"
         "  --algo VALUE            HCCL_ALGO for this run (e.g. "
         "level0:ring)\n"
         "  --sync                  blocking calls (NULL stream) instead of a "
         "host stream\n"
         "  --malloc                plain heap buffers instead of "
         "HcclMemAlloc (single-copy path)\n"
         "  -h, --help              this text\n"
         "Run under mpirun (one process per rank) or alone (hccl-test forks "
         "-p ranks).\n"
         "data_size: bytes of the larger per-rank buffer (all_gather: output, "
         "reduce_scatter/alltoall: input), as nccl-tests.\n";
}

ParseResult parseOptions(int argc, const char *const *argv) {
  ParseResult res;
  auto fail = [&](const std::string &msg) {
    res.options.reset();
    res.error = "hccl-test: " + msg;
    return res;
  };
  Options o;
  int i = 1;
  if (argc >= 2 && (std::strcmp(argv[1], "-h") == 0 ||
                    std::strcmp(argv[1], "--help") == 0)) {
    o.help = true;
    res.options = o;
    return res;
  }
  if (argc < 2 || argv[1][0] == '-')
    return fail("missing collective: expected one of all_reduce, all_gather, "
                "reduce_scatter, broadcast, reduce, alltoall, alltoallv "
                "(try --help)");
  {
    std::string name = lower(argv[1]);
    // Accept Huawei's binary names too: all_reduce_test.
    if (name.size() > 5 && name.compare(name.size() - 5, 5, "_test") == 0)
      name.resize(name.size() - 5);
    bool found = false;
    for (const OpNameEntry &e : kOps)
      if (name == e.name) {
        o.op = e.op;
        found = true;
      }
    if (!found)
      return fail("unknown collective '" + std::string(argv[1]) +
                  "': expected one of all_reduce, all_gather, "
                  "reduce_scatter, broadcast, reduce, alltoall, alltoallv");
  }
  bool stepBytesGiven = false, stepFactorGiven = false;
  for (i = 2; i < argc; ++i) {
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
    }
    static const struct {
      const char *shortName, *longName;
    } kAliases[] = {{"-b", "--minbytes"},    {"-e", "--maxbytes"},
                    {"-i", "--stepbytes"},   {"-f", "--stepfactor"},
                    {"-n", "--iters"},       {"-w", "--warmup_iters"},
                    {"-o", "--op"},          {"-r", "--root"},
                    {"-d", "--datatype"},    {"-c", "--check"},
                    {"-p", "--npus"},        {"-h", "--help"}};
    for (auto &a : kAliases)
      if (flag == a.longName)
        flag = a.shortName;
    if (flag == "-h") {
      o.help = true;
      continue;
    }
    if (flag == "--sync" || flag == "--malloc") {
      if (hasValue)
        return fail(flag + " takes no value");
      (flag == "--sync" ? o.sync : o.useMalloc) = true;
      continue;
    }
    static const char *const kValued[] = {"-b", "-e", "-i", "-f", "-n",
                                          "-w", "-o", "-r", "-d", "-c",
                                          "-p", "--csv", "--algo"};
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
    auto intFlag = [&](uint64_t lo, uint64_t hi,
                       const char *what) -> std::optional<uint64_t> {
      std::optional<uint64_t> v = parseUnsigned(value);
      if (!v || *v < lo || *v > hi) {
        fail(shown + ": expected " + what);
        return std::nullopt;
      }
      return v;
    };
    if (flag == "-b" || flag == "-e" || flag == "-i") {
      std::optional<uint64_t> v = parseSize(value);
      if (!v)
        return fail(shown + ": expected a size in bytes like 8192, 8K, 64M "
                            "or 1G");
      if (flag == "-b")
        o.minBytes = *v;
      else if (flag == "-e")
        o.maxBytes = *v;
      else {
        if (*v == 0)
          return fail(shown + ": the step must be at least 1 byte");
        o.stepBytes = *v;
        stepBytesGiven = true;
      }
    } else if (flag == "-f") {
      auto v = intFlag(1, 1024, "an integer factor in 1..1024");
      if (!v)
        return res;
      o.stepFactor = *v;
      stepFactorGiven = true;
    } else if (flag == "-n") {
      auto v = intFlag(1, 1000000, "an iteration count in 1..1000000");
      if (!v)
        return res;
      o.iters = static_cast<int>(*v);
    } else if (flag == "-w") {
      auto v = intFlag(0, 1000000, "a warm-up count in 0..1000000");
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
    } else if (flag == "-r") {
      auto v = intFlag(0, UINT32_MAX - 1, "a rank number");
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
    } else if (flag == "-c") {
      if (value != "0" && value != "1")
        return fail(shown + ": expected 0 or 1");
      o.check = value == "1";
    } else if (flag == "-p") {
      auto v = intFlag(1, 4096, "a rank count in 1..4096");
      if (!v)
        return res;
      o.npus = static_cast<int>(*v);
      o.npusGiven = true;
    } else if (flag == "--csv") {
      if (value.empty())
        return fail("--csv needs a file name");
      o.csvPath = value;
    } else if (flag == "--algo") {
      if (value.empty())
        return fail("--algo needs a value such as level0:ring");
      o.algo = value;
    }
  }
  if (o.minBytes > o.maxBytes)
    return fail("-b " + std::to_string(o.minBytes) + " is larger than -e " +
                std::to_string(o.maxBytes));
  if (stepBytesGiven && stepFactorGiven && o.stepFactor > 1)
    return fail("-i and -f are exclusive: give a step in bytes or a factor");
  if (o.stepFactor > 1 && o.minBytes == 0 && o.maxBytes > 0)
    return fail("-b 0 with -f: a factor cannot grow a zero size; use -b >= 1");
  if (o.sizes().size() > 10000)
    return fail("-b/-e/-i give more than 10000 sizes; use a larger -i or -f");
  res.options = o;
  return res;
}

} // namespace hccltest
