// The largest value pushed within a trailing time window, in amortized O(1)
// a push: a monotonic deque (values decreasing from the front), from which
// a value is dropped once a later one is at least as large (it can never be
// the window's largest again) or once it leaves the window. The same answer
// as scanning every value of the window — the policies scanned them, which
// at a 1 s interval and a 5-minute window was 300 reads a decision.
#pragma once

#include <deque>
#include <utility>

namespace gpuplan::simulate::internal {

template <typename T>
class WindowMax {
 public:
  // Adds `v` at time `t` (non-decreasing), drops values older than
  // `t - window_s` (those at exactly t - window_s stay), and returns the
  // largest value left.
  T push(double t, T v, double window_s) {
    while (!q_.empty() && q_.back().second <= v) q_.pop_back();
    q_.emplace_back(t, v);
    while (q_.front().first < t - window_s) q_.pop_front();
    return q_.front().second;
  }
  // The largest value left (at least one push since clear()).
  [[nodiscard]] T max() const { return q_.front().second; }
  void clear() { q_.clear(); }

 private:
  std::deque<std::pair<double, T>> q_;
};

}  // namespace gpuplan::simulate::internal
