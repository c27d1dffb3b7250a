//===- rt_shm_split_test.cpp - The split, on two shm pairs in one process -===//
//
// transport/shm/ShmPair.h, "The split": a sender whose step only sends one
// message writes the part its receiver asks for into the receiver's
// buffer, while the receiver reads the rest. Both ranks' pairs live in this
// process (both segments, both ends), driven by hand, so each test can stop
// between the protocol's moves and look.
//
//===----------------------------------------------------------------------===//
#include "transport/Transport.h"
#include "transport/shm/Regions.h"
#include "transport/shm/Segment.h"
#include "transport/shm/ShmPair.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

namespace {
using namespace hccl::rt;

/// Rank 0's pair with rank 1 (`pair[0]`) and rank 1's with rank 0
/// (`pair[1]`), over two segments of this process.
struct TwoPairs {
  RingGeometry g;
  std::unique_ptr<Segment> seg[2];
  std::unique_ptr<ShmPair> pair[2];
  explicit TwoPairs(uint64_t tag) {
    for (int r = 0; r < 2; ++r) {
      auto s = Segment::create(r, 2, tag, g);
      if (!s.isOk())
        return;
      seg[r] = s.take();
    }
    for (int r = 0; r < 2; ++r) {
      auto self = PeerProcess::open(::getpid());
      if (!self.isOk())
        return;
      auto peerSeg =
          Segment::import(**self, seg[1 - r]->fd(), 1 - r, 2, tag, g);
      if (!peerSeg.isOk())
        return;
      pair[r] =
          std::make_unique<ShmPair>(r, 1 - r, seg[r].get(), peerSeg.take(),
                                    self.take(), ShmPairOptions());
    }
  }
  bool ok() const { return pair[0] && pair[1]; }
  /// One progress call on rank r's pair; "" or its error.
  std::string step(int r) {
    bool moved = false;
    Status st = pair[r]->progress(moved);
    return st.isOk() ? "" : st.message();
  }
};

WireHeader header(uint64_t bytes, uint32_t ordinal) {
  WireHeader w;
  w.call.seq = 9;
  w.call.kind = CallKind::Broadcast;
  w.bytes = bytes;
  w.ordinal = ordinal;
  return w;
}

/// A registered region of `bytes`, filled with `fill`.
std::unique_ptr<Region> region(size_t bytes, unsigned char fill) {
  auto r = RegionRegistry::instance().create(bytes);
  if (!r.isOk())
    return nullptr;
  std::unique_ptr<Region> out = r.take();
  std::memset(out->data(), fill, bytes);
  return out;
}

void fillSend(SendOp &s, const void *src, size_t bytes, bool splitCapable) {
  s.peer = 0;
  s.src = src;
  s.bytes = bytes;
  s.hdr = header(bytes, 0);
  s.splitCapable = splitCapable;
}

void fillRecv(RecvOp &r, void *dst, size_t bytes) {
  r.peer = 1;
  r.dst = dst;
  r.bytes = bytes;
  r.expect = header(bytes, 0);
}

// Rank 1 sends a message announced splitCapable; rank 0 receives it into
// its registered buffer. Rank 0 asks for the first half (streamed when its
// receive streams), reads the second a piece per call and releases the
// RTS, but its receive completes only once rank 1 has written its half;
// rank 1's send completes only once both are done. The result is the
// message, byte for byte, at odd sizes and over several pieces too. A
// sender that finished and left (closed its segment) before the receiver
// looked again is no error: the done word is all the receiver needs.
TEST(ShmSplit, TheReceiverAsksTheIdleSenderForHalfAndAwaitsIt) {
  for (size_t bytes :
       {size_t(64) << 10, (size_t(40) << 10) + 3, (size_t(1) << 20) + 3})
    for (bool streamed : {false, true}) {
      std::string where =
          std::to_string(bytes) + (streamed ? " bytes, streamed" : " bytes");
      TwoPairs t(31);
      ASSERT_TRUE(t.ok());
      auto src = region(bytes, 0), dst = region(bytes + 64, 0xEE);
      ASSERT_TRUE(src && dst);
      std::mt19937 rng(static_cast<unsigned>(bytes));
      auto *in = static_cast<unsigned char *>(src->data());
      for (size_t i = 0; i < bytes; ++i)
        in[i] = static_cast<unsigned char>(rng());
      auto *out = static_cast<unsigned char *>(dst->data());
      SendOp s;
      fillSend(s, in, bytes, true);
      RecvOp r;
      fillRecv(r, out, bytes);
      r.nontemporal = streamed;
      ASSERT_TRUE(t.pair[1]->postSend(s).isOk());
      ASSERT_TRUE(t.pair[0]->postRecv(r).isOk());
      ASSERT_EQ(t.step(1), ""); // the RTS goes out
      ASSERT_EQ(t.seg[0]->slotHeader(1, 0)->splitCapable, 1u);
      // Ask, read the second half a piece per call, release.
      for (int i = 0; i < 16 && t.seg[0]->ctl(1)->tail.load() == 0; ++i)
        ASSERT_EQ(t.step(0), "");
      const size_t part = bytes / 2 / 4096 * 4096;
      const RingCtl *cell = t.seg[1]->ctl(0);
      EXPECT_EQ(cell->askSeq.load(), 1u) << where << ": asked";
      EXPECT_EQ(cell->ask.bytes, part) << where;
      EXPECT_EQ(cell->ask.streamed, streamed ? 1u : 0u) << where;
      ASSERT_EQ(t.seg[0]->ctl(1)->tail.load(), 1u) << where << ": released";
      EXPECT_EQ(std::memcmp(out + part, in + part, bytes - part), 0) << where;
      EXPECT_EQ(out[0], 0xEE) << where << ": the first half is the sender's";
      ASSERT_EQ(t.step(0), "");
      EXPECT_FALSE(r.done.load()) << where << ": waits for the sender's half";
      EXPECT_FALSE(s.done.load()) << where;
      // The sender takes the ask and writes its half, a piece per call.
      ASSERT_EQ(t.step(1), "");
      if (part > ShmPairOptions().pieceBytes) {
        EXPECT_FALSE(s.done.load()) << where << ": one piece written of more";
      }
      for (int i = 0; i < 16 && !s.done.load(); ++i)
        ASSERT_EQ(t.step(1), "");
      EXPECT_TRUE(s.done.load()) << where << ": released and its half written";
      EXPECT_EQ(std::memcmp(out, in, bytes), 0) << where;
      EXPECT_EQ(out[bytes], 0xEE) << where << ": nothing past the message";
      t.seg[1]->header()->closed.store(1); // the sender left
      Status h = t.pair[0]->health(header(bytes, 0).call);
      EXPECT_TRUE(h.isOk()) << where << ": " << h.message();
      ASSERT_EQ(t.step(0), "");
      EXPECT_TRUE(r.done.load()) << where;
      EXPECT_EQ(t.pair[1]->splitsWritten(), 1u) << where;
      EXPECT_EQ(t.pair[0]->splitsReceived(), 1u) << where;
    }
}

// No split without both sides: a send not announced splitCapable, or a
// receive into memory the sender cannot map (not registered), is read
// whole by the receiver, with the same result and nothing asked.
TEST(ShmSplit, WithoutTheAnnouncementOrAShareableBufferTheReceiverReadsAll) {
  const size_t bytes = 64 << 10;
  for (bool announced : {false, true}) {
    TwoPairs t(33);
    ASSERT_TRUE(t.ok());
    auto src = region(bytes, 0x5A), dst = region(bytes, 0);
    std::vector<unsigned char> heap(bytes, 0);
    ASSERT_TRUE(src && dst);
    // Announced: the receiver's buffer is heap memory (no ask possible).
    void *into = announced ? heap.data() : dst->data();
    SendOp s;
    fillSend(s, src->data(), bytes, announced);
    RecvOp r;
    fillRecv(r, into, bytes);
    ASSERT_TRUE(t.pair[1]->postSend(s).isOk());
    ASSERT_TRUE(t.pair[0]->postRecv(r).isOk());
    ASSERT_EQ(t.step(1), "");
    ASSERT_EQ(t.step(0), "");
    EXPECT_TRUE(r.done.load()) << "read whole at once";
    EXPECT_EQ(t.seg[1]->ctl(0)->askSeq.load(), 0u) << "nothing asked";
    EXPECT_EQ(static_cast<unsigned char *>(into)[0], 0x5A);
    EXPECT_EQ(static_cast<unsigned char *>(into)[bytes - 1], 0x5A);
    ASSERT_EQ(t.step(1), "");
    EXPECT_TRUE(s.done.load());
    EXPECT_EQ(t.pair[1]->splitsWritten(), 0u);
  }
}

// The ask comes from the peer: an ask for a message this rank did not
// announce splitCapable, for more bytes than the message, or into a region
// that does not map is refused with an error naming the peer, and nothing
// is written.
TEST(ShmSplit, AForgedAskIsRefused) {
  const size_t bytes = 64 << 10;
  auto src = region(bytes, 0x11), dst = region(bytes, 0x22);
  ASSERT_TRUE(src && dst);
  struct Case {
    const char *what;
    bool announced;
    uint64_t askBytes;
    bool badRegion;
    const char *error;
  } cases[] = {
      {"not announced", false, 4096, false, "did not offer to split"},
      {"too long", true, bytes + 4096, false, "bytes of its"},
      {"unmappable", true, 4096, true, "cannot map"},
  };
  for (const Case &c : cases) {
    TwoPairs t(35);
    ASSERT_TRUE(t.ok());
    SendOp s;
    fillSend(s, src->data(), bytes, c.announced);
    ASSERT_TRUE(t.pair[1]->postSend(s).isOk());
    ASSERT_EQ(t.step(1), "");
    // Rank 0's ask, written by hand into its cell in rank 1's segment.
    RingCtl *cell = t.seg[1]->ctl(0);
    cell->ask.call = header(bytes, 0).call;
    cell->ask.ordinal = 0;
    cell->ask.streamed = 0;
    cell->ask.bytes = c.askBytes;
    ASSERT_TRUE(
        RegionRegistry::instance().find(dst->data(), 4096, cell->ask.dst));
    if (c.badRegion)
      cell->ask.dst.offset = dst->bytes() + 4096 * 2;
    cell->askSeq.store(1);
    std::string e = t.step(1);
    EXPECT_NE(e.find(c.error), std::string::npos) << c.what << ": " << e;
    EXPECT_NE(e.find("rank 0"), std::string::npos) << c.what << ": " << e;
    EXPECT_EQ(static_cast<unsigned char *>(dst->data())[0], 0x22) << c.what;
    EXPECT_FALSE(s.done.load()) << c.what;
    t.pair[1]->cancelAll();
  }
}

// A sender whose communicator was aborted (its own segment's abort
// record, which the aborting peer sets) stops writing into the peer's
// buffer: its half stays unwritten, its send never completes (the call
// fails on the abort), and the receiver does not complete either.
TEST(ShmSplit, AnAbortStopsTheSendersHalf) {
  const size_t bytes = 64 << 10;
  TwoPairs t(37);
  ASSERT_TRUE(t.ok());
  auto src = region(bytes, 0x77), dst = region(bytes, 0);
  ASSERT_TRUE(src && dst);
  SendOp s;
  fillSend(s, src->data(), bytes, true);
  RecvOp r;
  fillRecv(r, dst->data(), bytes);
  ASSERT_TRUE(t.pair[1]->postSend(s).isOk());
  ASSERT_TRUE(t.pair[0]->postRecv(r).isOk());
  ASSERT_EQ(t.step(1), "");
  ASSERT_EQ(t.step(0), "");
  Status why(HCCL_E_INTERNAL, "test abort");
  t.pair[0]->notifyAbort(why); // rank 0 aborts: marks rank 1's segment
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(t.step(1), "");
    ASSERT_EQ(t.step(0), "");
  }
  EXPECT_EQ(static_cast<unsigned char *>(dst->data())[0], 0)
      << "the first half unwritten";
  EXPECT_FALSE(s.done.load());
  EXPECT_FALSE(r.done.load());
  EXPECT_EQ(t.pair[1]->splitsWritten(), 0u);
  t.pair[0]->cancelAll();
  t.pair[1]->cancelAll();
}

} // namespace
