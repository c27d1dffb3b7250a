//===- StepExecutor.cpp - One rank's step program as SimGrid activity -----===//
#include "StepExecutor.h"

#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <algorithm>
#include <mutex>
#include <unordered_map>

namespace sg4 = simgrid::s4u;

namespace hccl::sim {

using sched::ConcreteOp;
using sched::OpKind;
using sched::Status;

namespace {
// Transfers carry no data: the simulation only times them.
int kPayload = 0;
// Simulated time after which a transfer is given up (far beyond any
// collective: 11 days).
constexpr double kGiveUpSeconds = 1e6;
} // namespace

/// A borrowed transfer's meeting point: the first side to arrive leaves
/// its size; the second starts the transfer and a watcher actor, the one
/// actor that waits on it (SimGrid 3.32 leaks, and then crashes on, the
/// host-failure sleep of a second actor waiting on one host-to-host
/// transfer); both sides wait for the watcher's word.
struct BorrowTable::Meeting {
  sg4::CommPtr comm; ///< once started
  double bytes = 0;
  sg4::MutexPtr mutex;
  sg4::ConditionVariablePtr ended;
  bool done = false, failed = false; ///< under the mutex
  double finish = 0;
};

/// A posted transfer: a mailbox one, or a borrowed one.
struct StepExecutor::Transfer {
  sg4::CommPtr comm;
  std::shared_ptr<BorrowTable::Meeting> meeting;

  /// The transfer SimGrid runs (null: a borrowed one not started yet).
  sg4::CommPtr started() const { return meeting ? meeting->comm : comm; }
  double finishTime() const {
    return meeting ? meeting->finish : comm->get_finish_time();
  }
  /// Waits for the transfer's end; gives up after kGiveUpSeconds
  /// (simgrid's TimeoutException), as when a peer stopped.
  void wait() const {
    if (!meeting) {
      comm->wait_for(kGiveUpSeconds);
      return;
    }
    std::unique_lock<sg4::Mutex> lock(*meeting->mutex);
    const double deadline = sg4::Engine::get_clock() + kGiveUpSeconds;
    while (!meeting->done)
      if (meeting->ended->wait_until(lock, deadline) == std::cv_status::timeout)
        throw simgrid::TimeoutException(XBT_THROW_POINT,
                                        "the borrowed transfer never ended");
    if (meeting->failed)
      throw simgrid::NetworkFailureException(XBT_THROW_POINT,
                                             "borrowed transfer failed");
  }
};

StepExecutor::StepExecutor(const sched::Program &prog, int64_t instance,
                           int64_t groupRank, const std::vector<int64_t> &group,
                           const JitterTable *jitter, BorrowTable *borrow,
                           const ScaleUpTable *scaleUp)
    : prog_(prog), instance_(instance), rank_(groupRank), group_(group),
      jitter_(jitter), borrow_(borrow), scaleUp_(scaleUp),
      elemBytes_(static_cast<double>(sched::dataTypeSize(prog.dtype))) {}

std::shared_ptr<BorrowTable::Meeting>
StepExecutor::meet(int64_t from, int64_t to, double bytes) {
  const bool sending = from == rank_;
  const int64_t ordinal =
      (sending ? sentTo_ : receivedFrom_)[sending ? to : from]++;
  const int64_t g = global(from), h = global(to);
  // Creating the mutex and the condition are simcalls, which let other
  // actors run: done first, so that the look-up and the insertion below
  // happen in one go (SimGrid's actors only switch at simcalls).
  auto mine = std::make_shared<BorrowTable::Meeting>();
  mine->mutex = sg4::Mutex::create();
  mine->ended = sg4::ConditionVariable::create();
  mine->bytes = bytes;
  auto key = std::make_tuple(instance_, g, h, ordinal);
  auto it = borrow_->meetings.find(key);
  if (it == borrow_->meetings.end()) {
    borrow_->meetings.emplace(key, mine);
    return mine;
  }
  std::shared_ptr<BorrowTable::Meeting> m = it->second;
  borrow_->meetings.erase(it);
  // The sender's size (both sides sum the same ops).
  m->comm = sg4::Comm::sendto_async(
      borrow_->backupHosts[static_cast<size_t>(g)],
      borrow_->backupHosts[static_cast<size_t>(h)],
      static_cast<uint64_t>(sending ? bytes : m->bytes));
  sg4::Actor::create("borrowed", sg4::this_actor::get_host(), [m] {
    bool failed = false;
    try {
      m->comm->wait();
    } catch (const simgrid::Exception &) { // failed link, or cancelled
      failed = true;
    }
    std::unique_lock<sg4::Mutex> lock(*m->mutex);
    m->done = true;
    m->failed = failed;
    m->finish = sg4::Engine::get_clock();
    m->ended->notify_all();
  });
  return m;
}

StepExecutor::Transfer StepExecutor::post(int64_t from, int64_t to,
                                          double bytes, int **slot) {
  if (borrow_ && borrow_->borrowed(global(from), global(to)))
    return {nullptr, meet(from, to, bytes)};
  // Both sides state the cap.
  const bool capped = scaleUp_ && scaleUp_->capped(global(from), global(to));
  sg4::CommPtr c;
  if (from == rank_)
    c = mailbox(from, to)->put_init(&kPayload, static_cast<uint64_t>(bytes));
  else
    c = mailbox(from, to)->get_init()->set_dst_data(
        reinterpret_cast<void **>(slot), sizeof(void *));
  if (capped)
    c->set_rate(scaleUp_->bytesPerSecond);
  c->start();
  return {c, nullptr};
}

sg4::Mailbox *StepExecutor::mailbox(int64_t from, int64_t to) const {
  return sg4::Mailbox::by_name("c" + std::to_string(instance_) + ":" +
                               std::to_string(global(from)) + ">" +
                               std::to_string(global(to)));
}

namespace {
uint64_t mix(uint64_t h, uint64_t v) {
  // splitmix64 of the running hash and the next value.
  uint64_t z = h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
double uniform(uint64_t h) {
  return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);
}
} // namespace

double StepExecutor::spike(uint32_t phase, int64_t step, int64_t from,
                           int64_t to) const {
  if (!jitter_)
    return 0;
  const int64_t g = global(from), h = global(to);
  if (jitter_->server[static_cast<size_t>(g)] ==
      jitter_->server[static_cast<size_t>(h)])
    return 0;
  uint64_t key = jitter_->seed;
  for (uint64_t v : {static_cast<uint64_t>(instance_), uint64_t(phase),
                     static_cast<uint64_t>(step), static_cast<uint64_t>(g),
                     static_cast<uint64_t>(h)})
    key = mix(key, v);
  double extra = 0;
  // The sender's NIC and the receiver's draw independently: under
  // --borrow-nic the backups' NICs carry a borrowed message.
  const bool borrowed = borrow_ && borrow_->borrowed(g, h);
  for (int64_t end : {g, h}) {
    const int64_t nic =
        borrowed ? borrow_->backupRank[static_cast<size_t>(end)] : end;
    key = mix(key, static_cast<uint64_t>(nic));
    if (uniform(key) < jitter_->probability[static_cast<size_t>(nic)])
      extra += jitter_->extraSeconds[static_cast<size_t>(nic)];
  }
  return extra;
}

Status StepExecutor::runStep(const std::vector<ConcreteOp> &ops, uint32_t phase,
                             int64_t step, StepCounters &counters) {
  const int64_t k = std::max<int64_t>(1, prog_.slices);
  std::vector<const ConcreteOp *> sends, recvs;
  double localReduce = 0;
  for (const ConcreteOp &c : ops) {
    if (c.kind == OpKind::Reduce)
      localReduce += static_cast<double>(c.count) * elemBytes_ *
                     static_cast<double>(std::max<int64_t>(0, c.srcN - 1));
    if (!sched::opHasPeer(c.kind) || c.count == 0)
      continue;
    (c.kind == OpKind::Send ? sends : recvs).push_back(&c);
  }
  // A piece's ops to (or from) one peer go as one message of their summed
  // size: concurrent transfers on one route share it fairly, so one message
  // of the sum ends when they all would (the same latency, the same bytes
  // over the same links), while a hierarchical all-gather's hundreds of
  // blocks per step to one neighbour no longer each cost a flow in
  // SimGrid's solver (its time grew with their square).
  struct Message {
    int64_t peer;
    double bytes = 0, reduceBytes = 0;
  };
  std::unordered_map<int64_t, size_t> index; // peer -> its message
  auto messages = [&](const std::vector<const ConcreteOp *> &list, int64_t i,
                      std::vector<Message> &out) {
    out.clear();
    index.clear();
    for (const ConcreteOp *c : list) {
      ConcreteOp p = k > 1 ? sched::sliceOp(*c, k, i) : *c;
      if (p.count == 0)
        continue;
      auto [it, added] = index.try_emplace(p.peer, out.size());
      if (added)
        out.push_back(Message{p.peer});
      Message &m = out[it->second];
      double bytes = static_cast<double>(p.count) * elemBytes_;
      m.bytes += bytes;
      if (p.kind == OpKind::RecvReduce)
        m.reduceBytes += bytes;
    }
  };
  // Every piece of every send at once, piece-major: the receivers post
  // piece by piece, and a mailbox matches in order.
  std::vector<Transfer> sent;
  std::vector<Message> msgs;
  for (int64_t i = 0; i < k; ++i) {
    messages(sends, i, msgs);
    for (const Message &m : msgs) {
      sent.push_back(post(rank_, m.peer, m.bytes, nullptr));
      ++counters.transfers;
    }
  }
  // At most one message per peer, so at most one slot per receive.
  std::vector<int *> slots(recvs.size());
  // A latency spike delays a message's delivery: the receiver sees it that
  // much after the transfer ends.
  std::vector<double> curSpike, nextSpike;
  auto postPiece = [&](int64_t i, std::vector<Transfer> &comms,
                       double &reduceBytes, std::vector<double> &spikes) {
    comms.clear();
    spikes.clear();
    reduceBytes = 0;
    messages(recvs, i, msgs);
    for (size_t j = 0; j < msgs.size(); ++j) {
      comms.push_back(post(msgs[j].peer, rank_, msgs[j].bytes, &slots[j]));
      spikes.push_back(spike(phase, step, msgs[j].peer, rank_));
      reduceBytes += msgs[j].reduceBytes;
    }
  };
  std::vector<Transfer> cur, next;
  // A transfer that never completes (its peer gave up after a failed link,
  // or a program whose sends and receives do not match) times out after
  // kGiveUpSeconds of simulated time; every pending transfer is then
  // cancelled, so the simulation ends instead of deadlocking.
  auto waitAll = [](const std::vector<Transfer> &comms) {
    for (const Transfer &t : comms)
      t.wait();
  };
  auto cancelPending = [&] {
    for (auto *v : {&sent, &cur, &next})
      for (const Transfer &t : *v) {
        sg4::CommPtr c = t.started();
        if (c && (c->get_state() == sg4::Activity::State::STARTED ||
                  c->get_state() == sg4::Activity::State::STARTING))
          c->cancel();
      }
  };
  try {
    double curReduce = 0, nextReduce = 0;
    postPiece(0, cur, curReduce, curSpike);
    for (int64_t i = 0; i < k; ++i) {
      waitAll(cur);
      double ready = 0;
      for (size_t j = 0; j < cur.size(); ++j)
        if (curSpike[j] > 0)
          ready = std::max(ready, cur[j].finishTime() + curSpike[j]);
      // Piece i+1 travels while piece i is reduced.
      if (i + 1 < k)
        postPiece(i + 1, next, nextReduce, nextSpike);
      if (ready > sg4::Engine::get_clock())
        sg4::this_actor::sleep_until(ready);
      if (curReduce > 0)
        sg4::this_actor::execute(curReduce);
      std::swap(cur, next);
      std::swap(curSpike, nextSpike);
      curReduce = nextReduce;
    }
    if (localReduce > 0)
      sg4::this_actor::execute(localReduce);
    waitAll(sent);
  } catch (const simgrid::NetworkFailureException &) {
    cancelPending();
    return Status::error("rank " + std::to_string(global(rank_)) +
                         ": a transfer crossed a failed link, so the "
                         "collective cannot complete (no rerouting is "
                         "modelled; --borrow-nic borrows a backup for a "
                         "failed NIC)");
  } catch (const simgrid::CancelException &) {
    // A mailbox transfer the peer cancelled after its own failure.
    cancelPending();
    return Status::error("rank " + std::to_string(global(rank_)) +
                         ": its peer cancelled a transfer on a failed link, "
                         "so the collective cannot complete");
  } catch (const simgrid::TimeoutException &) {
    cancelPending();
    return Status::error("rank " + std::to_string(global(rank_)) +
                         ": a transfer never completed (deadlock: a peer "
                         "stopped, or sends and receives do not match)");
  }
  ++counters.steps;
  return Status::ok();
}

Status StepExecutor::run(const std::string &label, int tid,
                         std::vector<tools::TraceEvent> *events,
                         StepCounters &counters) {
  auto steps = prog_.phaseSteps();
  if (!steps)
    return steps.status();
  sched::ProgramEvaluator ev(prog_);
  int64_t budget = sched::kMaxExpandedSize;
  std::vector<ConcreteOp> ops;
  for (uint32_t ph = 0; ph < prog_.phases.size(); ++ph) {
    double start = sg4::Engine::get_clock();
    for (int64_t s = 0; s < (*steps)[ph]; ++s) {
      ops.clear();
      if (Status st = ev.expandStep(rank_, ph, s, ops, &budget); !st)
        return st;
      if (Status st = runStep(ops, ph, s, counters); !st)
        return st;
    }
    double end = sg4::Engine::get_clock();
    if (events && (*steps)[ph] > 0)
      events->push_back({label + " " + prog_.phases[ph].name, "phase",
                         start * 1e6, (end - start) * 1e6, tid});
  }
  return Status::ok();
}

} // namespace hccl::sim
