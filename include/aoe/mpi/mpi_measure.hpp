// MpiMeasure<Inner>: a measure policy that spreads each batch over MPI ranks, every rank
// measuring with its own Inner; rank 0 runs the Tuner, the others call aoe::mpi::serve.
#ifndef AOE_MPI_MPI_MEASURE_HPP
#define AOE_MPI_MPI_MEASURE_HPP

#include "aoe/core/concepts.hpp"
#include "aoe/measure/measurement.hpp"
#include "aoe/mpi/work_queue.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"

#include <boost/mpi/communicator.hpp>

#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace aoe {

namespace mpi::detail {

/// One configuration's measurement by `inner`; one measurement back, or an exception saying
/// what the policy returned instead.
template <class Inner>
Measurement measure_one(Inner& inner, SpaceView view, const Configuration& c) {
  std::vector<Measurement> m = inner.measure(view, std::span<const Configuration>(&c, 1));
  if (m.size() != 1) {
    throw std::length_error("the measure policy returned " + std::to_string(m.size()) +
                            " measurements for one configuration");
  }
  return std::move(m.front());
}

}  // namespace mpi::detail

/// A measure policy adaptor for rank 0 of an MPI job: each batch's configurations go, one at a
/// time, to whichever rank is free (rank 0 included, unless `options.root_works` is off), each
/// measured there with that rank's `Inner`; the measurements come back in batch order whatever
/// the order they arrive in, so a Tuner's run is the one it would be with `Inner` alone in one
/// process (for an `Inner` whose measurement of a configuration does not depend on what it
/// measured before). The other ranks call `aoe::mpi::serve(world, inner, space)` with the same
/// space; destroying the MpiMeasure (the Tuner) makes them return. A rank whose `Inner` throws
/// gives that configuration a failed measurement (status `runtime`) naming the rank and the
/// exception's message. With one rank, rank 0 measures everything. docs/distributed.md.
template <measure_policy Inner>
class MpiMeasure {
 public:
  static constexpr bool reports_device_time = [] {
    if constexpr (requires { Inner::reports_device_time; }) {
      return static_cast<bool>(Inner::reports_device_time);
    } else {
      return false;
    }
  }();

  /// On rank 0 of `world` (throws `aoe::Error`, `invalid_argument`, elsewhere). Collective with
  /// the workers' `serve`.
  MpiMeasure(const boost::mpi::communicator& world, Inner inner, mpi::WorkQueueOptions options = {})
      : inner_(std::move(inner)),
        queue_(std::make_unique<mpi::WorkQueue<Configuration, Measurement>>(world, options)) {}

  std::vector<Measurement> measure(SpaceView view, std::span<const Configuration> batch) {
    auto results = queue_->run(
        batch, [&](const Configuration& c) { return mpi::detail::measure_one(inner_, view, c); });
    std::vector<Measurement> out;
    out.reserve(results.size());
    for (auto& r : results) {
      if (r) {
        out.push_back(std::move(*r));
      } else {
        out.push_back(Measurement::failure(Status::runtime,
                                           "the runner threw on " + std::move(r.error().message)));
      }
    }
    return out;
  }

  /// The number of ranks that measure besides rank 0.
  [[nodiscard]] int workers() const noexcept { return queue_->workers(); }
  [[nodiscard]] Inner& inner() noexcept { return inner_; }

 private:
  Inner inner_;
  std::unique_ptr<mpi::WorkQueue<Configuration, Measurement>> queue_;
};

namespace mpi {

/// A worker rank's side of an MpiMeasure: measures what rank 0 sends with `inner` on `space`
/// (the space rank 0 tunes), until rank 0's MpiMeasure is destroyed.
template <measure_policy Inner>
void serve(const boost::mpi::communicator& world, Inner& inner, const Space& space) {
  const SpaceView view(space);
  serve<Configuration, Measurement>(
      world, [&](const Configuration& c) { return detail::measure_one(inner, view, c); });
}

}  // namespace mpi

}  // namespace aoe

#endif  // AOE_MPI_MPI_MEASURE_HPP
