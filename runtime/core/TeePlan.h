//===- TeePlan.h - Which messages of a step may take the shm tee -*- C++
//-*-===//
//
// The tee (transport/shm/ShmPair.h) writes a reduction's result into the
// peer's buffer in the pass that writes this rank's own copy, and replaces
// the message that would have carried it there a step later. That is the
// program's meaning only under conditions on both ranks' steps, which this
// pure function checks on one rank's concrete program:
//
// Offer (op i is a Send to P): step s has exactly one send to P and one
// receive from P; P's next message to this rank (the first op receiving
// from P in the next step with ops) is a plain Recv of as many elements;
// and nothing this rank does in step s reads or writes that Recv's
// destination, except the offering Send reading exactly it (a call in
// place: the peer reads each element before it writes it). The destination
// may then be written at any time during step s.
//
// Take (op i is a RecvReduce from P): step s has exactly one receive from P
// and one send to P, and this rank's next message to P (the first Send to P
// in the next step with ops) sends exactly op i's destination, as many
// elements. Nothing writes that destination between them: programs have
// no races inside a step (docs/step-programs.md, rule 2).
//
// The push (a same-step offer): a 2-rank all-gather step (or an RHD
// all-gather's first exchange) copies this rank's block into its output
// and exchanges blocks with the peer; each
// rank reads its block twice (the copy, the peer's read) and the peer's
// once. With the push, the copy writes the block into both outputs in one
// pass, so each rank reads only its own block.
//
// Offer now (op i is a Send to P): step s has exactly one send to P and one
// receive from P, a plain Recv; nothing else this rank does in step s,
// the offering Send included, reads or writes that Recv's destination. The
// peer may then write it at any time during step s.
//
// Push (op i is a Send to P): step s sends to and receives from P alone,
// one message each way (the transport settles the push when that
// receive's first message arrives; a peer in a wider step would not push
// back, so its offer never comes), and a Copy of the step reads exactly
// the Send's source into a range apart from it. That Copy may then also
// write the message into the peer's offered buffer.
//
// Either side alone changes nothing; the transport matches an offer with a
// take by message ordinal, so a plan that does not line up is just two
// normal messages.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_CORE_TEEPLAN_H
#define HCCL_RUNTIME_CORE_TEEPLAN_H

#include "hccl-mlir/schedule/Program.h"

#include <cstdint>
#include <vector>

namespace hccl::rt {

/// Steps with more ops than this are not considered (see planTees).
inline constexpr uint32_t kMaxTeeStepOps = 8;

struct TeePlan {
  /// Per op of the step: for an offering Send, the index (into rp.ops) of
  /// the Recv whose destination it offers (this step's: an offer now, for
  /// a push; else the next step's); -1 otherwise.
  std::vector<int64_t> offer;
  /// Per op of the step: for a Send that may push, the index (into rp.ops)
  /// of the step's Copy that reads exactly its source; -1 otherwise.
  std::vector<int64_t> push;
  /// Per op of the step: the RecvReduce may take the peer's offer.
  std::vector<bool> take;
};

/// The tee plan of step `step` of `rp` into `plan` (whose vectors keep
/// their capacity from call to call), with the call's buffers at `bufs`
/// (ranges are compared as addresses: in place, input is output) and
/// `elemBytes` per element. Empty vectors for a step out of range; all -1
/// / false when nothing qualifies.
void planTees(const sched::RankProgram &rp, size_t step,
              const char *const bufs[sched::kNumBuffers], size_t elemBytes,
              TeePlan &plan);

} // namespace hccl::rt

#endif // HCCL_RUNTIME_CORE_TEEPLAN_H
