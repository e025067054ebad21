// The simulator's event queue: a 4-ary min-heap of small flat events,
// ordered by (time, sequence number) so that events at the same instant run
// in the order they were scheduled — the tie-break that makes runs
// byte-identical. (time, seq) is a total order, so any correct heap pops the
// same sequence; 4-ary halves the depth of a binary heap and its four
// children share one or two cache lines, which makes pop — the dominant cost
// with one pending completion per running sequence — about a third cheaper. Time is an integer
// count of microseconds of simulated time (no floating-point drift, no wall clock). The heap is a
// std::vector that is reserved once and reused, so steady-state scheduling allocates nothing.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
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
  void reserve(size_t n) { heap_.reserve(n); }
  [[nodiscard]] bool empty() const { return heap_.empty(); }
  [[nodiscard]] size_t size() const { return heap_.size(); }
  // The earliest event (the queue must not be empty).
  [[nodiscard]] Event top() const { return unpack(heap_.front()); }
  [[nodiscard]] uint64_t scheduled() const { return next_seq_; }

  // Schedules (kind, a) at `time`; kind < kMaxKind, a < kMaxPayload, and
  // fewer than 2^40 pushes over the queue's life.
  void push(SimTime time, uint32_t kind, uint32_t a = 0) {
    assert(kind < kMaxKind && a < kMaxPayload && next_seq_ < (uint64_t{1} << kSeqBits));
    heap_.push_back(
        Node{time, next_seq_++ << (kKindBits + kPayloadBits) | uint64_t{kind} << kPayloadBits | a});
    sift_up(heap_.size() - 1);
  }
  // Removes and returns the earliest event (the queue must not be empty).
  Event pop() {
    const Event out = unpack(heap_.front());
    const Node last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) refill_root(last);
    return out;
  }
  void clear() { heap_.clear(); }
  // Removes every event for which `drop(event)` is true and restores the
  // heap: O(size) — for rare events (a spot eviction taking back its VM's
  // completions), never per request.
  template <typename Pred>
  void erase_if(Pred drop) {
    size_t keep = 0;
    for (size_t i = 0; i < heap_.size(); ++i)
      if (!drop(unpack(heap_[i]))) heap_[keep++] = heap_[i];
    heap_.resize(keep);
    for (size_t i = heap_.size() / kArity + 1; i-- > 0;)
      if (i < heap_.size()) sift_down(i);
  }

  static constexpr int kKindBits = 4, kPayloadBits = 20, kSeqBits = 40;
  static constexpr uint32_t kMaxKind = 1u << kKindBits;
  static constexpr uint32_t kMaxPayload = 1u << kPayloadBits;

 private:
  // 16 bytes, so a node's four children fill one 64-byte cache line: the
  // sequence number in the high bits of `key`, so comparing (time, key)
  // compares (time, seq); kind and payload below it.
  struct Node {
    SimTime time;
    uint64_t key;
  };
  static Event unpack(const Node& n) {
    return Event{n.time, n.key >> (kKindBits + kPayloadBits),
                 static_cast<uint32_t>(n.key >> kPayloadBits) & (kMaxKind - 1),
                 static_cast<uint32_t>(n.key) & (kMaxPayload - 1)};
  }

  // Bitwise, not short-circuit: the comparison of random times is
  // unpredictable, so flags and conditional moves beat branches.
  static bool before(const Node& x, const Node& y) {
    return (x.time < y.time) | ((x.time == y.time) & (x.key < y.key));
  }
  void sift_up(size_t i) {
    const Node e = heap_[i];
    while (i > 0) {
      size_t parent = (i - 1) / kArity;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  void sift_down(size_t i) {
    const size_t n = heap_.size();
    const Node e = heap_[i];
    for (;;) {
      const size_t first = kArity * i + 1;
      if (first >= n) break;
      size_t c = first;
      const size_t last = std::min(first + kArity, n);
      for (size_t k = first + 1; k < last; ++k) c = before(heap_[k], heap_[c]) ? k : c;
      if (!before(heap_[c], e)) break;
      heap_[i] = heap_[c];
      i = c;
    }
    heap_[i] = e;
  }
  // pop()'s refill (Floyd's bottom-up deletion): the root's hole moves down
  // the smaller child to a leaf, and `last` (a leaf's value, so it belongs
  // near the bottom) sifts up from there. sift_down from the root compared
  // `last` with the smallest child at every level as well, a branch on
  // random times that mispredicts about half the time.
  void refill_root(const Node& last) {
    const size_t n = heap_.size();
    size_t i = 0;
    for (;;) {
      const size_t first = kArity * i + 1;
      if (first + kArity <= n) {  // four children: a tournament of two pairs
        const size_t a = before(heap_[first + 1], heap_[first]) ? first + 1 : first;
        const size_t b = before(heap_[first + 3], heap_[first + 2]) ? first + 3 : first + 2;
        const size_t c = before(heap_[b], heap_[a]) ? b : a;
        heap_[i] = heap_[c];
        i = c;
        continue;
      }
      if (first >= n) break;
      size_t c = first;
      for (size_t k = first + 1; k < n; ++k) c = before(heap_[k], heap_[c]) ? k : c;
      heap_[i] = heap_[c];
      i = c;
      break;  // a node with fewer than four children has no grandchildren
    }
    while (i > 0) {
      const size_t parent = (i - 1) / kArity;
      if (!before(last, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = last;
  }
  static constexpr size_t kArity = 4;
  std::vector<Node> heap_;
  uint64_t next_seq_ = 0;
};

}  // namespace gpuplan::simulate
