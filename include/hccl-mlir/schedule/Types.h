//===- Types.h - Vocabulary shared by compiler and runtime ------*- C++ -*-===//
//
// The enumerations every part of hccl-mlir agrees on: data types and
// reduction operators (numbered exactly as HCCL numbers HcclDataType and
// HcclReduceOp, so the C API can cast), collectives and algorithms. Names
// here are the canonical spellings used in IR, plans and command lines.
//
// MLIR-free and LLVM-free: the runtime embeds this.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_SCHEDULE_TYPES_H
#define HCCL_MLIR_SCHEDULE_TYPES_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hccl::sched {

/// Element types, numbered as HcclDataType.
enum class DataType : int {
  Int8 = 0,
  Int16 = 1,
  Int32 = 2,
  Fp16 = 3,
  Fp32 = 4,
  Int64 = 5,
  Uint64 = 6,
  Uint8 = 7,
  Uint16 = 8,
  Uint32 = 9,
  Fp64 = 10,
  Bf16 = 11,
};
inline constexpr int kNumDataTypes = 12;

/// Size of one element in bytes; 0 for a value outside the enumeration.
size_t dataTypeSize(DataType t);
/// Canonical lower-case name: int8 ... fp32, bf16.
const char *dataTypeName(DataType t);
/// Accepts the canonical names and common aliases (f32, float32, float, half,
/// bfloat16, i32, u8, ...). Case-insensitive.
std::optional<DataType> parseDataType(std::string_view s);
bool isFloatType(DataType t);
/// Comma-separated list of canonical names, for error messages.
std::string dataTypeNameList();

/// Reduction operators, numbered as HcclReduceOp.
enum class ReduceOp : int { Sum = 0, Prod = 1, Max = 2, Min = 3 };
const char *reduceOpName(ReduceOp op);
std::optional<ReduceOp> parseReduceOp(std::string_view s);

enum class Collective : int {
  AllReduce,
  ReduceScatter,
  AllGather,
  Broadcast,
  Reduce,
  AllToAll,
  AllToAllV,
  /// Every rank sends its n elements to its target (if any) and receives
  /// its source's (StableHLO's collective_permute); a rank without source
  /// gets zeros. Tables 0 / 1: target / source of each rank, -1 for none.
  Permute,
};
inline constexpr int kNumCollectives = 8;
/// Canonical name: allreduce, reducescatter, allgather, broadcast, reduce,
/// alltoall, alltoallv, permute.
const char *collectiveName(Collective c);
/// Accepts canonical names plus the snake_case spellings (all_reduce, ...).
std::optional<Collective> parseCollective(std::string_view s);
std::string collectiveNameList();
/// True for the collectives that combine contributions with a ReduceOp.
bool isReduction(Collective c);

/// Algorithms. Names are valid MLIR bare identifiers (no '-').
enum class Algorithm : int {
  Ring,              ///< ring RS+AG (all-reduce), ring RS / AG, ring pipeline
  MeshTwoShot,       ///< full mesh: RS by direct exchange, then AG
  MeshOneShot,       ///< full mesh: everyone reads every peer, reduces locally
  RHD,               ///< recursive halving-doubling (Rabenseifner) with fold
  RecursiveDoubling, ///< lg p exchanges of the whole vector (tiny messages)
  Tree,              ///< binomial tree (broadcast / reduce)
  Star,              ///< root talks to every peer directly (mesh bcast/reduce)
  Pairwise,          ///< all-to-all: step i sends to r+i, receives from r-i
  Hierarchical,      ///< intra-server level0, inter-server level1
};
inline constexpr int kNumAlgorithms = 9;
/// Canonical names: ring, mesh, mesh_oneshot, rhd, rd, tree, star, pairwise,
/// hierarchical.
const char *algorithmName(Algorithm a);
std::optional<Algorithm> parseAlgorithm(std::string_view s);
std::string algorithmNameList();

/// How the number of a byte size is written: decimal digits (an optional B
/// may follow the unit: "8KB"), or C's integer syntax as Huawei's hccl_test
/// reads -b/-e/-i (strtoull base 0: "0x2000" hex, "010" octal; no B).
enum class SizeDigits { Decimal, C };

/// The one size parser: a number with an optional K/M/G (binary multiples,
/// either case) suffix. nullopt for negatives, garbage and overflow.
std::optional<uint64_t> parseByteSize(std::string_view s,
                                      SizeDigits digits = SizeDigits::Decimal);

} // namespace hccl::sched

#endif // HCCL_MLIR_SCHEDULE_TYPES_H
