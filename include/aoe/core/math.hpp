// The few functions of <cmath> that the vocabulary headers (space/, core/random.hpp) need, as
// the compiler's builtins: <cmath> alone is about a third of a search policy author's compile
// time (docs/building.md#compile-time). The builtins are what libstdc++'s own <cmath> calls, so
// the results are the same bit for bit; other compilers get <cmath>.
#ifndef AOE_CORE_MATH_HPP
#define AOE_CORE_MATH_HPP

#if !defined(__GNUC__) && !defined(__clang__)
#include <cmath>
#endif

namespace aoe::math {

#if defined(__GNUC__) || defined(__clang__)
[[nodiscard]] inline double fmod(double x, double y) noexcept { return __builtin_fmod(x, y); }
[[nodiscard]] inline double floor(double x) noexcept { return __builtin_floor(x); }
[[nodiscard]] inline double fabs(double x) noexcept { return __builtin_fabs(x); }
[[nodiscard]] inline double sqrt(double x) noexcept { return __builtin_sqrt(x); }
[[nodiscard]] inline double log(double x) noexcept { return __builtin_log(x); }
[[nodiscard]] inline long long llround(double x) noexcept { return __builtin_llround(x); }
#else
[[nodiscard]] inline double fmod(double x, double y) noexcept { return std::fmod(x, y); }
[[nodiscard]] inline double floor(double x) noexcept { return std::floor(x); }
[[nodiscard]] inline double fabs(double x) noexcept { return std::fabs(x); }
[[nodiscard]] inline double sqrt(double x) noexcept { return std::sqrt(x); }
[[nodiscard]] inline double log(double x) noexcept { return std::log(x); }
[[nodiscard]] inline long long llround(double x) noexcept { return std::llround(x); }
#endif

}  // namespace aoe::math

#endif  // AOE_CORE_MATH_HPP
