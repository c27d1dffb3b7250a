//===- BucketPlanner.cpp - Bucket partitions of a gradient stream ---------===//
//
// See BucketPlanner.h for the model and the complexity argument. Ready
// times are taken as their running maximum: on an in-order stream a bucket
// cannot start before the previous one, which already waited for every
// earlier item, so this changes no finish time and makes R non-decreasing,
// which the sliding windows need.
//
//===----------------------------------------------------------------------===//
#include "BucketPlanner.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <unordered_map>

using namespace hccl::bucket;

double Limits::nextBoundary(double t) const {
  auto it = std::lower_bound(boundaries.begin(), boundaries.end(), t);
  return it == boundaries.end() ? t : *it;
}

namespace {
/// Buckets issued one after another under the limits (BucketPlanner.h,
/// Limits): the finish of each, in O(1) amortised per bucket.
class LimitedStream {
public:
  LimitedStream(const Limits &limits, double wakeup)
      : limits(limits), wakeup(wakeup) {}

  /// Issues the next bucket, whose items the steal delayed by `shift`
  /// (already in `ready`; the compute-op ends it may wait for move by as
  /// much); returns its finish.
  double push(double ready, double bytes, double cost, double shift = 0) {
    size_t b = fin.size();
    byteSum.push_back((b ? byteSum.back() : 0.0) + bytes);
    // The oldest bucket that may stay in flight: the in-flight buckets are
    // the suffix [waitedUpTo, b) that the limits allow beside b.
    if (!limits.any()) {
      waitedUpTo = 0;
    } else {
      if (limits.maxInFlight > 0)
        waitedUpTo = std::max(
            waitedUpTo, b + 1 > static_cast<size_t>(limits.maxInFlight)
                            ? b + 1 - static_cast<size_t>(limits.maxInFlight)
                            : size_t{0});
      if (limits.maxBytesInFlight > 0)
        while (waitedUpTo < b &&
               byteSum[b] - (waitedUpTo ? byteSum[waitedUpTo - 1] : 0.0) >
                   limits.maxBytesInFlight)
          ++waitedUpTo;
    }
    double gate = waitedUpTo ? fin[waitedUpTo - 1] : 0.0;
    double issue =
        gate > ready ? limits.nextBoundary(gate - shift) + shift : ready;
    double f = std::max(issue + wakeup, fin.empty() ? 0.0 : fin.back()) + cost;
    fin.push_back(f);
    return f;
  }
  double finish() const { return fin.empty() ? 0.0 : fin.back(); }

private:
  const Limits &limits;
  double wakeup;
  std::vector<double> fin, byteSum;
  size_t waitedUpTo = 0; ///< buckets [0, waitedUpTo) were waited for
};
} // namespace

double BucketPricer::operator()(double bytes) const {
  if (general)
    return general(bytes);
  if (pieces.empty())
    return 0;
  double best = std::numeric_limits<double>::infinity();
  for (const AffinePiece &p : pieces)
    best = std::min(best, p.alpha + p.beta * bytes);
  return best;
}

int BucketPricer::bestPiece(double bytes) const {
  int best = -1;
  double bestCost = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < pieces.size(); ++i) {
    double c = pieces[i].alpha + pieces[i].beta * bytes;
    if (c < bestCost) {
      bestCost = c;
      best = static_cast<int>(i);
    }
  }
  return best;
}

bool hccl::bucket::isValidBucket(const Problem &prob, int64_t i, int64_t j) {
  int64_t n = static_cast<int64_t>(prob.items.size());
  if (i < 0 || j >= n || i > j)
    return false;
  if (i == j)
    return true;
  int key = prob.items[i].key;
  if (key < 0)
    return false;
  if (prob.caps.maxCount > 0 && j - i + 1 > prob.caps.maxCount)
    return false;
  double bytes = 0;
  for (int64_t m = i; m <= j; ++m) {
    const Item &it = prob.items[m];
    if (it.key != key || (m > i && it.dependsOn >= i))
      return false;
    bytes += it.bytes;
  }
  return !(prob.caps.maxBucketBytes > 0 && bytes > prob.caps.maxBucketBytes);
}

bool hccl::bucket::isValidPlan(const Problem &prob,
                               const std::vector<int64_t> &bucketOf) {
  size_t n = prob.items.size();
  if (bucketOf.size() != n)
    return false;
  size_t i = 0;
  int64_t expect = 0;
  while (i < n) {
    if (bucketOf[i] != expect)
      return false;
    size_t j = i;
    while (j + 1 < n && bucketOf[j + 1] == expect)
      ++j;
    if (!isValidBucket(prob, static_cast<int64_t>(i), static_cast<int64_t>(j)))
      return false;
    i = j + 1;
    ++expect;
  }
  return true;
}

double hccl::bucket::evaluatePlan(const Problem &prob,
                                  const std::vector<int64_t> &bucketOf) {
  // Per bucket: latest ready member, bytes, first and last member; then the
  // buckets run in the order of their last members.
  struct Acc {
    double ready = 0, bytes = 0;
    size_t first = 0, last = 0;
    double shift = 0; ///< steal at its last member
  };
  std::unordered_map<int64_t, Acc> acc;
  for (size_t i = 0; i < prob.items.size(); ++i) {
    auto [it, fresh] = acc.try_emplace(bucketOf[i]);
    Acc &a = it->second;
    if (fresh)
      a.first = i;
    a.ready = std::max(a.ready, prob.items[i].ready);
    a.bytes += prob.items[i].bytes;
    a.last = i;
  }
  // The steal: each item is late by the bytes of the buckets closed before
  // it (a second pass, now that every bucket's bytes and last member are
  // known).
  if (prob.steal > 0) {
    double closed = 0;
    for (size_t i = 0; i < prob.items.size(); ++i) {
      Acc &a = acc.find(bucketOf[i])->second;
      a.ready = std::max(a.ready, prob.items[i].ready + prob.steal * closed);
      a.shift = prob.steal * closed;
      if (a.last == i)
        closed += a.bytes;
    }
  }
  LimitedStream stream(prob.limits, prob.wakeup);
  for (size_t i = 0; i < prob.items.size(); ++i) {
    const Acc &a = acc.find(bucketOf[i])->second;
    if (a.last != i)
      continue;
    const Item &first = prob.items[a.first];
    double cost =
        first.key < 0 ? first.fixedSeconds : prob.pricers[first.key](a.bytes);
    stream.push(a.ready, a.bytes, cost, a.shift);
  }
  return stream.finish();
}

Plan hccl::bucket::planSingletons(const Problem &prob) {
  Plan plan;
  for (size_t i = 0; i < prob.items.size(); ++i)
    plan.bucketOf.push_back(static_cast<int64_t>(i));
  plan.finishSeconds = evaluatePlan(prob, plan.bucketOf);
  return plan;
}

Plan hccl::bucket::planThreshold(const Problem &prob, double thresholdBytes,
                                 double firstBucketBytes) {
  Plan plan;
  size_t n = prob.items.size();
  plan.bucketOf.resize(n);
  int64_t bucket = 0;
  bool first = true;
  size_t i = 0;
  while (i < n) {
    const Item &head = prob.items[i];
    double limit =
        first && firstBucketBytes > 0 ? firstBucketBytes : thresholdBytes;
    if (prob.caps.maxBucketBytes > 0)
      limit = std::min(limit, prob.caps.maxBucketBytes);
    size_t j = i;
    double bytes = head.bytes;
    if (head.key >= 0) {
      while (j + 1 < n) {
        const Item &next = prob.items[j + 1];
        if (next.key != head.key || next.dependsOn >= static_cast<int64_t>(i) ||
            bytes + next.bytes > limit ||
            (prob.caps.maxCount > 0 &&
             static_cast<int64_t>(j + 2 - i) > prob.caps.maxCount))
          break;
        bytes += next.bytes;
        ++j;
      }
      first = false;
    }
    for (size_t m = i; m <= j; ++m)
      plan.bucketOf[m] = bucket;
    ++bucket;
    i = j + 1;
  }
  plan.finishSeconds = evaluatePlan(prob, plan.bucketOf);
  return plan;
}

Plan hccl::bucket::planDdp(const Problem &prob, double capBytes,
                           double firstBucketBytes) {
  struct Open {
    int64_t id = -1;        ///< -1: no open bucket for this key
    int64_t firstItem = -1; ///< its first member
    int64_t count = 0;
    double bytes = 0;
    int64_t closed = 0; ///< buckets of this key closed so far
  };
  Plan plan;
  size_t n = prob.items.size();
  plan.bucketOf.assign(n, -1);
  std::unordered_map<int, Open> open; // per key, as the Reducer's BucketKey
  int64_t next = 0;
  auto close = [](Open &o) {
    o.id = -1;
    ++o.closed;
  };
  for (size_t j = 0; j < n; ++j) {
    const Item &it = prob.items[j];
    if (it.key < 0) {
      for (auto &[key, o] : open)
        if (o.id >= 0)
          close(o);
      plan.bucketOf[j] = next++;
      continue;
    }
    Open &o = open[it.key];
    if (o.id >= 0 &&
        (it.dependsOn >= o.firstItem ||
         (prob.caps.maxCount > 0 && o.count >= prob.caps.maxCount) ||
         (prob.caps.maxBucketBytes > 0 &&
          o.bytes + it.bytes > prob.caps.maxBucketBytes)))
      close(o);
    if (o.id < 0) {
      o.id = next++;
      o.firstItem = static_cast<int64_t>(j);
      o.count = 0;
      o.bytes = 0;
    }
    plan.bucketOf[j] = o.id;
    ++o.count;
    o.bytes += it.bytes;
    double limit =
        o.closed == 0 && firstBucketBytes > 0 ? firstBucketBytes : capBytes;
    if (o.bytes >= limit) // reached, not kept within: the Reducer's rule
      close(o);
  }
  plan.finishSeconds = evaluatePlan(prob, plan.bucketOf);
  return plan;
}

namespace {
/// Relative tolerance under which two finish times count as equal: a few
/// roundings, so that ties found along a stream of n items cannot add up
/// to a measurable loss.
constexpr double kTieTolerance = 1e-15;

/// Fewer, larger buckets at no predicted cost: merges each bucket of a
/// partition into runs with the next while the merge is valid and no
/// finish time after it gets later (with `oneInFlight`, under that
/// limit). A bucket's finish is monotone in the
/// previous one, so once the new chain of finishes is no later than the
/// old one the rest is no later either; the chain is followed at most
/// kReach buckets, which bounds the work by O(n * kReach). `fin` holds, for
/// the buckets not yet visited, bounds that are exact or later than their
/// finish in the current partition and consistent (each at least what the
/// one before implies), so the last finish never gets later than before.
void mergeWhileFree(const Problem &prob, std::vector<int64_t> &bucketOf,
                    bool oneInFlight) {
  constexpr size_t kReach = 64;
  struct Run {
    size_t begin, end; // [begin, end)
    double ready, bytes;
  };
  // The steal delays a run by the bytes before its first item.
  std::vector<double> S(prob.items.size() + 1, 0);
  for (size_t i = 0; i < prob.items.size(); ++i)
    S[i + 1] = S[i] + prob.items[i].bytes;
  std::vector<Run> runs;
  for (size_t i = 0, n = prob.items.size(); i < n;) {
    size_t j = i;
    double ready = 0, bytes = 0;
    for (; j < n && bucketOf[j] == bucketOf[i]; ++j) {
      ready = std::max(ready, prob.items[j].ready);
      bytes += prob.items[j].bytes;
    }
    runs.push_back({i, j, ready, bytes});
    i = j;
  }
  if (runs.size() < 2)
    return;
  auto cost = [&](const Run &r, double bytes) {
    const Item &head = prob.items[r.begin];
    return head.key < 0 ? head.fixedSeconds : prob.pricers[head.key](bytes);
  };
  auto after = [&](double prev, const Run &r, double bytes) {
    double shift = prob.steal * S[r.begin], ready = r.ready + shift;
    double begin =
        oneInFlight
            ? (prev <= ready ? ready
                             : prob.limits.nextBoundary(prev - shift) + shift) +
                  prob.wakeup
            : std::max(ready + prob.wakeup, prev);
    return begin + cost(r, bytes);
  };
  std::vector<double> fin(runs.size());
  for (size_t b = 0; b < runs.size(); ++b)
    fin[b] = after(b ? fin[b - 1] : 0.0, runs[b], runs[b].bytes);
  const double tol = kTieTolerance * std::max(fin.back(), 1e-9);

  std::vector<Run> out{runs[0]};
  std::vector<double> outFin{fin[0]}; // exact
  for (size_t b = 1; b < runs.size(); ++b) {
    Run &cur = out.back();
    const Run &next = runs[b];
    const Item &head = prob.items[cur.begin];
    bool valid =
        head.key >= 0 && prob.items[next.begin].key == head.key &&
        (prob.caps.maxCount <= 0 ||
         static_cast<int64_t>(next.end - cur.begin) <= prob.caps.maxCount) &&
        (prob.caps.maxBucketBytes <= 0 ||
         cur.bytes + next.bytes <= prob.caps.maxBucketBytes);
    for (size_t m = next.begin; valid && m < next.end; ++m)
      valid = prob.items[m].key == head.key &&
              prob.items[m].dependsOn < static_cast<int64_t>(cur.begin);
    if (valid) {
      double prev = out.size() > 1 ? outFin[out.size() - 2] : 0.0;
      Run merged{cur.begin, next.end, std::max(cur.ready, next.ready),
                 cur.bytes + next.bytes};
      // The merged bucket ends where runs[b] did; follow the chain of the
      // buckets after it until it is no later than the old finishes.
      std::vector<double> chain{after(prev, merged, merged.bytes)};
      size_t k = b;
      while (chain.back() > fin[k] + tol && k + 1 < runs.size() &&
             k - b < kReach) {
        ++k;
        chain.push_back(after(chain.back(), runs[k], runs[k].bytes));
      }
      if (chain.back() <= fin[k] + tol) {
        cur = merged;
        outFin.back() = chain[0];
        for (size_t m = b + 1; m <= k; ++m)
          fin[m] = chain[m - b];
        continue;
      }
    }
    double f = after(outFin.back(), next, next.bytes);
    out.push_back(next);
    outFin.push_back(f);
  }
  for (size_t b = 0; b < out.size(); ++b)
    for (size_t i = out[b].begin; i < out[b].end; ++i)
      bucketOf[i] = static_cast<int64_t>(b);
}
} // namespace

namespace {
/// planOptimal's dynamic programme (BucketPlanner.h); with `oneInFlight`
/// under that limit, else under no limit.
Plan planDp(const Problem &prob, bool oneInFlight) {
  const int64_t n = static_cast<int64_t>(prob.items.size());
  const double inf = std::numeric_limits<double>::infinity();
  // G[i]: when a start held back by the bucket that ends at F[i] may
  // begin (issued at the next boundary, then the wake-up; F[i] itself
  // without a limit, where the start was issued long before). A start
  // whose previous bucket ended by its ready time (by R_j + w without a
  // limit) begins at R_j + w: RI[j] is the time the idle test compares F
  // with, R_j or R_j + w.
  const double w = prob.wakeup;
  // With a steal, the start after item i is shifted by steal x S[i]
  // (BucketPlanner.h), and so are the compute-op ends it may wait for.
  auto issueAfter = [&](double f, double shift) {
    return oneInFlight ? prob.limits.nextBoundary(f - shift) + shift + w : f;
  };
  std::vector<double> F(n + 1, 0), G(n + 1, 0), S(n + 1, 0), R(n, 0), RI(n, 0);
  std::vector<int64_t> start(n, 0), B(n + 1, 0); // B: buckets of prefix
  for (int64_t j = 0; j < n; ++j) {
    S[j + 1] = S[j] + prob.items[j].bytes;
    R[j] = std::max(prob.items[j].ready, j ? R[j - 1] : 0.0);
    RI[j] = oneInFlight ? R[j] : R[j] + w;
  }

  int64_t work = 0;
  int64_t idle = 0;    // largest i <= j with F[i] <= RI[j]
  int64_t bytesLo = 0; // smallest start within the byte cap
  int64_t runStart = -1, depLo = 0;
  int runKey = -1;
  std::vector<std::deque<int64_t>> windows;
  std::vector<double> top; // with a steal: the latest ready of [i..j]

  for (int64_t j = 0; j < n; ++j) {
    const Item &it = prob.items[j];
    while (idle + 1 <= j && F[idle + 1] <= RI[j])
      ++idle;
    if (prob.caps.maxBucketBytes > 0)
      while (bytesLo < j && S[j + 1] - S[bytesLo] > prob.caps.maxBucketBytes)
        ++bytesLo;

    if (it.key < 0) {
      double sh = prob.steal * S[j];
      double r = prob.steal > 0 ? it.ready : R[j];
      double ri = (oneInFlight ? r : r + w) + sh;
      F[j + 1] = (F[j] <= ri ? r + sh + w : G[j]) + it.fixedSeconds;
      G[j + 1] = issueAfter(F[j + 1], prob.steal * S[j + 1]);
      B[j + 1] = B[j] + 1;
      start[j] = j;
      runStart = -1;
      continue;
    }
    const BucketPricer &price = prob.pricers[it.key];
    // The windows need non-decreasing affine pieces; anything else scans.
    bool fast = prob.steal == 0 && price.isAffine() && !price.pieces.empty() &&
                std::all_of(price.pieces.begin(), price.pieces.end(),
                            [](const AffinePiece &pc) { return pc.beta >= 0; });
    if (runStart < 0 || it.key != runKey) {
      runStart = depLo = j;
      runKey = it.key;
      windows.assign(fast ? price.pieces.size() : 0, {});
    }
    depLo = std::max(depLo, it.dependsOn + 1);
    int64_t lo = std::max({runStart, depLo, bytesLo});
    if (prob.caps.maxCount > 0)
      lo = std::max(lo, j - prob.caps.maxCount + 1);
    lo = std::min(lo, j); // a single item is always a valid bucket

    double best = inf;
    int64_t bestStart = j;
    // Equal finishes (to rounding) go to the start with fewer buckets.
    auto consider = [&](double v, int64_t i) {
      ++work;
      double tol = kTieTolerance * std::max(std::fabs(v), 1e-9);
      if (v < best - tol || (v <= best + tol && B[i] < B[bestStart])) {
        best = v;
        bestStart = i;
      }
    };

    if (!fast) {
      // With a steal the running maximum of R is not free (an earlier
      // bucket's ready time is shifted less): a bucket's ready time is
      // then the latest of its own items', top[i - lo] for [i..j].
      if (prob.steal > 0) {
        top.assign(j - lo + 1, 0);
        for (int64_t i = j; i >= lo; --i)
          top[i - lo] =
              std::max(i < j ? top[i - lo + 1] : 0.0, prob.items[i].ready);
      }
      for (int64_t i = lo; i <= j; ++i) {
        double sh = prob.steal * S[i];
        double r = prob.steal > 0 ? top[i - lo] : R[j];
        double ri = (oneInFlight ? r : r + w) + sh;
        consider((F[i] <= ri ? r + sh + w : G[i]) + price(S[j + 1] - S[i]), i);
      }
    } else {
      if (idle >= lo)
        consider(R[j] + w + price(S[j + 1] - S[idle]), idle);
      int64_t busyLo = std::max(lo, idle + 1);
      for (size_t a = 0; a < windows.size(); ++a) {
        const AffinePiece &pc = price.pieces[a];
        auto key = [&](int64_t i) { return G[i] - pc.beta * S[i]; };
        std::deque<int64_t> &w = windows[a];
        while (!w.empty() && key(w.back()) >= key(j)) {
          w.pop_back();
          ++work;
        }
        w.push_back(j);
        ++work;
        while (!w.empty() && w.front() < busyLo) {
          w.pop_front();
          ++work;
        }
        if (!w.empty())
          consider(pc.alpha + pc.beta * S[j + 1] + key(w.front()), w.front());
      }
    }
    F[j + 1] = best;
    G[j + 1] = issueAfter(best, prob.steal * S[j + 1]);
    B[j + 1] = B[bestStart] + 1;
    start[j] = bestStart;
  }

  Plan plan;
  plan.bucketOf.assign(n, 0);
  std::vector<int64_t> starts;
  for (int64_t j = n - 1; j >= 0; j = start[j] - 1)
    starts.push_back(start[j]);
  std::reverse(starts.begin(), starts.end());
  for (size_t b = 0; b < starts.size(); ++b) {
    int64_t end = b + 1 < starts.size() ? starts[b + 1] : n;
    for (int64_t i = starts[b]; i < end; ++i)
      plan.bucketOf[i] = static_cast<int64_t>(b);
  }
  mergeWhileFree(prob, plan.bucketOf, oneInFlight);
  plan.finishSeconds = evaluatePlan(prob, plan.bucketOf);
  plan.programmeSeconds = F[n];
  plan.work = work;
  return plan;
}

int64_t bucketCount(const std::vector<int64_t> &bucketOf) {
  return bucketOf.empty()
             ? 0
             : *std::max_element(bucketOf.begin(), bucketOf.end()) + 1;
}

/// Whether `plan` beats `best` under the exact evaluation: an earlier
/// finish, or the same (to rounding) with fewer buckets.
bool better(const Plan &plan, const Plan &best) {
  double tol = kTieTolerance * std::max(best.finishSeconds, 1e-9);
  return plan.finishSeconds < best.finishSeconds - tol ||
         (plan.finishSeconds <= best.finishSeconds + tol &&
          bucketCount(plan.bucketOf) < bucketCount(best.bucketOf));
}

/// The smallest threshold at which planThreshold's partition `bucketOf`
/// changes (a bucket takes its next item), or infinity.
double nextThreshold(const Problem &prob,
                     const std::vector<int64_t> &bucketOf) {
  const size_t n = prob.items.size();
  double next = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < n;) {
    size_t j = i;
    double bytes = prob.items[i].bytes;
    while (j + 1 < n && bucketOf[j + 1] == bucketOf[i])
      bytes += prob.items[++j].bytes;
    const Item &head = prob.items[i];
    if (j + 1 < n && head.key >= 0) {
      const Item &nx = prob.items[j + 1];
      double need = bytes + nx.bytes;
      if (nx.key == head.key && nx.dependsOn < static_cast<int64_t>(i) &&
          (prob.caps.maxCount <= 0 ||
           static_cast<int64_t>(j + 2 - i) <= prob.caps.maxCount) &&
          (prob.caps.maxBucketBytes <= 0 || need <= prob.caps.maxBucketBytes))
        next = std::min(next, need);
    }
    i = j + 1;
  }
  return next;
}

/// Merges neighbouring buckets of a partition into runs while the exact
/// finish does not get later: O(buckets * n).
void mergeWhileNotLater(const Problem &prob, Plan &plan) {
  const int64_t n = static_cast<int64_t>(plan.bucketOf.size());
  for (int64_t b = 0; b + 1 < bucketCount(plan.bucketOf);) {
    int64_t first = std::find(plan.bucketOf.begin(), plan.bucketOf.end(), b) -
                    plan.bucketOf.begin();
    int64_t last = first;
    while (last + 1 < n && plan.bucketOf[last + 1] <= b + 1)
      ++last;
    if (!isValidBucket(prob, first, last)) {
      ++b;
      continue;
    }
    std::vector<int64_t> merged = plan.bucketOf;
    for (int64_t &x : merged)
      if (x > b)
        --x;
    double f = evaluatePlan(prob, merged);
    double tol = kTieTolerance * std::max(plan.finishSeconds, 1e-9);
    if (f <= plan.finishSeconds + tol) {
      plan.bucketOf = std::move(merged);
      plan.finishSeconds = f;
    } else {
      ++b;
    }
  }
}
} // namespace

Plan hccl::bucket::planOptimal(const Problem &prob) {
  const Limits &lim = prob.limits;
  if (!lim.any())
    return planDp(prob, false);
  if (lim.maxInFlight == 1) // a byte limit adds nothing to one in flight
    return planDp(prob, true);
  // Not a function of the previous finish alone: the best of candidates
  // under the exact evaluation (BucketPlanner.h).
  Plan best = planDp(prob, true);
  int64_t work = best.work;
  auto offer = [&](Plan p) {
    if (better(p, best))
      best = std::move(p);
  };
  Plan free = planDp(prob, false);
  work += free.work;
  offer(std::move(free));
  constexpr double kDdpCap = 25.0 * (1 << 20), kDdpFirst = 1 << 20;
  if (Plan ddp = planDdp(prob, kDdpCap, kDdpFirst);
      isValidPlan(prob, ddp.bucketOf)) // interleaved keys are not runs
    offer(std::move(ddp));
  double t = 0;
  for (int64_t k = 0; k < kMaxSweep; ++k) {
    Plan p = planThreshold(prob, t, 0);
    work += static_cast<int64_t>(prob.items.size());
    t = nextThreshold(prob, p.bucketOf);
    offer(std::move(p));
    if (!std::isfinite(t))
      break;
  }
  mergeWhileNotLater(prob, best);
  best.work = work;
  return best;
}

Problem hccl::bucket::inflateCosts(const Problem &prob, double margin) {
  Problem out = prob;
  const double f = 1 + margin;
  for (BucketPricer &p : out.pricers) {
    for (AffinePiece &a : p.pieces) {
      a.alpha *= f;
      a.beta *= f;
    }
    if (p.general)
      p.general = [g = p.general, f](double bytes) { return f * g(bytes); };
  }
  for (Item &it : out.items)
    it.fixedSeconds *= f;
  return out;
}

Plan hccl::bucket::planOptimalWithSlack(const Problem &prob, double margin) {
  Plan best = planOptimal(prob);
  if (!(margin > 0) || prob.items.empty())
    return best;
  int64_t work = best.work;
  const double tol = kTieTolerance * std::max(best.finishSeconds, 1e-9);
  for (double m : {margin, margin / 2, margin / 4}) {
    Plan p = planOptimal(inflateCosts(prob, m));
    work += p.work;
    double f = evaluatePlan(prob, p.bucketOf);
    if (f <= best.finishSeconds + tol) {
      p.finishSeconds = f;
      p.margin = m;
      p.work = work;
      return p;
    }
  }
  best.work = work;
  return best;
}
