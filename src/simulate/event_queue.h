// The simulator's event queue: a binary min-heap of small flat events,
// ordered by (time, sequence number) so that events at the same instant run
// in the order they were scheduled — the tie-break that makes runs
// byte-identical. Time is an integer count of microseconds of simulated time
// (no floating-point drift, no wall clock). The heap is a std::vector that is
// reserved once and reused, so steady-state scheduling allocates nothing.
#pragma once

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
  double x = 0;       // payload (a latency, a token count, ...)
};

class EventQueue {
 public:
  void reserve(size_t n) { heap_.reserve(n); }
  [[nodiscard]] bool empty() const { return heap_.empty(); }
  [[nodiscard]] size_t size() const { return heap_.size(); }
  [[nodiscard]] const Event& top() const { return heap_.front(); }
  [[nodiscard]] uint64_t scheduled() const { return next_seq_; }

  void push(SimTime time, uint32_t kind, uint32_t a = 0, double x = 0) {
    Event e{time, next_seq_++, kind, a, x};
    heap_.push_back(e);
    sift_up(heap_.size() - 1);
  }
  Event pop() {
    Event out = heap_.front();
    heap_.front() = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0);
    return out;
  }
  void clear() { heap_.clear(); }

 private:
  static bool before(const Event& x, const Event& y) {
    return x.time < y.time || (x.time == y.time && x.seq < y.seq);
  }
  void sift_up(size_t i) {
    Event e = heap_[i];
    while (i > 0) {
      size_t parent = (i - 1) / 2;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  void sift_down(size_t i) {
    const size_t n = heap_.size();
    Event e = heap_[i];
    for (;;) {
      size_t c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && before(heap_[c + 1], heap_[c])) ++c;
      if (!before(heap_[c], e)) break;
      heap_[i] = heap_[c];
      i = c;
    }
    heap_[i] = e;
  }
  std::vector<Event> heap_;
  uint64_t next_seq_ = 0;
};

}  // namespace gpuplan::simulate
