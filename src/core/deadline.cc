#include "core/deadline.h"

#include <algorithm>
#include <string>

#include "core/strings.h"

namespace gpuplan {

Deadline Deadline::after(double seconds, const std::atomic<bool>* gone) {
  Deadline d;
  d.budget_s_ = std::max(0.0, seconds);
  d.gone_ = gone;
  // Past ~292 years the clock's count would overflow: a deadline that far
  // is none (at_ stays max).
  if (d.budget_s_ < 1e9)
    d.at_ = Clock::now() +
            std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(d.budget_s_));
  return d;
}

bool Deadline::expired() const {
  if (gone_ != nullptr && gone_->load(std::memory_order_relaxed)) return true;
  return at_ != Clock::time_point::max() && Clock::now() >= at_;
}

Status Deadline::check(std::string_view doing) const {
  if (!expired()) return {};
  return tl::unexpected(error(doing));
}

Error Deadline::error(std::string_view doing) const {
  const bool left = gone_ != nullptr && gone_->load(std::memory_order_relaxed);
  std::string m = left ? "stopped: the client left"
                       : "gave up after the " + strings::fixed(budget_s_, budget_s_ < 10 ? 1 : 0) +
                             " s this computation was given";
  if (!doing.empty()) m += ", while " + std::string(doing);
  return Error{ErrorCode::kDeadlineExceeded, std::move(m), Where{}};
}

}  // namespace gpuplan
