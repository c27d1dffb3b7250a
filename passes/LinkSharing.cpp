//===- LinkSharing.cpp - Collectives that share links at once -------------===//
//
// An event loop over the fluid model of LinkSharing.h. Events: a moving job
// finishes its bandwidth part, a job's latency tail ends (its stream takes
// the next job), a waiting head job's issue time comes. Between events
// every rate is constant. Cost per event: the moving jobs times their
// resources.
//
//===----------------------------------------------------------------------===//
#include "LinkSharing.h"

#include <algorithm>
#include <limits>

using namespace hccl::contention;

size_t LinkSharing::add(Job job) {
  Run r;
  r.job = std::move(job);
  r.floor = now;
  std::sort(r.job.resources.begin(), r.job.resources.end());
  r.job.resources.erase(
      std::unique(r.job.resources.begin(), r.job.resources.end()),
      r.job.resources.end());
  r.left = r.job.bandwidth;
  runs.push_back(std::move(r));
  size_t id = runs.size() - 1;
  streams[runs[id].job.stream].queue.push_back(id);
  startHeads();
  return id;
}

double LinkSharing::rateOf(const Run &r) const {
  int most = 1;
  for (int64_t res : r.job.resources) {
    auto it = moving.find(res);
    if (it != moving.end())
      most = std::max(most, it->second);
  }
  return 1.0 / most;
}

double LinkSharing::earliest(const Run &r, const Stream &s) {
  double w = r.job.wakeup;
  // A stream's first job follows an idle as long as it likes.
  if (r.job.wakeupIdle > 0 && s.ran)
    w *= std::clamp((r.job.issue - s.free) / r.job.wakeupIdle, 0.0, 1.0);
  // An issue before the time already simulated counts as that time.
  return std::max({r.job.issue + w, r.floor, s.free});
}

void LinkSharing::startHeads() {
  for (auto &[key, s] : streams) {
    if (s.queue.empty())
      continue;
    Run &head = runs[s.queue.front()];
    if (head.state != State::Waiting)
      continue;
    if (earliest(head, s) > now)
      continue;
    head.begin = now;
    if (head.left > 0) {
      head.state = State::Moving;
      for (int64_t res : head.job.resources)
        ++moving[res];
    } else {
      head.state = State::Tail;
      head.end = now + head.job.latency;
    }
  }
}

void LinkSharing::simulate(double until, size_t stop) {
  const double inf = std::numeric_limits<double>::infinity();
  while (runs[stop].state != State::Done) {
    startHeads();
    // The next event; rates stay constant until then.
    double next = inf;
    struct Moving {
      size_t id;
      double rate, finish;
    };
    std::vector<Moving> movers;
    for (auto &[key, s] : streams) {
      if (s.queue.empty())
        continue;
      size_t id = s.queue.front();
      const Run &r = runs[id];
      if (r.state == State::Moving) {
        double rate = rateOf(r);
        movers.push_back({id, rate, now + r.left / rate});
        next = std::min(next, movers.back().finish);
      } else if (r.state == State::Tail) {
        next = std::min(next, r.end);
      } else {
        next = std::min(next, earliest(r, s));
      }
    }
    // Nothing happens by `until`: stay at the last event (moving jobs keep
    // their progress as of then; later calls go on from there).
    if (next == inf || next > until)
      return;
    double dt = next - now;
    now = next;
    for (const Moving &m : movers) {
      Run &r = runs[m.id];
      r.left -= m.rate * dt;
      // Done when its finish is this event: decided on the finish time, not
      // on what is left, which rounding (a small rest beside a large clock)
      // could keep from ever reaching zero.
      if (m.finish <= now || r.left <= 1e-12 * r.job.bandwidth) {
        r.left = 0;
        r.state = State::Tail;
        r.end = now + r.job.latency;
        for (int64_t res : r.job.resources)
          if (--moving[res] == 0)
            moving.erase(res);
      }
    }
    for (auto &[key, s] : streams)
      while (!s.queue.empty()) {
        Run &r = runs[s.queue.front()];
        if (r.state != State::Tail || r.end > now)
          break;
        r.state = State::Done;
        s.free = r.end;
        s.ran = true;
        s.queue.pop_front();
        startHeads(); // the next job of the stream may start at once
      }
  }
}

double LinkSharing::endOf(size_t id) {
  simulate(std::numeric_limits<double>::infinity(), id);
  return runs[id].end;
}

double LinkSharing::beginOf(size_t id) {
  endOf(id);
  return runs[id].begin;
}

bool LinkSharing::endedBy(size_t id, double t) {
  if (runs[id].state != State::Done && now < t)
    simulate(t, id);
  return runs[id].state == State::Done && runs[id].end <= t;
}

double LinkSharing::finishAll() {
  double last = 0;
  for (size_t id = 0; id < runs.size(); ++id)
    last = std::max(last, endOf(id));
  return last;
}
