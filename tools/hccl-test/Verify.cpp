//===- Verify.cpp - Filling inputs and checking outputs -------------------===//
#include "Verify.h"

#include <cstdio>
#include <cstring>

namespace hccltest {
namespace {

std::string hexBytes(const unsigned char *p, size_t n) {
  static const char *hex = "0123456789abcdef";
  std::string s = "0x";
  for (size_t i = n; i-- > 0;) {
    s += hex[p[i] >> 4];
    s += hex[p[i] & 15];
  }
  return s;
}

class Checker {
public:
  Checker(const DataGen &gen, const void *recv)
      : gen_(gen), recv_(static_cast<const unsigned char *>(recv)),
        size_(gen.elemSize()) {}

  void expectValue(uint64_t index, const Value &v) {
    unsigned char want[8];
    gen_.store(want, 0, v);
    compare(index, want);
  }
  void expectPoison(uint64_t index) {
    unsigned char want[8];
    std::memset(want, kPoison, sizeof(want));
    compare(index, want);
  }
  Mismatches take() { return std::move(m_); }

private:
  void compare(uint64_t index, const unsigned char *want) {
    const unsigned char *got = recv_ + index * size_;
    if (std::memcmp(got, want, size_) == 0)
      return;
    if (++m_.count <= 3)
      m_.first.push_back("element " + std::to_string(index) + " is " +
                         hexBytes(got, size_) + ", expected " +
                         hexBytes(want, size_));
  }
  const DataGen &gen_;
  const unsigned char *recv_;
  size_t size_;
  Mismatches m_;
};

/// fold over ranks q of input(q, index), in rank order.
Value reduced(const DataGen &gen, uint32_t nRanks, uint64_t index) {
  Value acc = gen.input(0, index);
  for (uint32_t q = 1; q < nRanks; ++q)
    acc = gen.combine(acc, gen.input(q, index));
  return acc;
}

} // namespace

void fillBuffers(const RankContext &ctx, const Layout &l, const DataGen &gen,
                 void *send, void *recv) {
  size_t sz = gen.elemSize();
  if (recv)
    std::memset(recv, kPoison, l.recvElems * sz);
  if (ctx.op == Op::Broadcast && ctx.inPlaceBroadcast) {
    if (ctx.rank == ctx.root)
      gen.fill(recv, ctx.rank, 0, l.count);
    return;
  }
  gen.fill(send, ctx.rank, 0, l.sendElems);
}

Mismatches verifyBuffers(const RankContext &ctx, const Layout &l,
                         const DataGen &gen, const void *recv) {
  Checker c(gen, recv);
  const uint64_t n = l.count;
  switch (ctx.op) {
  case Op::AllReduce:
    for (uint64_t i = 0; i < n; ++i)
      c.expectValue(i, reduced(gen, ctx.nRanks, i));
    break;
  case Op::Reduce:
    if (ctx.rank == ctx.root)
      for (uint64_t i = 0; i < n; ++i)
        c.expectValue(i, reduced(gen, ctx.nRanks, i));
    break;
  case Op::Broadcast:
    for (uint64_t i = 0; i < n; ++i)
      c.expectValue(i, gen.input(ctx.root, i));
    break;
  case Op::Scatter:
    for (uint64_t i = 0; i < n; ++i)
      c.expectValue(i, gen.input(ctx.root, ctx.rank * n + i));
    break;
  case Op::AllGather:
  case Op::AllGatherV:
    for (uint32_t q = 0; q < ctx.nRanks; ++q)
      for (uint64_t i = 0; i < n; ++i)
        c.expectValue(q * n + i, gen.input(q, i));
    break;
  case Op::ReduceScatter:
  case Op::ReduceScatterV:
    for (uint64_t i = 0; i < n; ++i)
      c.expectValue(i, reduced(gen, ctx.nRanks, ctx.rank * n + i));
    break;
  case Op::AllToAll:
    for (uint32_t q = 0; q < ctx.nRanks; ++q)
      for (uint64_t i = 0; i < n; ++i)
        c.expectValue(q * n + i, gen.input(q, ctx.rank * n + i));
    break;
  case Op::AllToAllV:
    for (uint32_t q = 0; q < ctx.nRanks; ++q) {
      // Where q put the block for this rank: q's own send displacement.
      uint64_t sdispl = 0;
      for (uint32_t j = 0; j < ctx.rank; ++j)
        sdispl += alltoallvCount(n, q, j) + 1;
      for (uint64_t i = 0; i < l.recvCounts[q]; ++i)
        c.expectValue(l.rdispls[q] + i, gen.input(q, sdispl + i));
      c.expectPoison(l.rdispls[q] + l.recvCounts[q]); // the gap after it
    }
    break;
  }
  return c.take();
}

} // namespace hccltest
