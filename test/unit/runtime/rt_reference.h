//===- rt_reference.h - Inputs and expected outputs of collectives -*- C++
//-*-=//
//
// Every rank can compute every rank's input (a deterministic function of
// rank, index, type and operator), so each rank checks its own output
// against a reference computed locally, without trusting the runtime.
// Inputs are small integers: sums stay below 64 in magnitude and products
// are +-powers of two up to 2^8, which every type (fp16, bf16 included)
// represents exactly, so results are compared element-exact. Integer
// overflow wraps, as the kernels define; the reference wraps identically.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TEST_RUNTIME_RT_REFERENCE_H
#define HCCL_TEST_RUNTIME_RT_REFERENCE_H

#include "hccl-mlir/schedule/Types.h"
#include "reduce_reference.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rtest {

using hccl::sched::Collective;
using hccl::sched::DataType;
using hccl::sched::ReduceOp;
using Bytes = std::vector<unsigned char>;

inline bool isUnsigned(DataType t) {
  return t == DataType::Uint8 || t == DataType::Uint16 ||
         t == DataType::Uint32 || t == DataType::Uint64;
}

/// The small integer rank `r` contributes at index i.
inline int smallValue(int r, uint64_t i, DataType t, ReduceOp op) {
  uint64_t h = (static_cast<uint64_t>(r) * 7919u + i * 104729u) ^ (i >> 3);
  if (op == ReduceOp::Prod) {
    int v = (h % 3 == 0) ? 2 : 1;
    if (!isUnsigned(t) && (h / 3) % 2)
      v = -v;
    return v;
  }
  int v = static_cast<int>(h % 9); // 0..8
  return isUnsigned(t) ? v : v - 4;
}

/// Writes the value v as element i of an array of type t.
inline void storeValue(void *p, size_t i, DataType t, double v) {
  using namespace reftest;
  switch (t) {
  case DataType::Int8:
    store<int8_t>(p, i, static_cast<int8_t>(v));
    break;
  case DataType::Int16:
    store<int16_t>(p, i, static_cast<int16_t>(v));
    break;
  case DataType::Int32:
    store<int32_t>(p, i, static_cast<int32_t>(v));
    break;
  case DataType::Int64:
    store<int64_t>(p, i, static_cast<int64_t>(v));
    break;
  case DataType::Uint8:
    store<uint8_t>(p, i, static_cast<uint8_t>(v));
    break;
  case DataType::Uint16:
    store<uint16_t>(p, i, static_cast<uint16_t>(v));
    break;
  case DataType::Uint32:
    store<uint32_t>(p, i, static_cast<uint32_t>(v));
    break;
  case DataType::Uint64:
    store<uint64_t>(p, i, static_cast<uint64_t>(v));
    break;
  case DataType::Fp32:
    store<float>(p, i, static_cast<float>(v));
    break;
  case DataType::Fp64:
    store<double>(p, i, v);
    break;
  case DataType::Fp16:
    store<uint16_t>(p, i, static_cast<uint16_t>(kHalf.encode(v)));
    break;
  case DataType::Bf16:
    store<uint16_t>(p, i, static_cast<uint16_t>(kBf16.encode(v)));
    break;
  }
}

/// Rank r's input of `elems` elements.
inline Bytes makeInput(int r, size_t elems, DataType t, ReduceOp op) {
  Bytes b(elems * hccl::sched::dataTypeSize(t));
  for (size_t i = 0; i < elems; ++i)
    storeValue(b.data(), i, t, smallValue(r, i, t, op));
  return b;
}

/// acc = acc op x, elementwise over n elements starting at element offsets.
inline void reduceInto(Bytes &acc, size_t accOff, const Bytes &x, size_t xOff,
                       size_t n, DataType t, ReduceOp op) {
  size_t es = hccl::sched::dataTypeSize(t);
  reftest::refReduce(t, op, acc.data() + accOff * es, x.data() + xOff * es,
                     acc.data() + accOff * es, n);
}

/// Element counts of all-to-all-v: what rank i sends to rank j (zeros
/// included), and the displacements (gaps between blocks on purpose).
inline uint64_t a2avCount(int i, int j, uint64_t base) {
  return (base == 0)
             ? 0
             : ((static_cast<uint64_t>(i) * 3 + static_cast<uint64_t>(j) * 5) %
                            4 ==
                        0
                    ? 0
                    : base + static_cast<uint64_t>((i + 2 * j) % 5));
}
struct A2avLayout {
  std::vector<uint64_t> sc, sd, rc, rd; ///< this rank's four arrays
  uint64_t sendExtent = 0, recvExtent = 0;
};
inline A2avLayout a2avLayout(int r, int p, uint64_t base) {
  A2avLayout L;
  uint64_t off = 0;
  for (int j = 0; j < p; ++j) {
    L.sc.push_back(a2avCount(r, j, base));
    L.sd.push_back(off);
    off += L.sc.back() + 1; // one-element gap
  }
  L.sendExtent = off;
  off = 0;
  for (int j = 0; j < p; ++j) {
    L.rc.push_back(a2avCount(j, r, base));
    L.rd.push_back(off);
    off += L.rc.back() + 2;
  }
  L.recvExtent = off;
  return L;
}

/// Input/output sizes in elements of rank r for a collective of count n.
struct Shape {
  size_t in = 0, out = 0;
};
inline Shape shapeOf(Collective c, int p, int r, uint64_t n, int root) {
  size_t P = static_cast<size_t>(p);
  switch (c) {
  case Collective::AllReduce:
  case Collective::Broadcast:
    return {n, n};
  case Collective::Reduce:
    return {n, n};
  case Collective::ReduceScatter:
    return {P * n, n};
  case Collective::AllGather:
    return {n, P * n};
  case Collective::AllToAll:
    return {P * n, P * n};
  case Collective::AllToAllV: {
    A2avLayout L = a2avLayout(r, p, n);
    return {L.sendExtent, L.recvExtent};
  }
  case Collective::Permute:
    return {n, n};
  }
  return {};
}

/// The output rank r must hold (for reduce on a non-root: empty). Regions
/// of all-to-all-v output outside the received blocks are not compared;
/// `mask` marks the compared elements.
inline Bytes expectedOutput(Collective c, int p, int r, uint64_t n, int root,
                            DataType t, ReduceOp op,
                            std::vector<bool> *mask = nullptr) {
  size_t es = hccl::sched::dataTypeSize(t);
  auto input = [&](int q) {
    return makeInput(q, shapeOf(c, p, q, n, root).in, t, op);
  };
  Shape s = shapeOf(c, p, r, n, root);
  Bytes out(s.out * es);
  if (mask)
    mask->assign(s.out, true);
  switch (c) {
  case Collective::AllReduce: {
    out = input(0);
    for (int q = 1; q < p; ++q)
      reduceInto(out, 0, input(q), 0, n, t, op);
    break;
  }
  case Collective::Reduce: {
    if (r != root)
      return {};
    out = input(0);
    for (int q = 1; q < p; ++q)
      reduceInto(out, 0, input(q), 0, n, t, op);
    break;
  }
  case Collective::Broadcast:
    out = input(root);
    break;
  case Collective::ReduceScatter: {
    Bytes first = input(0);
    std::copy(first.begin() + static_cast<long>(r * n * es),
              first.begin() + static_cast<long>((r + 1) * n * es), out.begin());
    for (int q = 1; q < p; ++q)
      reduceInto(out, 0, input(q), static_cast<size_t>(r) * n, n, t, op);
    break;
  }
  case Collective::AllGather:
    for (int q = 0; q < p; ++q) {
      Bytes in = input(q);
      std::copy(in.begin(), in.end(),
                out.begin() + static_cast<long>(q * n * es));
    }
    break;
  case Collective::AllToAll:
    for (int q = 0; q < p; ++q) {
      Bytes in = input(q);
      std::copy(in.begin() + static_cast<long>(r * n * es),
                in.begin() + static_cast<long>((r + 1) * n * es),
                out.begin() + static_cast<long>(q * n * es));
    }
    break;
  case Collective::Permute: // the shift r -> r + 1 (rt_collective_runner.h)
    out = input((r + p - 1) % p);
    break;
  case Collective::AllToAllV: {
    A2avLayout me = a2avLayout(r, p, n);
    if (mask)
      mask->assign(s.out, false);
    for (int q = 0; q < p; ++q) {
      A2avLayout L = a2avLayout(q, p, n);
      Bytes in = input(q);
      uint64_t cnt = L.sc[static_cast<size_t>(r)];
      std::copy(
          in.begin() + static_cast<long>(L.sd[static_cast<size_t>(r)] * es),
          in.begin() +
              static_cast<long>((L.sd[static_cast<size_t>(r)] + cnt) * es),
          out.begin() + static_cast<long>(me.rd[static_cast<size_t>(q)] * es));
      if (mask)
        for (uint64_t k = 0; k < cnt; ++k)
          (*mask)[me.rd[static_cast<size_t>(q)] + k] = true;
    }
    break;
  }
  }
  return out;
}

/// "" when `got` matches `want` on the masked elements, else where and how.
inline std::string compareOutput(DataType t, const void *got, const Bytes &want,
                                 const std::vector<bool> *mask = nullptr) {
  size_t es = hccl::sched::dataTypeSize(t);
  size_t n = want.size() / es;
  for (size_t i = 0; i < n; ++i) {
    if (mask && !(*mask)[i])
      continue;
    if (reftest::firstMismatch(t, static_cast<const char *>(got) + i * es,
                               want.data() + i * es, 1) == 0) {
      std::string gh, wh;
      char buf[8];
      for (size_t k = 0; k < es; ++k) {
        snprintf(buf, sizeof(buf), "%02x",
                 static_cast<const unsigned char *>(got)[i * es + k]);
        gh += buf;
        snprintf(buf, sizeof(buf), "%02x", want[i * es + k]);
        wh += buf;
      }
      return "element " + std::to_string(i) + " of " + std::to_string(n) +
             ": got 0x" + gh + ", want 0x" + wh;
    }
  }
  return "";
}

} // namespace rtest

#endif // HCCL_TEST_RUNTIME_RT_REFERENCE_H
