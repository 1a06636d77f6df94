// When a run stops: values that compose with || and &&.
//   aoe::MaxEvaluations{200} || aoe::MaxDuration{30s} || aoe::NoImprovement{50}
#ifndef AOE_TUNER_STOP_CONDITIONS_HPP
#define AOE_TUNER_STOP_CONDITIONS_HPP

#include "aoe/vocab/trial.hpp"

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <optional>

namespace aoe {

/// A stop condition: `done(state)` says whether the run is over. It may also say how many more
/// evaluations it allows (`remaining(state)`), so that a batch never overshoots a budget.
template <class S>
concept stop_condition = std::copy_constructible<S> && requires(const S& s, const TuningState& st) {
  { s.done(st) } -> std::convertible_to<bool>;
};

/// The evaluations a stop condition still allows, or nullopt when it does not count them.
template <stop_condition S>
[[nodiscard]] std::optional<std::size_t> remaining_evaluations(const S& s, const TuningState& st) {
  if constexpr (requires {
                  { s.remaining(st) } -> std::same_as<std::optional<std::size_t>>;
                }) {
    return s.remaining(st);
  } else {
    return std::nullopt;
  }
}

/// Stop after `count` unique evaluations (failed configurations count).
struct MaxEvaluations {
  std::size_t count = 0;
  [[nodiscard]] bool done(const TuningState& st) const noexcept { return st.evaluations >= count; }
  [[nodiscard]] std::optional<std::size_t> remaining(const TuningState& st) const noexcept {
    return count > st.evaluations ? count - st.evaluations : 0;
  }
};

/// Stop once the run's clock (search time plus measurement cost) reaches `limit`.
struct MaxDuration {
  std::chrono::duration<double> limit{};
  [[nodiscard]] bool done(const TuningState& st) const noexcept {
    return st.elapsed >= limit.count();
  }
};

/// Stop after `evaluations` evaluations in a row that did not improve the best value.
struct NoImprovement {
  std::size_t evaluations = 0;
  [[nodiscard]] bool done(const TuningState& st) const noexcept {
    return st.evaluations > 0 && st.since_improvement >= evaluations;
  }
};

/// Stop once the best value is at most `value` (e.g. a target time in seconds).
struct TargetValue {
  double value = 0;
  [[nodiscard]] bool done(const TuningState& st) const noexcept {
    return st.has_best() && st.best_value <= value;
  }
};

/// Either condition.
template <stop_condition A, stop_condition B>
struct AnyOf {
  A a;
  B b;
  [[nodiscard]] bool done(const TuningState& st) const { return a.done(st) || b.done(st); }
  [[nodiscard]] std::optional<std::size_t> remaining(const TuningState& st) const {
    const auto ra = remaining_evaluations(a, st);
    const auto rb = remaining_evaluations(b, st);
    if (ra && rb) return std::min(*ra, *rb);
    return ra ? ra : rb;
  }
};

/// Both conditions.
template <stop_condition A, stop_condition B>
struct AllOf {
  A a;
  B b;
  [[nodiscard]] bool done(const TuningState& st) const { return a.done(st) && b.done(st); }
  [[nodiscard]] std::optional<std::size_t> remaining(const TuningState& st) const {
    const auto ra = remaining_evaluations(a, st);
    const auto rb = remaining_evaluations(b, st);
    if (ra && rb) return std::max(*ra, *rb);
    return std::nullopt;
  }
};

template <stop_condition A, stop_condition B>
[[nodiscard]] AnyOf<A, B> operator||(A a, B b) {
  return {std::move(a), std::move(b)};
}

template <stop_condition A, stop_condition B>
[[nodiscard]] AllOf<A, B> operator&&(A a, B b) {
  return {std::move(a), std::move(b)};
}

}  // namespace aoe

#endif  // AOE_TUNER_STOP_CONDITIONS_HPP
