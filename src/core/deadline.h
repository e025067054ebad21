// When a long computation should give up: an instant on the steady clock,
// and optionally a flag another thread sets (the server's client left).
//
// The server bounds what a request may ask for from its inputs (work caps:
// arrivals, decisions, candidates), but some work no input count foresees
// — a 100,000-VM fleet's per-VM loops at every decision, a day of start-up
// at a 1-s interval — and a worker held for minutes is a worker lost to
// every other client. So the routes that can run long carry a Deadline, and
// their loops check it every few thousand steps (DeadlinePoll). A default
// Deadline never expires and costs one branch a check; the CLI sets none.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string_view>

#include "core/result.h"

namespace gpuplan {

class Deadline {
 public:
  using Clock = std::chrono::steady_clock;

  Deadline() = default;  // never expires
  // `seconds` from now (or when `*gone` turns true, if given).
  [[nodiscard]] static Deadline after(double seconds, const std::atomic<bool>* gone = nullptr);

  [[nodiscard]] bool active() const { return gone_ != nullptr || at_ != Clock::time_point::max(); }
  [[nodiscard]] double budget_s() const { return budget_s_; }
  // Reads the clock and the flag.
  [[nodiscard]] bool expired() const;
  // kDeadlineExceeded once expired ("gave up after the 30 s this
  // computation was given, while `doing`"), OK before.
  [[nodiscard]] Status check(std::string_view doing) const;
  // That error, for a caller that already saw expired().
  [[nodiscard]] Error error(std::string_view doing) const;

 private:
  Clock::time_point at_ = Clock::time_point::max();  // max: no time limit
  double budget_s_ = 0;
  const std::atomic<bool>* gone_ = nullptr;
};

// A Deadline read once every `every` calls: for loops of cheap steps (an
// engine's events), where reading the clock at each would cost more than
// the step.
class DeadlinePoll {
 public:
  explicit DeadlinePoll(const Deadline& d, uint32_t every = 1024) : d_(d), every_(every) {}
  [[nodiscard]] bool expired() {
    if (!d_.active() || ++n_ < every_) return false;
    n_ = 0;
    return d_.expired();
  }

 private:
  const Deadline& d_;
  uint32_t every_;
  uint32_t n_ = 0;
};

}  // namespace gpuplan
