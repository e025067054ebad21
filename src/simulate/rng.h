// A small, seeded, platform-independent random number generator for the
// simulator (never std::random_device, never wall time): SplitMix64 to expand
// the seed, xoshiro256** (Blackman & Vigna, 2018) for the stream. The
// distributions are written out here rather than taken from <random>, whose
// std::*_distribution results differ between standard libraries — the same
// seed must give byte-identical reports everywhere.
#pragma once

#include <cmath>
#include <cstdint>

namespace gpuplan::simulate {

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    uint64_t x = seed;
    for (uint64_t& s : s_) s = splitmix(x);
  }
  // Uniform 64-bit integer.
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform integer in [0, n); n > 0. (Modulo bias < 2^-40 for n < 2^24.)
  uint64_t below(uint64_t n) { return next() % n; }
  // Exponential with the given mean.
  double exponential(double mean) { return -mean * std::log1p(-uniform()); }
  // Standard normal (Box–Muller; the pair's second value is kept for the
  // next call, so the stream is deterministic).
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double u1 = 1.0 - uniform();
    const double u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    spare_ = r * std::sin(6.283185307179586 * u2);
    has_spare_ = true;
    return r * std::cos(6.283185307179586 * u2);
  }
  // Poisson with mean `lambda` (Knuth for small means, normal approximation
  // rounded at >= 64, which is within the simulator's needs).
  uint64_t poisson(double lambda) {
    if (lambda <= 0) return 0;
    if (lambda >= 64) {
      const double v = std::floor(lambda + std::sqrt(lambda) * normal() + 0.5);
      return v < 0 ? 0 : static_cast<uint64_t>(v);
    }
    const double limit = std::exp(-lambda);
    uint64_t k = 0;
    double p = uniform();
    while (p > limit) {
      ++k;
      p *= uniform();
    }
    return k;
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t splitmix(uint64_t& x) {
    uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t s_[4];
  double spare_ = 0;
  bool has_spare_ = false;
};

}  // namespace gpuplan::simulate
