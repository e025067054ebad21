// The simulator's event queue: small flat events ordered by (time, sequence
// number) so that events at the same instant run in the order they were
// scheduled — the tie-break that makes runs byte-identical. (time, seq) is a
// total order, so any correct priority queue pops the same sequence. Time is
// an integer count of microseconds of simulated time (no floating-point
// drift, no wall clock).
//
// A radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, "Faster algorithms for
// the shortest path problem", JACM 1990): the pending events later than the
// last refill's time `last_` sit in 64 buckets by the highest bit in which
// their time differs from it, so a push is one XOR, one count of leading
// zeros and an append, and a pop takes from a small heap of the events at
// or before `last_` (usually one: times are microseconds), refilled from the
// lowest nonempty bucket, whose events each move to a lower bucket. Each
// event moves at most 64 times and in practice a few. The simulator pushes
// almost only at or after the current time, but the queue does not rely on
// it: an earlier event goes to the small heap, which is ordered by (time,
// seq), and every bucketed event is later than all of it. (A 4-ary heap
// was the queue until 2026-12-06: five levels of comparisons on random
// times for every completion at a few hundred pending; this is ~20 ns an
// event cheaper on that load.) Buckets are vectors that keep their
// capacity, so steady-state scheduling allocates nothing (a bucket of more
// than 64 k events' room and 8 times what is pending gives it back).
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <limits>
#include <vector>

namespace gpuplan::simulate {

using SimTime = int64_t;  // microseconds of simulated time
inline constexpr SimTime kMicrosPerSecond = 1'000'000;
inline constexpr SimTime seconds(double s) {
  return static_cast<SimTime>(s * 1e6 + (s >= 0 ? 0.5 : -0.5));
}
inline constexpr double to_seconds(SimTime t) { return static_cast<double>(t) * 1e-6; }

struct Event {
  SimTime time = 0;
  uint64_t seq = 0;   // scheduling order; breaks ties deterministically
  uint32_t kind = 0;  // meaning is the owner's (serving: completion, ready, tick, ...)
  uint32_t a = 0;     // payload (replica index, ...)
};

class EventQueue {
 public:
  void reserve(size_t n) { now_.reserve(n); }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] size_t size() const { return size_; }
  // The earliest event (the queue must not be empty).
  [[nodiscard]] Event top() {
    if (now_.empty()) refill();
    return unpack(now_.front());
  }
  [[nodiscard]] uint64_t scheduled() const { return next_seq_; }

  // Schedules (kind, a) at `time`; kind < kMaxKind, a < kMaxPayload, and
  // fewer than 2^40 pushes over the queue's life.
  void push(SimTime time, uint32_t kind, uint32_t a = 0) {
    assert(kind < kMaxKind && a < kMaxPayload && next_seq_ < (uint64_t{1} << kSeqBits));
    const Node n{time,
                 next_seq_++ << (kKindBits + kPayloadBits) | uint64_t{kind} << kPayloadBits | a};
    ++size_;
    place(n);
  }
  // Removes and returns the earliest event (the queue must not be empty).
  Event pop() {
    if (now_.empty()) refill();
    std::pop_heap(now_.begin(), now_.end(), later);
    const Event out = unpack(now_.back());
    now_.pop_back();
    --size_;
    return out;
  }
  void clear() {
    now_.clear();
    for (std::vector<Node>& b : buckets_) b.clear();
    nonempty_ = 0;
    size_ = 0;
  }
  // Removes every event for which `drop(event)` is true: O(size) — for rare
  // events (a spot eviction taking back its VM's completions), never per
  // request.
  template <typename Pred>
  void erase_if(Pred drop) {
    const auto keep = [&](std::vector<Node>& v) {
      size_t k = 0;
      for (const Node& n : v)
        if (!drop(unpack(n))) v[k++] = n;
      size_ -= v.size() - k;
      v.resize(k);
    };
    keep(now_);
    std::make_heap(now_.begin(), now_.end(), later);
    for (size_t b = 0; b < kBuckets; ++b) {
      keep(buckets_[b]);
      if (buckets_[b].empty()) nonempty_ &= ~(uint64_t{1} << b);
    }
  }

  static constexpr int kKindBits = 4, kPayloadBits = 20, kSeqBits = 40;
  static constexpr uint32_t kMaxKind = 1u << kKindBits;
  static constexpr uint32_t kMaxPayload = 1u << kPayloadBits;

 private:
  // 16 bytes: the sequence number in the high bits of `key`, so comparing
  // (time, key) compares (time, seq); kind and payload below it.
  struct Node {
    SimTime time;
    uint64_t key;
  };
  static Event unpack(const Node& n) {
    return Event{n.time, n.key >> (kKindBits + kPayloadBits),
                 static_cast<uint32_t>(n.key >> kPayloadBits) & (kMaxKind - 1),
                 static_cast<uint32_t>(n.key) & (kMaxPayload - 1)};
  }
  // The heap order of now_ (std::*_heap keep the greatest first).
  static bool later(const Node& x, const Node& y) {
    return (x.time > y.time) | ((x.time == y.time) & (x.key > y.key));
  }
  // Signed times in unsigned order.
  static uint64_t bits(SimTime t) { return static_cast<uint64_t>(t) ^ (uint64_t{1} << 63); }

  // An event at or before last_ joins the heap of the earliest; a later one
  // the bucket of the highest bit in which it differs from last_.
  void place(const Node& n) {
    if (n.time <= last_) {
      now_.push_back(n);
      std::push_heap(now_.begin(), now_.end(), later);
      return;
    }
    const auto b = static_cast<size_t>(63 - __builtin_clzll(bits(n.time) ^ bits(last_)));
    buckets_[b].push_back(n);
    nonempty_ |= uint64_t{1} << b;
  }
  // now_ is empty: last_ becomes the earliest time of the lowest nonempty
  // bucket, whose events go to now_ (that time) or to lower buckets (they
  // share its bits above the bucket's and differ from last_ below them).
  void refill() {
    assert(nonempty_ != 0);
    const auto b = static_cast<size_t>(__builtin_ctzll(nonempty_));
    std::vector<Node>& from = buckets_[b];
    SimTime least = from.front().time;
    for (const Node& n : from) least = std::min(least, n.time);
    last_ = least;
    nonempty_ &= ~(uint64_t{1} << b);
    for (const Node& n : from) place(n);
    from.clear();
    // A bucket keeps its capacity for the next refill, unless that is far
    // more than is pending (after a burst: a bucket of millions of events,
    // then buckets of thousands, would hold its memory for the run).
    if (from.capacity() > kKeepCapacity && from.capacity() > 8 * size_)
      std::vector<Node>().swap(from);
  }
  static constexpr size_t kKeepCapacity = size_t{1} << 16;

  static constexpr size_t kBuckets = 64;
  std::vector<Node> now_;  // the events at or before last_, a heap by (time, seq)
  std::array<std::vector<Node>, kBuckets> buckets_;
  uint64_t nonempty_ = 0;  // bit b: buckets_[b] holds events
  SimTime last_ = std::numeric_limits<SimTime>::min();
  size_t size_ = 0;
  uint64_t next_seq_ = 0;
};

}  // namespace gpuplan::simulate
