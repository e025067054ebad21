#include "simulate/histogram.h"

#include <cmath>

namespace gpuplan::simulate {

// Bucket layout: v = ms / kUnit (integer "ticks"). Ticks below 2*kSub are
// stored linearly (index = ticks, exact to 1/128 ms). Above, octave o >= 1
// holds [kSub * 2^o, kSub * 2^(o+1)) split into kSub equal buckets
// (index() is inline in the header: it runs twice per request).
double Histogram::bucket_mid(int i) {
  if (i < 2 * kSub) return (i + 0.5) * kUnit;
  const int octave = i / kSub - 1;
  const int sub = i % kSub;
  const double lo = std::ldexp(static_cast<double>(kSub + sub), octave);
  const double width = std::ldexp(1.0, octave);
  return (lo + width / 2) * kUnit;
}

double Histogram::quantile(double q) const {
  if (total_ == 0) return 0;
  if (q < 0) q = 0;
  if (q > 1) q = 1;
  uint64_t rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(total_)));
  if (rank == 0) rank = 1;
  uint64_t seen = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) return bucket_mid(static_cast<int>(i));
  }
  return bucket_mid(static_cast<int>(counts_.size()) - 1);
}

}  // namespace gpuplan::simulate
