#pragma once
// Counter-based randomness for the simulator: every draw is a pure function of
// (seed, repetition, stream, a, b, c), so the same seed gives the same run file whatever the
// loop order, and no generator state has to be carried through the simulation.

#include <cmath>
#include <cstdint>

namespace sim {

// Independent streams of draws; a stream's numbers never collide with another's.
enum class NoiseStream : std::uint64_t {
  kPhaseJitter = 1,  // (rank, step, phase)
  kSpike = 2,        // (rank, step, phase)
  kTransfer = 3,     // (step, phase, 0): one draw per collective, shared by all ranks
  kRunDrift = 4,     // (0, 0, 0): one draw per run
  kClockTruth = 5,   // (rank, 0|1, 0): each rank's true clock offset and drift
  kClockError = 6,   // (rank, 0..3, 0): ping-pong estimation error and round trips
};

class NoiseSource {
 public:
  NoiseSource(std::uint64_t seed, std::uint64_t repetition)
      : key_(mix(mix(seed) ^ (repetition + 0x632be59bd9b4e019ULL))) {}

  // Uniform in the open interval (0, 1).
  double uniform(NoiseStream stream, std::uint64_t a, std::uint64_t b, std::uint64_t c) const {
    return to_unit(bits(stream, a, b, c) >> 11);
  }

  // Standard normal (Box-Muller on two independent 32-bit halves of one draw).
  double normal(NoiseStream stream, std::uint64_t a, std::uint64_t b, std::uint64_t c) const {
    const std::uint64_t h = bits(stream, a, b, c);
    const double u1 = (static_cast<double>(h >> 32) + 0.5) * 0x1p-32;
    const double u2 = (static_cast<double>(h & 0xffffffffULL) + 0.5) * 0x1p-32;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  // splitmix64's finalizer: a bijective avalanche mix.
  static std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }
  static double to_unit(std::uint64_t bits53) {
    return (static_cast<double>(bits53) + 0.5) * 0x1p-53;
  }
  std::uint64_t bits(NoiseStream stream, std::uint64_t a, std::uint64_t b, std::uint64_t c) const {
    std::uint64_t h = mix(key_ ^ static_cast<std::uint64_t>(stream));
    h = mix(h ^ a);
    h = mix(h ^ (b * 0xd6e8feb86659fd93ULL));
    return mix(h ^ (c * 0xa0761d6478bd642fULL));
  }

  std::uint64_t key_;
};

// A multiplicative lognormal factor with mean 1 and coefficient of variation `cv`, from a
// standard normal draw z.
inline double lognormal_factor(double z, double cv) {
  if (cv <= 0) return 1.0;
  const double sigma2 = std::log1p(cv * cv);
  return std::exp(std::sqrt(sigma2) * z - 0.5 * sigma2);
}

}  // namespace sim
