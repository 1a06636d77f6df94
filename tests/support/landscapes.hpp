// Small tuning problems with known optima, and a measure policy that evaluates them.
#ifndef AOE_TESTS_SUPPORT_LANDSCAPES_HPP
#define AOE_TESTS_SUPPORT_LANDSCAPES_HPP

#include <aoe/space/constraint.hpp>
#include <aoe/space/parameter.hpp>
#include <aoe/space/space.hpp>
#include <aoe/tuner/concepts.hpp>
#include <aoe/vocab/measurement.hpp>

#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace aoe::test {

/// A space, an objective on it, and the objective's known minimum.
struct Landscape {
  Space space;
  std::function<Measurement(const Space&, const Configuration&)> evaluate;
  double optimum = 0;
  std::size_t valid = 0;
};

/// Sets `l.valid` to the number of valid configurations and `l.optimum` to the least value of
/// those that measure correctly, by enumerating the space.
inline void set_optimum_by_enumeration(Landscape& l) {
  double best = std::numeric_limits<double>::infinity();
  std::size_t valid = 0;
  l.space.for_each_valid([&](const Configuration& c) {
    const auto m = l.evaluate(l.space, c);
    if (m.ok()) best = std::min(best, m.value);
    ++valid;
  });
  l.optimum = best;
  l.valid = valid;
}

/// Three parameters, a constraint that removes a corner, a convex bowl with its minimum at
/// x=11, y=4, z=4, and a region that fails to compile. 16*16*5 = 1280 raw points.
inline Landscape bowl() {
  Landscape l;
  l.space = Space({range("x", 0, 15), range("y", 0, 15), pow2("z", 1, 16)},
                  {sum_at_most({"x", "y"}, 24)});
  l.evaluate = [](const Space& s, const Configuration& c) {
    const double x = s.numeric(c, 0);
    const double y = s.numeric(c, 1);
    const double z = std::log2(s.numeric(c, 2));
    if (z == 4 && x > 12) return Measurement::failure(Status::compile, "does not fit");
    return Measurement::success(1 + (x - 11) * (x - 11) + (y - 4) * (y - 4) + (z - 2) * (z - 2));
  };
  l.optimum = 1;
  l.valid = static_cast<std::size_t>(l.space.size().valid);
  return l;
}

/// A rugged landscape: many local minima (a sum of cosines) over a 2-D grid with a few
/// invalid cells. The global minimum is computed by enumeration.
inline Landscape rugged() {
  Landscape l;
  l.space = Space({range("a", 0, 31), range("b", 0, 31)},
                  {predicate(
                      {"a", "b"},
                      [](std::span<const double> v) {
                        return static_cast<long>(v[0] * 7 + v[1] * 3) % 11 != 0;
                      },
                      "(7a + 3b) % 11 != 0")});
  l.evaluate = [](const Space& s, const Configuration& c) {
    const double a = s.numeric(c, 0);
    const double b = s.numeric(c, 1);
    return Measurement::success(3 + std::cos(a * 0.9) + std::cos(b * 1.3) +
                                0.01 * ((a - 20) * (a - 20) + (b - 9) * (b - 9)));
  };
  set_optimum_by_enumeration(l);
  return l;
}

/// A space of 6 configurations, fewer than any policy's initial sample (Bayesian's 10, the
/// evolutionary population's 24): a 3 x 2 grid, its minimum at a=2, b=0.
inline Landscape tiny() {
  Landscape l;
  l.space = Space({range("a", 0, 2), range("b", 0, 1)});
  l.evaluate = [](const Space& s, const Configuration& c) {
    return Measurement::success(10 - 2 * s.numeric(c, 0) + 3 * s.numeric(c, 1));
  };
  l.optimum = 6;
  l.valid = 6;
  return l;
}

/// 400 raw points of which the constraints keep 80 (80 % invalid, known before measuring), and
/// of those half fail when measured (a runtime error): a policy sees few valid points, and
/// fewer that measure. A bowl on the rest, its minimum computed by enumeration.
inline Landscape mostly_invalid() {
  Landscape l;
  l.space = Space(
      {range("a", 0, 19), range("b", 0, 19)},
      {predicate(
          {"a", "b"},
          [](std::span<const double> v) { return static_cast<long>(v[0] * 3 + v[1]) % 5 == 0; },
          "(3a + b) % 5 == 0")});
  l.evaluate = [](const Space& s, const Configuration& c) {
    const double a = s.numeric(c, 0);
    const double b = s.numeric(c, 1);
    if (static_cast<long>(a + b) % 2 == 1) {
      return Measurement::failure(Status::runtime, "fails on the device");
    }
    return Measurement::success(1 + (a - 13) * (a - 13) + (b - 6) * (b - 6));
  };
  set_optimum_by_enumeration(l);
  return l;
}

/// Measures by calling a landscape's objective; counts the configurations measured.
class LandscapeRunner {
 public:
  explicit LandscapeRunner(std::function<Measurement(const Space&, const Configuration&)> f)
      : f_(std::move(f)) {}

  std::vector<Measurement> measure(SpaceView view, std::span<const Configuration> batch) {
    std::vector<Measurement> out;
    for (const auto& c : batch) {
      ++measured_;
      out.push_back(f_(view.space(), c));
    }
    return out;
  }
  [[nodiscard]] std::size_t measured() const noexcept { return measured_; }

 private:
  std::function<Measurement(const Space&, const Configuration&)> f_;
  std::size_t measured_ = 0;
};

static_assert(measure_policy<LandscapeRunner>);

}  // namespace aoe::test

#endif  // AOE_TESTS_SUPPORT_LANDSCAPES_HPP
