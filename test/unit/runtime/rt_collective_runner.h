//===- rt_collective_runner.h - One collective run, checked -----*- C++ -*-===//
//
// Runs one collective on this rank, either through the C API (the runtime
// picks the algorithm) or with an explicitly generated program of a given
// algorithm (Communicator::runProgram), in or out of place, on malloc'd or
// HcclMemAlloc'd buffers, and compares the output with the reference.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TEST_RUNTIME_RT_COLLECTIVE_RUNNER_H
#define HCCL_TEST_RUNTIME_RT_COLLECTIVE_RUNNER_H

#include "core/Communicator.h"
#include "hccl-mlir/schedule/Generate.h"
#include "rt_harness.h"
#include "rt_reference.h"

#include <cstring>
#include <memory>

namespace rtest {

using hccl::sched::Algorithm;

/// How to run: kApi = through the C API; otherwise this algorithm
/// (ranksPerServer > 0 for hierarchical).
struct AlgoChoice {
  bool api = true;
  Algorithm algo = Algorithm::Ring;
  int64_t ranksPerServer = 0;
  std::string name() const {
    if (api)
      return "api";
    std::string s = hccl::sched::algorithmName(algo);
    if (ranksPerServer)
      s += "(m=" + std::to_string(ranksPerServer) + ")";
    return s;
  }
};

/// Every explicit algorithm for collective c at p ranks, plus the API path.
inline std::vector<AlgoChoice> algoChoices(Collective c, int p) {
  std::vector<AlgoChoice> out{AlgoChoice{}};
  for (Algorithm a : hccl::sched::algorithmsFor(c)) {
    if (a == Algorithm::Hierarchical) {
      for (int m = 2; m < p; ++m)
        if (p % m == 0)
          out.push_back(AlgoChoice{false, a, m});
      continue;
    }
    out.push_back(AlgoChoice{false, a, 0});
  }
  return out;
}

/// A buffer from malloc or from HcclMemAlloc.
struct Buf {
  bool shared = false;
  void *p = nullptr;
  size_t bytes = 0;
  Buf(size_t n, bool sh) : shared(sh), bytes(n) {
    size_t alloc = n == 0 ? 1 : n;
    if (sh) {
      if (HcclMemAlloc(&p, alloc) != HCCL_SUCCESS)
        p = nullptr;
    } else {
      p = std::malloc(alloc);
    }
  }
  ~Buf() {
    if (shared)
      HcclMemFree(p);
    else
      std::free(p);
  }
  Buf(const Buf &) = delete;
  Buf &operator=(const Buf &) = delete;
  char *c() const { return static_cast<char *>(p); }
};

struct RunSpec {
  Collective coll = Collective::AllReduce;
  AlgoChoice algo;
  DataType dtype = DataType::Fp32;
  ReduceOp op = ReduceOp::Sum;
  uint64_t count = 0;
  int root = 0;
  bool inPlace = false;
  bool sharedMem = false;
  bool nullOutputOffRoot = false; ///< reduce: pass NULL recvBuf off the root
  std::string str() const {
    return std::string(hccl::sched::collectiveName(coll)) +
           " algo=" + algo.name() +
           " dtype=" + hccl::sched::dataTypeName(dtype) +
           " op=" + hccl::sched::reduceOpName(op) +
           " count=" + std::to_string(count) + " root=" + std::to_string(root) +
           (inPlace ? " in-place" : " out-of-place") +
           (sharedMem ? " HcclMemAlloc" : " malloc");
  }
};

inline bool supportsInPlace(Collective c) {
  return c != Collective::AllToAll && c != Collective::AllToAllV;
}

/// Runs one collective; "" or a description of the failure. `expect` may be
/// passed in when the caller caches references.
inline std::string runOne(HcclComm comm, int rank, int p, const RunSpec &s,
                          const Bytes *expectIn = nullptr,
                          const std::vector<bool> *maskIn = nullptr) {
  const size_t es = hccl::sched::dataTypeSize(s.dtype);
  Shape sh = shapeOf(s.coll, p, rank, s.count, s.root);
  Bytes input = makeInput(rank, sh.in, s.dtype, s.op);
  std::vector<bool> maskLocal;
  Bytes expLocal;
  const Bytes *expect = expectIn;
  const std::vector<bool> *mask = maskIn;
  if (!expect) {
    expLocal = expectedOutput(s.coll, p, rank, s.count, s.root, s.dtype, s.op,
                              &maskLocal);
    expect = &expLocal;
    mask = &maskLocal;
  }
  // Layout of in-place calls as HCCL defines it.
  size_t inBytes = sh.in * es, outBytes = sh.out * es;
  size_t blockBytes = s.count * es;
  std::unique_ptr<Buf> a, b;
  char *in = nullptr, *out = nullptr;
  if (s.inPlace) {
    size_t big = std::max(inBytes, outBytes);
    a = std::make_unique<Buf>(big, s.sharedMem);
    if (!a->p)
      return "allocation failed";
    switch (s.coll) {
    case Collective::ReduceScatter:
      in = a->c();
      out = a->c() + static_cast<size_t>(rank) * blockBytes;
      break;
    case Collective::AllGather:
      out = a->c();
      in = a->c() + static_cast<size_t>(rank) * blockBytes;
      break;
    default:
      in = out = a->c();
    }
    std::memset(a->c(), 0xA5, big);
  } else {
    a = std::make_unique<Buf>(inBytes, s.sharedMem);
    b = std::make_unique<Buf>(outBytes, s.sharedMem);
    if (!a->p || !b->p)
      return "allocation failed";
    in = a->c();
    out = b->c();
    std::memset(out, 0xA5, outBytes);
  }
  if (inBytes) // an empty input's data() may be null (memcpy's UB)
    std::memcpy(in, input.data(), inBytes);
  // Broadcast is in place in HCCL: non-roots' buffer content is ignored.
  if (s.coll == Collective::Broadcast && s.inPlace && rank != s.root)
    std::memset(in, 0x5A, inBytes);

  HcclResult rc = HCCL_SUCCESS;
  auto hdt = static_cast<HcclDataType>(s.dtype);
  auto hop = static_cast<HcclReduceOp>(s.op);
  if (s.algo.api) {
    switch (s.coll) {
    case Collective::AllReduce:
      rc = HcclAllReduce(in, out, s.count, hdt, hop, comm, nullptr);
      break;
    case Collective::ReduceScatter:
      rc = HcclReduceScatter(in, out, s.count, hdt, hop, comm, nullptr);
      break;
    case Collective::AllGather:
      rc = HcclAllGather(in, out, s.count, hdt, comm, nullptr);
      break;
    case Collective::Broadcast:
      if (!s.inPlace) {
        // HCCL's broadcast has one buffer: emulate out-of-place by
        // broadcasting in the output buffer.
        std::memcpy(out, in, inBytes);
        in = out;
      }
      rc = HcclBroadcast(in, s.count, hdt, static_cast<uint32_t>(s.root), comm,
                         nullptr);
      break;
    case Collective::Reduce:
      rc = HcclReduce(
          in, (s.nullOutputOffRoot && rank != s.root) ? nullptr : out, s.count,
          hdt, hop, static_cast<uint32_t>(s.root), comm, nullptr);
      break;
    case Collective::AllToAll:
      rc = HcclAlltoAll(in, s.count, hdt, out, s.count, hdt, comm, nullptr);
      break;
    case Collective::AllToAllV: {
      A2avLayout L = a2avLayout(rank, p, s.count);
      rc = HcclAlltoAllV(in, L.sc.data(), L.sd.data(), hdt, out, L.rc.data(),
                         L.rd.data(), hdt, comm, nullptr);
      break;
    }
    case Collective::Permute:
      return s.str() + ": permute has no HCCL API call (plans run it)";
    }
    if (rc != HCCL_SUCCESS)
      return s.str() + ": " + describe("collective", rc);
  } else {
    hccl::sched::GenerateRequest req;
    req.collective = s.coll;
    req.algorithm = s.algo.algo;
    req.ranks = p;
    req.count = static_cast<int64_t>(s.count);
    req.dtype = s.dtype;
    req.reduceOp = s.op;
    req.root = s.root;
    req.ranksPerServer = s.algo.ranksPerServer;
    if (s.coll == Collective::Permute)
      for (int r = 0; r < p; ++r)
        req.permuteTargets.push_back((r + 1) % p);
    if (s.coll == Collective::AllToAllV) {
      size_t P = static_cast<size_t>(p);
      req.sendCounts.assign(P * P, 0);
      req.sendDispls.assign(P * P, 0);
      req.recvDispls.assign(P * P, 0);
      for (int i = 0; i < p; ++i) {
        A2avLayout L = a2avLayout(i, p, s.count);
        for (int j = 0; j < p; ++j) {
          req.sendCounts[static_cast<size_t>(i) * P + static_cast<size_t>(j)] =
              static_cast<int64_t>(L.sc[static_cast<size_t>(j)]);
          req.sendDispls[static_cast<size_t>(i) * P + static_cast<size_t>(j)] =
              static_cast<int64_t>(L.sd[static_cast<size_t>(j)]);
          req.recvDispls[static_cast<size_t>(i) * P + static_cast<size_t>(j)] =
              static_cast<int64_t>(L.rd[static_cast<size_t>(j)]);
        }
      }
    }
    auto prog = hccl::sched::generate(req);
    if (!prog)
      return s.str() + ": generate: " + prog.message();
    auto *c = static_cast<hccl::rt::Communicator *>(comm);
    hccl::rt::Status st = c->runProgram(*prog, {}, in, out);
    if (!st.isOk())
      return s.str() + ": runProgram: " + st.message();
  }
  if (s.coll == Collective::Reduce && rank != s.root)
    return "";
  std::string diff = compareOutput(s.dtype, out, *expect, mask);
  if (!diff.empty())
    return s.str() + " on rank " + std::to_string(rank) + " of " +
           std::to_string(p) + ": " + diff;
  return "";
}

} // namespace rtest

#endif // HCCL_TEST_RUNTIME_RT_COLLECTIVE_RUNNER_H
