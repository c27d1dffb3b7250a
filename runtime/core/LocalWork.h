//===- LocalWork.h - A step's local copies and reductions -------*- C++ -*-===//
//
// The executor does a step's local ops in pieces, between progress calls on
// the step's transfers, so that peers keep being served meanwhile.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_CORE_LOCALWORK_H
#define HCCL_RUNTIME_CORE_LOCALWORK_H

#include "hccl-mlir/schedule/Program.h"
#include "reduce/Copy.h"
#include "reduce/Nontemporal.h"
#include "reduce/Reduce.h"
#include "transport/Transport.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace hccl::rt {

/// Local copies and reductions of one step, done piece by piece so that
/// transfers keep moving meanwhile.
struct LocalWork {
  struct Item {
    sched::OpKind kind;
    char *dst;
    const char *src;
    size_t bytes;
    size_t strideBytes;
    int srcN;
    size_t done;
    bool nontemporal; ///< another rank's core reads dst next
    /// A Copy that may push (SendOp::pushCapable): it waits until the
    /// transport settles the push, then writes push->pushDst too.
    SendOp *push = nullptr;
    /// dst is the output of a call past the cache that no rank reads later
    /// in the call (core/Executor.cpp): it streams, a push's own copy too.
    bool pastCache = false;
  };
  std::vector<Item> items;
  size_t cur = 0;
  /// Set by the executor: this rank's abort record, which an aborting peer
  /// sets. A push stops writing into the peer's buffer then, as the tee
  /// does.
  const std::atomic<uint32_t> *abortFlag = nullptr;
  /// Bytes written under Item::pastCache, over all steps (tests count them).
  uint64_t pastCacheBytes = 0;
  bool pending() const { return cur < items.size(); }
  /// The next item waits for its push to be settled.
  bool blocked() const {
    return cur < items.size() && items[cur].push &&
           items[cur].push->push == SendOp::Push::Undecided;
  }
  void clear() {
    items.clear();
    cur = 0;
  }
  /// Processes up to `budget` bytes, stopping at a blocked item; false if a
  /// kernel rejected the type/op.
  bool step(size_t budget, size_t es, sched::DataType dt, sched::ReduceOp op) {
    while (budget > 0 && cur < items.size() && !blocked()) {
      Item &it = items[cur];
      size_t len =
          std::min(it.bytes - it.done, std::max(budget / es, size_t(1)) * es);
      bool pushing = it.push && it.push->push == SendOp::Push::Push;
      if (pushing && abortFlag &&
          abortFlag->load(std::memory_order_acquire) != 0) {
        // The message is never announced: the send stays pending and the
        // call fails on the abort.
        it.push->push = SendOp::Push::Stopped;
        pushing = false;
      }
      // Streamed copies may not overlap their source (a one-source
      // reduction is a copy); streamed reductions of more may write a
      // source in place.
      bool disjoint =
          it.dst + it.bytes <= it.src || it.src + it.bytes <= it.dst;
      bool stream =
          (it.nontemporal || it.pastCache) &&
          ((it.kind == sched::OpKind::Reduce && it.srcN > 1) || disjoint);
      if (it.pastCache && (pushing || stream))
        pastCacheBytes += len;
      if (pushing) {
        copyTee(it.dst + it.done, it.push->pushDst + it.done, it.src + it.done,
                len, it.pastCache);
        if (it.done + len == it.bytes)
          it.push->pushWritten = true;
      } else if (it.kind == sched::OpKind::Copy) {
        if (stream)
          copyNontemporal(it.dst + it.done, it.src + it.done, len);
        else
          moveBytes(it.dst + it.done, it.src + it.done, len);
      } else {
        const void *srcs[64];
        std::vector<const void *> many;
        const void **sp = srcs;
        if (it.srcN > 64) {
          many.resize(static_cast<size_t>(it.srcN));
          sp = many.data();
        }
        for (int k = 0; k < it.srcN; ++k)
          sp[k] = it.src + static_cast<size_t>(k) * it.strideBytes + it.done;
        bool ok = stream ? reduceManyNontemporal(it.dst + it.done, sp, it.srcN,
                                                 len / es, dt, op)
                         : reduceMany(it.dst + it.done, sp, it.srcN, len / es,
                                      dt, op);
        if (!ok)
          return false;
      }
      it.done += len;
      budget = budget > len ? budget - len : 0;
      if (it.done == it.bytes)
        ++cur;
    }
    return true;
  }
};

} // namespace hccl::rt

#endif // HCCL_RUNTIME_CORE_LOCALWORK_H
