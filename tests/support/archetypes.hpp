// Minimal models of each concept: what docs/concepts.md says is the least a type must have.
// The tests prove the concepts accept them and that a Tuner compiles with nothing more.
#ifndef AOE_TESTS_SUPPORT_ARCHETYPES_HPP
#define AOE_TESTS_SUPPORT_ARCHETYPES_HPP

#include <aoe/core/error.hpp>
#include <aoe/space/space.hpp>
#include <aoe/tuner/concepts.hpp>
#include <aoe/tuner/stop_conditions.hpp>
#include <aoe/vocab/measurement.hpp>
#include <aoe/vocab/record.hpp>
#include <aoe/vocab/trial.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace aoe::archetypes {

/// Proposes the first valid configuration once; then nothing.
struct SearchPolicy {
  void start(SpaceView view, std::uint64_t /*seed*/) { view_ = view; }
  std::vector<Configuration> propose(std::size_t /*n*/) {
    if (done_) return {};
    done_ = true;
    Configuration c;
    if (view_->enumerate().next(c)) return {c};
    return {};
  }
  void observe(std::span<const Trial> /*trials*/) {}

 private:
  SpaceView view_;
  bool done_ = false;
};

struct MeasurePolicy {
  std::vector<Measurement> measure(SpaceView /*view*/, std::span<const Configuration> batch) {
    return std::vector<Measurement>(batch.size(), Measurement::success(1.0));
  }
};

struct RepositoryPolicy {
  [[nodiscard]] Result<std::optional<Record>> lookup(const TuningKey& /*key*/) const {
    return std::optional<Record>();
  }
  Result<StoreOutcome> store(const Record& /*record*/) { return StoreOutcome::added; }
};

struct CostModel {
  void fit(SpaceView /*view*/, std::span<const Trial> /*history*/) {}
  [[nodiscard]] std::vector<Prediction> predict(std::span<const Configuration> queries) const {
    return std::vector<Prediction>(queries.size());
  }
};

struct StopCondition {
  [[nodiscard]] bool done(const TuningState& state) const { return state.evaluations >= 1; }
};

struct Observer {
  void on_finish(const TuningResult& /*result*/) {}
};

}  // namespace aoe::archetypes

#endif  // AOE_TESTS_SUPPORT_ARCHETYPES_HPP
