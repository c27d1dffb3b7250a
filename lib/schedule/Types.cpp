//===- Types.cpp - Names and parsing of the shared vocabulary -------------===//
#include "hccl-mlir/schedule/Types.h"

#include <algorithm>
#include <cctype>
#include <limits>

namespace hccl::sched {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char &c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

template <typename Enum, size_t N>
std::string joinNames(const char *const (&names)[N]) {
  std::string out;
  for (size_t i = 0; i < N; ++i) {
    if (i)
      out += ", ";
    out += names[i];
  }
  return out;
}

const char *const kDataTypeNames[kNumDataTypes] = {
    "int8",   "int16", "int32",  "fp16",   "fp32", "int64",
    "uint64", "uint8", "uint16", "uint32", "fp64", "bf16"};
const size_t kDataTypeSizes[kNumDataTypes] = {1, 2, 4, 2, 4, 8,
                                              8, 1, 2, 4, 8, 2};
const char *const kReduceOpNames[4] = {"sum", "prod", "max", "min"};
const char *const kCollectiveNames[kNumCollectives] = {
    "allreduce", "reducescatter", "allgather", "broadcast",
    "reduce",    "alltoall",      "alltoallv", "permute"};
const char *const kCollectiveSnake[kNumCollectives] = {
    "all_reduce", "reduce_scatter", "all_gather",  "broadcast",
    "reduce",     "all_to_all",     "all_to_allv", "collective_permute"};
const char *const kAlgorithmNames[kNumAlgorithms] = {
    "ring", "mesh", "mesh_oneshot", "rhd",         "rd",
    "tree", "star", "pairwise",     "hierarchical"};

} // namespace

size_t dataTypeSize(DataType t) {
  int i = static_cast<int>(t);
  return (i >= 0 && i < kNumDataTypes) ? kDataTypeSizes[i] : 0;
}

const char *dataTypeName(DataType t) {
  int i = static_cast<int>(t);
  return (i >= 0 && i < kNumDataTypes) ? kDataTypeNames[i] : "invalid";
}

std::optional<DataType> parseDataType(std::string_view s) {
  std::string l = lower(s);
  for (int i = 0; i < kNumDataTypes; ++i)
    if (l == kDataTypeNames[i])
      return static_cast<DataType>(i);
  static const std::pair<const char *, DataType> aliases[] = {
      {"i8", DataType::Int8},       {"i16", DataType::Int16},
      {"i32", DataType::Int32},     {"i64", DataType::Int64},
      {"u8", DataType::Uint8},      {"u16", DataType::Uint16},
      {"u32", DataType::Uint32},    {"u64", DataType::Uint64},
      {"ui8", DataType::Uint8},     {"ui16", DataType::Uint16},
      {"ui32", DataType::Uint32},   {"ui64", DataType::Uint64},
      {"f16", DataType::Fp16},      {"half", DataType::Fp16},
      {"float16", DataType::Fp16},  {"f32", DataType::Fp32},
      {"float", DataType::Fp32},    {"float32", DataType::Fp32},
      {"f64", DataType::Fp64},      {"double", DataType::Fp64},
      {"float64", DataType::Fp64},  {"bfp16", DataType::Bf16},
      {"bfloat16", DataType::Bf16}, {"int", DataType::Int32},
  };
  for (auto &[name, t] : aliases)
    if (l == name)
      return t;
  return std::nullopt;
}

bool isFloatType(DataType t) {
  return t == DataType::Fp16 || t == DataType::Fp32 || t == DataType::Fp64 ||
         t == DataType::Bf16;
}

std::string dataTypeNameList() { return joinNames<DataType>(kDataTypeNames); }

const char *reduceOpName(ReduceOp op) {
  int i = static_cast<int>(op);
  return (i >= 0 && i < 4) ? kReduceOpNames[i] : "invalid";
}

std::optional<ReduceOp> parseReduceOp(std::string_view s) {
  std::string l = lower(s);
  for (int i = 0; i < 4; ++i)
    if (l == kReduceOpNames[i])
      return static_cast<ReduceOp>(i);
  if (l == "add")
    return ReduceOp::Sum;
  if (l == "mul" || l == "product")
    return ReduceOp::Prod;
  return std::nullopt;
}

const char *collectiveName(Collective c) {
  int i = static_cast<int>(c);
  return (i >= 0 && i < kNumCollectives) ? kCollectiveNames[i] : "invalid";
}

std::optional<Collective> parseCollective(std::string_view s) {
  std::string l = lower(s);
  for (int i = 0; i < kNumCollectives; ++i)
    if (l == kCollectiveNames[i] || l == kCollectiveSnake[i])
      return static_cast<Collective>(i);
  return std::nullopt;
}

std::string collectiveNameList() {
  return joinNames<Collective>(kCollectiveNames);
}

bool isReduction(Collective c) {
  return c == Collective::AllReduce || c == Collective::ReduceScatter ||
         c == Collective::Reduce;
}

const char *algorithmName(Algorithm a) {
  int i = static_cast<int>(a);
  return (i >= 0 && i < kNumAlgorithms) ? kAlgorithmNames[i] : "invalid";
}

std::optional<Algorithm> parseAlgorithm(std::string_view s) {
  std::string l = lower(s);
  for (int i = 0; i < kNumAlgorithms; ++i)
    if (l == kAlgorithmNames[i])
      return static_cast<Algorithm>(i);
  return std::nullopt;
}

std::string algorithmNameList() {
  return joinNames<Algorithm>(kAlgorithmNames);
}

std::optional<uint64_t> parseByteSize(std::string_view s, SizeDigits digits) {
  auto upper = [](char c) {
    return static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  };
  // "8KB" as well as "8K"; in C syntax B is a hex digit.
  if (digits == SizeDigits::Decimal && s.size() > 1 && upper(s.back()) == 'B')
    s.remove_suffix(1);
  uint64_t mult = 1;
  if (!s.empty()) {
    char last = upper(s.back());
    if (last == 'K' || last == 'M' || last == 'G') {
      mult = last == 'K'   ? (1ull << 10)
             : last == 'M' ? (1ull << 20)
                           : (1ull << 30);
      s.remove_suffix(1);
    }
  }
  uint64_t base = 10;
  if (digits == SizeDigits::C && s.size() > 1 && s[0] == '0') {
    bool hex = s[1] == 'x' || s[1] == 'X';
    base = hex ? 16 : 8;
    s.remove_prefix(hex ? 2 : 1);
  }
  if (s.empty())
    return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    char u = upper(c);
    uint64_t d = u >= '0' && u <= '9'   ? static_cast<uint64_t>(u - '0')
                 : u >= 'A' && u <= 'F' ? static_cast<uint64_t>(u - 'A' + 10)
                                        : base;
    if (d >= base)
      return std::nullopt;
    if (v > (std::numeric_limits<uint64_t>::max() - d) / base)
      return std::nullopt;
    v = v * base + d;
  }
  if (v > std::numeric_limits<uint64_t>::max() / mult)
    return std::nullopt;
  return v * mult;
}

} // namespace hccl::sched
