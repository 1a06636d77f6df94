#include <aoe/tuner/stop_conditions.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <limits>

using namespace aoe;
using namespace std::chrono_literals;

namespace {
TuningState state(std::size_t evaluations, std::size_t since_improvement, double elapsed,
                  double best) {
  TuningState s;
  s.evaluations = evaluations;
  s.since_improvement = since_improvement;
  s.elapsed = elapsed;
  s.best_value = best;
  s.best_index = best < 1e300 ? 0 : TuningState::npos;
  return s;
}
}  // namespace

TEST_CASE("each stop condition holds exactly when its limit is reached") {
  CHECK_FALSE(MaxEvaluations{3}.done(state(2, 0, 0, 1)));
  CHECK(MaxEvaluations{3}.done(state(3, 0, 0, 1)));
  CHECK(MaxEvaluations{3}.remaining(state(1, 0, 0, 1)) == 2);

  CHECK_FALSE(MaxDuration{2s}.done(state(0, 0, 1.9, 1)));
  CHECK(MaxDuration{2s}.done(state(0, 0, 2.0, 1)));
  CHECK(MaxDuration{500ms}.done(state(0, 0, 0.6, 1)));

  CHECK_FALSE(NoImprovement{5}.done(state(10, 4, 0, 1)));
  CHECK(NoImprovement{5}.done(state(10, 5, 0, 1)));
  CHECK_FALSE(NoImprovement{5}.done(state(0, 0, 0, std::numeric_limits<double>::infinity())));

  CHECK_FALSE(TargetValue{0.5}.done(state(1, 0, 0, 0.6)));
  CHECK(TargetValue{0.5}.done(state(1, 0, 0, 0.5)));
  CHECK_FALSE(TargetValue{0.5}.done(state(0, 0, 0, std::numeric_limits<double>::infinity())));
}

TEST_CASE("|| and && compose, and the remaining budget follows") {
  const auto any = MaxEvaluations{10} || MaxDuration{1s};
  CHECK_FALSE(any.done(state(5, 0, 0.5, 1)));
  CHECK(any.done(state(10, 0, 0.5, 1)));
  CHECK(any.done(state(5, 0, 1.5, 1)));
  CHECK(any.remaining(state(4, 0, 0, 1)) == 6);

  const auto all = MaxEvaluations{10} && NoImprovement{3};
  CHECK_FALSE(all.done(state(10, 2, 0, 1)));
  CHECK_FALSE(all.done(state(5, 3, 0, 1)));
  CHECK(all.done(state(10, 3, 0, 1)));
  CHECK_FALSE(all.remaining(state(4, 0, 0, 1)).has_value());

  const auto nested = (MaxEvaluations{100} && TargetValue{1}) || MaxEvaluations{20};
  CHECK(nested.done(state(20, 0, 0, 5)));
  CHECK(nested.remaining(state(4, 0, 0, 5)) == 16);
  const auto both_counted = MaxEvaluations{8} && MaxEvaluations{12};
  CHECK(both_counted.remaining(state(4, 0, 0, 5)) == 8);
}
