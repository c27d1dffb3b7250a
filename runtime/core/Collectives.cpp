//===- Collectives.cpp - Collective entry points and program choice -------===//
//
// Each collective becomes a (cached) step program: the algorithm comes from
// lib/schedule's selection (cost model, or HCCL_ALGO), the program from its
// generator, expanded for this rank. Point-to-point calls bypass programs.
//
//===----------------------------------------------------------------------===//
#include "common/Log.h"
#include "common/SharedMem.h"
#include "core/Communicator.h"
#include "core/LocalWork.h"
#include "transport/shm/Segment.h"

#include <algorithm>
#include <cstring>

namespace hccl::rt {

namespace {
constexpr size_t kNetPieceBytes = 8u << 20; ///< see runCollective
} // namespace

CallId Communicator::nextCall(CallKind kind, uint64_t count, sched::DataType dt,
                              sched::ReduceOp op, uint32_t root,
                              sched::Algorithm algo, uint64_t extra) {
  CallId c;
  c.seq = ++collSeq_;
  c.count = count;
  c.extra = extra;
  c.root = root;
  c.kind = kind;
  c.dtype = static_cast<uint8_t>(dt);
  c.op = static_cast<uint8_t>(op);
  c.algo = static_cast<uint8_t>(algo);
  return c;
}

StatusOr<std::shared_ptr<const CompiledProgram>>
Communicator::programFor(const ProgramKey &key,
                         const sched::GenerateRequest &reqIn) {
  // Training repeats one call: the last program is checked before the
  // cache's hash and LRU (docs/performance.md, "Small calls' own costs").
  if (lastProgram_ && key == lastKey_)
    return lastProgram_;
  if (auto hit = cache_.get(key)) {
    lastKey_ = key;
    lastProgram_ = hit;
    return hit;
  }
  sched::GenerateRequest req = reqIn;
  size_t es = sched::dataTypeSize(req.dtype);
  uint64_t bytes = static_cast<uint64_t>(req.count) * es;
  auto choice = policy_.choose(req.collective, bytes, es);
  if (!choice)
    return choice.status();
  req.algorithm = choice->algorithm;
  req.level0 = choice->level0;
  req.level1 = choice->level1;
  // The ranks of level 0: a server's, or with a split at the super pod
  // (as the compiler lowers it) a pod's.
  req.ranksPerServer = choice->podSplit ? policy_.placement().ranksPerPod
                                        : policy_.placement().levelRanks();
  req.slices = 1;
  auto prog = sched::generate(req);
  // Falling back is only safe where every rank sees the same request;
  // all-to-all-v tables are per rank.
  if (!prog && req.collective != sched::Collective::AllToAllV) {
    // The cost model may pick an algorithm whose generator rejects this
    // shape (e.g. hierarchical on a non-uniform layout): fall back to the
    // first algorithm that serves it.
    std::string first = prog.message();
    for (sched::Algorithm a : sched::algorithmsFor(req.collective)) {
      if (a == sched::Algorithm::Hierarchical)
        continue;
      req.algorithm = a;
      prog = sched::generate(req);
      if (prog)
        break;
    }
    if (!prog)
      return errInternal(std::string("cannot generate a program for ") +
                         sched::collectiveName(req.collective) + ": " + first);
    HCCL_LOG(Debug, "generator refused the selected algorithm (" + first +
                        "); using " + sched::algorithmName(req.algorithm));
  }
  if (!prog)
    return errInternal(std::string("cannot generate a program for ") +
                       sched::collectiveName(req.collective) + ": " +
                       prog.message());
  auto cp = std::make_shared<CompiledProgram>();
  cp->prog = prog.take();
  auto rp = sched::expandRank(cp->prog, rank_);
  if (!rp)
    return errInternal("expanding the " +
                       std::string(sched::collectiveName(req.collective)) +
                       " program: " + rp.message());
  cp->rp = rp.take();
  HCCL_RT_TRY(validateRankProgram(cp->rp, size_));
  cp->reader = findReaders(cp->rp);
  cp->elemBytes = es;
  for (int b = 0; b < sched::kNumBuffers; ++b)
    cp->bufferBytes[static_cast<size_t>(b)] =
        static_cast<size_t>(cp->rp.bufferSize[static_cast<size_t>(b)]) * es;
  std::shared_ptr<const CompiledProgram> out = cp;
  cache_.put(key, out);
  lastKey_ = key;
  lastProgram_ = out;
  return out;
}

Status Communicator::runCollective(sched::Collective coll, CallKind kind,
                                   uint64_t count, sched::DataType dt,
                                   sched::ReduceOp op, int64_t root,
                                   const void *in, void *out, uint64_t extra,
                                   const sched::GenerateRequest *custom,
                                   size_t callOutputBytes) {
  HCCL_RT_TRY(guard());
  if (count == 0 && kind != CallKind::AllToAllV)
    return Status::ok(); // nothing moves; HCCL returns at once too
  ProgramKey key;
  key.coll = coll;
  key.dtype = dt;
  key.op = op;
  key.p = size_;
  key.n = static_cast<int64_t>(count);
  key.root = root;
  key.extra = extra;
  sched::GenerateRequest req;
  if (custom)
    req = *custom;
  req.collective = coll;
  req.ranks = size_;
  req.count = static_cast<int64_t>(count);
  req.dtype = dt;
  req.reduceOp = op;
  req.root = root;
  auto cp = programFor(key, req);
  if (!cp)
    return cp.status();
  // Element-wise collectives may run as consecutive pieces. Every rank
  // splits the same way (the settings involved are checked to agree at
  // init, and the host layout is the same everywhere).
  //  - HCCL_BUFFSIZE bounds the communicator's scratch (HCCL holds two such
  //    buffers): a program that needs more is split.
  //  - Over sockets, a piece small enough to stay in cache between its
  //    reduce-scatter and its all-gather is faster: tcp all-reduce of 64
  //    MB, 2 ranks, 1.74 -> 1.96 GB/s with 8 MiB pieces (4 MiB: 1.96,
  //    16 MiB: 1.88); shared memory gains nothing from it.
  const size_t scratchCap = static_cast<size_t>(cfg_.buffSizeBytes()) * 2;
  bool elementwise = coll == sched::Collective::AllReduce ||
                     coll == sched::Collective::Broadcast ||
                     coll == sched::Collective::Reduce;
  size_t es = sched::dataTypeSize(dt);
  uint64_t per = count; // elements per piece
  if (elementwise && count > 1 && !custom) {
    if ((*cp)->bufferBytes[2] > scratchCap) {
      // Scratch grows linearly with the count: pick pieces so that a
      // piece's scratch, rounded to pages as it is allocated, fits.
      const uint64_t need = (*cp)->bufferBytes[2];
      uint64_t pieces = (need + scratchCap - 1) / scratchCap;
      per = (count + pieces - 1) / pieces;
      auto pieceScratch = [&](uint64_t n) {
        return roundUp(static_cast<size_t>(need / count * n + need % count),
                       pageSize());
      };
      while (per > 1 && pieceScratch(per) > scratchCap) {
        ++pieces;
        per = (count + pieces - 1) / pieces;
      }
    }
    if (netPieces_)
      per = std::min<uint64_t>(per, std::max<size_t>(1, kNetPieceBytes / es));
  }
  if (per < count) {
    for (uint64_t off = 0; off < count; off += per) {
      uint64_t n = std::min(per, count - off);
      const char *pin = in ? static_cast<const char *>(in) + off * es : nullptr;
      char *pout = out ? static_cast<char *>(out) + off * es : nullptr;
      // Each piece knows the whole call's output (Binding).
      HCCL_RT_TRY(runCollective(
          coll, kind, n, dt, op, root, pin, pout, extra, &req,
          callOutputBytes ? callOutputBytes
                          : (*cp)->bufferBytes[static_cast<size_t>(
                                sched::BufferId::Output)]));
    }
    return Status::ok();
  }
  // All-to-all-v counts and tables differ per rank; the wire id must not.
  bool perRank = kind == CallKind::AllToAllV;
  CallId call =
      nextCall(kind, perRank ? 0 : count, dt, op, static_cast<uint32_t>(root),
               (*cp)->prog.algorithm, perRank ? 0 : extra);
  Binding b;
  b.input = in;
  b.output = out;
  b.dtype = dt;
  b.op = op;
  b.keepEmpty = kind == CallKind::AllToAllV;
  b.callOutputBytes = callOutputBytes;
  lastAlgo_ = (*cp)->prog.algorithm;
  return execute(**cp, b, call);
}

Status Communicator::allReduce(const void *in, void *out, uint64_t count,
                               sched::DataType dt, sched::ReduceOp op) {
  return runCollective(sched::Collective::AllReduce, CallKind::AllReduce, count,
                       dt, op, 0, in, out);
}

Status Communicator::reduceScatter(const void *in, void *out,
                                   uint64_t recvCount, sched::DataType dt,
                                   sched::ReduceOp op) {
  return runCollective(sched::Collective::ReduceScatter,
                       CallKind::ReduceScatter, recvCount, dt, op, 0, in, out);
}

Status Communicator::allGather(const void *in, void *out, uint64_t sendCount,
                               sched::DataType dt) {
  return runCollective(sched::Collective::AllGather, CallKind::AllGather,
                       sendCount, dt, sched::ReduceOp::Sum, 0, in, out);
}

Status Communicator::broadcast(void *buf, uint64_t count, sched::DataType dt,
                               uint32_t root) {
  // HCCL's broadcast is in place: the root's buffer is the input, every
  // rank's buffer the output.
  return runCollective(sched::Collective::Broadcast, CallKind::Broadcast, count,
                       dt, sched::ReduceOp::Sum, root, buf, buf);
}

Status Communicator::reduce(const void *in, void *out, uint64_t count,
                            sched::DataType dt, sched::ReduceOp op,
                            uint32_t root) {
  return runCollective(sched::Collective::Reduce, CallKind::Reduce, count, dt,
                       op, root, in, out);
}

Status Communicator::allToAll(const void *in, void *out, uint64_t count,
                              sched::DataType dt) {
  return runCollective(sched::Collective::AllToAll, CallKind::AllToAll, count,
                       dt, sched::ReduceOp::Sum, 0, in, out);
}

Status Communicator::allToAllV(const void *in, const uint64_t *sendCounts,
                               const uint64_t *sdispls, void *out,
                               const uint64_t *recvCounts,
                               const uint64_t *rdispls, sched::DataType dt) {
  // Only this rank's row (what it sends) and column (what it receives) of
  // the p x p tables are known here, and only they are read when the
  // program is expanded for this rank.
  const size_t p = static_cast<size_t>(size_);
  const size_t r = static_cast<size_t>(rank_);
  sched::GenerateRequest req;
  req.sendCounts.assign(p * p, 0);
  req.sendDispls.assign(p * p, 0);
  req.recvDispls.assign(p * p, 0);
  uint64_t h = 1469598103934665603ull;
  for (size_t j = 0; j < p; ++j) {
    req.sendCounts[r * p + j] = static_cast<int64_t>(sendCounts[j]);
    req.sendCounts[j * p + r] = static_cast<int64_t>(recvCounts[j]);
    req.sendDispls[r * p + j] = static_cast<int64_t>(sdispls[j]);
    req.recvDispls[r * p + j] = static_cast<int64_t>(rdispls[j]);
    uint64_t v[4] = {sendCounts[j], recvCounts[j], sdispls[j], rdispls[j]};
    h = fnv1a(v, sizeof(v), h);
  }
  // The diagonal holds both what this rank sends and receives to itself.
  if (sendCounts[r] != recvCounts[r])
    return errPara("HcclAlltoAllV: rank " + std::to_string(rank_) + " sends " +
                   std::to_string(sendCounts[r]) +
                   " elements to itself but expects " +
                   std::to_string(recvCounts[r]));
  uint64_t total = 0;
  for (size_t j = 0; j < p; ++j)
    total += sendCounts[j];
  return runCollective(sched::Collective::AllToAllV, CallKind::AllToAllV, total,
                       dt, sched::ReduceOp::Sum, 0, in, out, h, &req);
}

Status Communicator::barrier() {
  HCCL_RT_TRY(guard());
  if (size_ == 1)
    return Status::ok();
  int32_t in = 1, out = 0;
  return runCollective(sched::Collective::AllReduce, CallKind::Barrier, 1,
                       sched::DataType::Int32, sched::ReduceOp::Sum, 0, &in,
                       &out);
}

Status Communicator::send(const void *buf, uint64_t count, sched::DataType dt,
                          int peer) {
  HCCL_RT_TRY(guard());
  if (count == 0)
    return Status::ok();
  SendOp op;
  op.peer = peer;
  op.src = buf;
  op.bytes = static_cast<size_t>(count) * sched::dataTypeSize(dt);
  CallId c;
  c.kind = CallKind::SendRecv;
  c.seq = ++p2pSendSeq_[static_cast<size_t>(peer)];
  c.count = count;
  c.dtype = static_cast<uint8_t>(dt);
  op.hdr.call = c;
  op.hdr.bytes = op.bytes;
  markLoneSend(op);
  Status st = pairs_[static_cast<size_t>(peer)]->postSend(op);
  if (!st.isOk())
    return failCall(c, 0, st);
  LocalWork none;
  Binding b;
  b.dtype = dt;
  LazyDeadline dl(static_cast<int64_t>(cfg_.execTimeoutSec));
  return waitFor(c, {&op}, {}, none, b, dl, 0);
}

Status Communicator::recv(void *buf, uint64_t count, sched::DataType dt,
                          int peer) {
  HCCL_RT_TRY(guard());
  if (count == 0)
    return Status::ok();
  RecvOp op;
  op.peer = peer;
  op.dst = buf;
  op.bytes = static_cast<size_t>(count) * sched::dataTypeSize(dt);
  op.dtype = dt;
  CallId c;
  c.kind = CallKind::SendRecv;
  c.seq = ++p2pRecvSeq_[static_cast<size_t>(peer)];
  c.count = count;
  c.dtype = static_cast<uint8_t>(dt);
  op.expect.call = c;
  op.expect.bytes = op.bytes;
  Status st = pairs_[static_cast<size_t>(peer)]->postRecv(op);
  if (!st.isOk())
    return failCall(c, 0, st);
  LocalWork none;
  Binding b;
  b.dtype = dt;
  LazyDeadline dl(static_cast<int64_t>(cfg_.execTimeoutSec));
  return waitFor(c, {}, {&op}, none, b, dl, 0);
}

StatusOr<std::shared_ptr<const CompiledProgram>>
Communicator::expandPlanProgram(const sched::Program &prog,
                                const std::vector<int64_t> &group) {
  int64_t local = rank_;
  if (!group.empty()) {
    auto it = std::find(group.begin(), group.end(), rank_);
    if (it == group.end())
      return errPara("this rank (" + std::to_string(rank_) +
                     ") is not in the program's group");
    local = it - group.begin();
    if (static_cast<int64_t>(group.size()) != prog.p)
      return errPara("program has p = " + std::to_string(prog.p) +
                     " but its group lists " + std::to_string(group.size()) +
                     " ranks");
    for (int64_t g : group)
      if (g < 0 || g >= size_)
        return errPara("program group names rank " + std::to_string(g) +
                       ", outside the communicator (size " +
                       std::to_string(size_) + ")");
  } else if (prog.p != size_) {
    return errPara("program is for p = " + std::to_string(prog.p) +
                   " ranks but the communicator has " + std::to_string(size_));
  }
  auto cp = std::make_shared<CompiledProgram>();
  auto rp = sched::expandRank(prog, local);
  if (!rp)
    return errPara("cannot expand the program for rank " +
                   std::to_string(local) + ": " + rp.message());
  cp->rp = rp.take();
  HCCL_RT_TRY(validateRankProgram(cp->rp, prog.p));
  cp->reader = findReaders(cp->rp);
  cp->elemBytes = sched::dataTypeSize(prog.dtype);
  if (cp->elemBytes == 0)
    return errPara("program has an unknown data type");
  for (int b = 0; b < sched::kNumBuffers; ++b)
    cp->bufferBytes[static_cast<size_t>(b)] =
        static_cast<size_t>(cp->rp.bufferSize[static_cast<size_t>(b)]) *
        cp->elemBytes;
  // Sub-group programs are numbered per group, so ranks outside the group
  // keep their own call numbering in step.
  cp->groupHash = fnv1a(group.data(), group.size() * sizeof(int64_t));
  return std::shared_ptr<const CompiledProgram>(std::move(cp));
}

Status Communicator::runProgram(const sched::Program &prog,
                                const std::vector<int64_t> &group,
                                const void *in, void *out,
                                const std::shared_ptr<const void> &owner) {
  HCCL_RT_TRY(guard());
  // Expanding and validating a program costs about as much as a small
  // all-reduce: training runs the same plan programs every step, so they
  // are kept per program while their plan lives (a freed plan's address
  // may come back with another program: the owner tells them apart).
  ProgramKey key;
  key.planProgram = &prog;
  std::shared_ptr<const CompiledProgram> cp;
  if (owner) {
    cp = cache_.get(key);
    if (cp && (cp->owner.owner_before(owner) || owner.owner_before(cp->owner)))
      cp = nullptr;
  }
  if (!cp) {
    auto fresh = expandPlanProgram(prog, group);
    if (!fresh)
      return fresh.status();
    cp = fresh.take();
    if (owner) {
      std::const_pointer_cast<CompiledProgram>(cp)->owner = owner;
      cache_.put(key, cp);
    }
  }
  CallId call;
  call.kind = CallKind::Plan;
  // Plan programs are numbered per group. The group's hash in the high half
  // keeps the numbers of different groups apart where one pair of ranks
  // serves several (a partitioned plan): a transport that sees a message of
  // its current number for another call reports a mismatch.
  call.seq = (cp->groupHash & 0xffffffff00000000ull) |
             (++planSeq_[cp->groupHash] & 0xffffffffull);
  call.count = static_cast<uint64_t>(prog.n);
  call.root = static_cast<uint32_t>(prog.root);
  call.dtype = static_cast<uint8_t>(prog.dtype);
  call.op = static_cast<uint8_t>(prog.reduceOp);
  call.algo = static_cast<uint8_t>(prog.algorithm);
  call.extra = static_cast<uint64_t>(static_cast<int>(prog.collective));
  Binding b;
  b.input = in;
  b.output = out;
  b.dtype = prog.dtype;
  b.op = prog.reduceOp;
  b.group = &group;
  // A permute target no rank sends to gets zeros (StableHLO's
  // collective_permute); the proven program leaves that output alone.
  if (prog.collective == sched::Collective::Permute && prog.tables.size() > 1 &&
      out != nullptr &&
      static_cast<size_t>(cp->rp.rank) < prog.tables[1].size() &&
      prog.tables[1][static_cast<size_t>(cp->rp.rank)] < 0)
    std::memset(out, 0, cp->bufferBytes[1]);
  return execute(*cp, b, call);
}

} // namespace hccl::rt
