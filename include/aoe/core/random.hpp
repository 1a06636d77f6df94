// Random numbers that are the same on every platform: xoshiro256** seeded through splitmix64,
// and our own distributions (the standard library's are implementation-defined).
#ifndef AOE_CORE_RANDOM_HPP
#define AOE_CORE_RANDOM_HPP

#include "aoe/core/math.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace aoe {

/// splitmix64 step (Steele, Lea, Flood: "Fast splittable pseudorandom number generators", 2014).
[[nodiscard]] constexpr std::uint64_t splitmix64(std::uint64_t& state) noexcept {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31U);
}

/// A seed for an independent stream `stream` derived from `seed`, so that policies composed
/// in one tuner (or repetitions of a benchmark) never share a sequence.
[[nodiscard]] constexpr std::uint64_t derive_seed(std::uint64_t seed,
                                                  std::uint64_t stream) noexcept {
  std::uint64_t s = seed ^ (0xD1B54A32D192ED03ULL * (stream + 1));
  return splitmix64(s);
}

/// xoshiro256** 1.0 (Blackman, Vigna: "Scrambled linear pseudorandom number generators", 2021).
/// Satisfies std::uniform_random_bit_generator. Never seeded from the clock.
class Rng {
  __extension__ using Uint128 = unsigned __int128;  // GCC and Clang; exact 64x64 products

 public:
  using result_type = std::uint64_t;

  constexpr explicit Rng(std::uint64_t seed = 0) noexcept { reseed(seed); }

  constexpr void reseed(std::uint64_t seed) noexcept {
    std::uint64_t s = seed;
    for (auto& word : state_) word = splitmix64(s);
  }

  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return std::numeric_limits<result_type>::max(); }

  constexpr result_type operator()() noexcept {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17U;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  /// Uniform integer in [0, n), n > 0, without modulo bias (Lemire, "Fast random integer
  /// generation in an interval", ACM TOMACS 2019).
  constexpr std::uint64_t below(std::uint64_t n) noexcept {
    Uint128 m = static_cast<Uint128>((*this)()) * n;
    auto low = static_cast<std::uint64_t>(m);
    if (low < n) {
      const std::uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<Uint128>((*this)()) * n;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64U);
  }

  /// Uniform double in [0, 1) with 53 random bits.
  constexpr double uniform() noexcept { return static_cast<double>((*this)() >> 11U) * 0x1.0p-53; }

  /// Uniform double in [lo, hi).
  constexpr double uniform(double lo, double hi) noexcept { return lo + (hi - lo) * uniform(); }

  /// True with probability p.
  constexpr bool bernoulli(double p) noexcept { return uniform() < p; }

  /// Standard normal deviate (Marsaglia polar method).
  double normal() noexcept {
    double u = 0;
    double v = 0;
    double s = 0;
    do {
      u = uniform(-1.0, 1.0);
      v = uniform(-1.0, 1.0);
      s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    return u * math::sqrt(-2.0 * math::log(s) / s);
  }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) noexcept {
    return (x << k) | (x >> (64 - k));
  }
  std::array<std::uint64_t, 4> state_{};
};

}  // namespace aoe

#endif  // AOE_CORE_RANDOM_HPP
