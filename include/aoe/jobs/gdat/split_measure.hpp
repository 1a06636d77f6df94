// The measure policy of gradient tuning: the iteration time of a split under the cost model
// (iteration_model.hpp), so that any search policy tunes splits through aoe::Tuner.
#ifndef AOE_JOBS_GDAT_SPLIT_MEASURE_HPP
#define AOE_JOBS_GDAT_SPLIT_MEASURE_HPP

#include "aoe/core/assert.hpp"
#include "aoe/jobs/gdat/iteration_model.hpp"
#include "aoe/jobs/gdat/split_space.hpp"
#include "aoe/measure/measure_each.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/vocab/measurement.hpp"

#include <span>
#include <vector>

namespace aoe::gdat {

/// Measures configurations of a SplitSpace: each is the iteration time, in seconds, of its
/// split; deterministic, never failing. Holds pointers: the model and the space outlive it.
class SplitMeasure {
 public:
  SplitMeasure(const IterationModel& model, const SplitSpace& space)
      : model_(&model), space_(&space) {}

  [[nodiscard]] Measurement evaluate(const Configuration& c) const {
    return Measurement::success(model_->seconds(space_->decode(c)));
  }

  [[nodiscard]] std::vector<Measurement> measure(SpaceView /*view*/,
                                                 std::span<const Configuration> batch) const {
    return measure_each(*this, batch);
  }

 private:
  const IterationModel* model_;
  const SplitSpace* space_;
};

}  // namespace aoe::gdat

#endif  // AOE_JOBS_GDAT_SPLIT_MEASURE_HPP
