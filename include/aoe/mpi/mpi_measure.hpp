// MpiMeasure<Inner>: a measure policy that spreads each batch over MPI ranks, every rank
// measuring with its own Inner; rank 0 runs the Tuner, the others call aoe::mpi::serve.
#ifndef AOE_MPI_MPI_MEASURE_HPP
#define AOE_MPI_MPI_MEASURE_HPP

#include "aoe/mpi/work_queue.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/concepts.hpp"
#include "aoe/vocab/measurement.hpp"

#include <boost/mpi/communicator.hpp>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace aoe {

namespace mpi::detail {

/// One rank's share of a batch measured by `inner` in one call: one measurement per
/// configuration back, or an exception saying what the policy returned instead.
template <class Inner>
std::vector<Measurement> measure_share(Inner& inner, SpaceView view,
                                       const std::vector<Configuration>& share) {
  std::vector<Measurement> m = inner.measure(view, std::span<const Configuration>(share));
  if (m.size() != share.size()) {
    throw std::length_error("the measure policy returned " + std::to_string(m.size()) +
                            " measurements for " + std::to_string(share.size()) +
                            " configurations");
  }
  return m;
}

/// Where share j of a batch of `n` configurations split over `ranks` ranks begins (j in
/// [0, min(n, ranks)]): contiguous shares whose sizes differ by at most one, larger first.
[[nodiscard]] inline std::size_t share_begin(std::size_t n, std::size_t ranks, std::size_t j) {
  const std::size_t k = std::min(n, ranks);
  return j * (n / k) + std::min(j, n % k);
}

}  // namespace mpi::detail

/// A measure policy adaptor for rank 0 of an MPI job: each batch is split into one contiguous
/// share per measuring rank (sizes differing by at most one; rank 0 takes one unless
/// `options.root_works` is off), and each share goes in one message to a free rank, which
/// measures it with one call of its `Inner` (which may measure it in parallel, as
/// ParallelMeasure does) and answers in one message: a batch costs one round trip per rank,
/// not one per configuration. The measurements come back in batch order whatever the order
/// they arrive in, so a Tuner's run is the one it would be with `Inner` alone in one process,
/// for an `Inner` whose measurement of a configuration does not depend on what it measured
/// before or with it. The other ranks call `aoe::mpi::serve(world, inner, space)` with the
/// same space; destroying the MpiMeasure (the Tuner) makes them return. A rank whose `Inner`
/// throws gives every configuration of its share a failed measurement (status `runtime`)
/// naming the rank and the exception's message. With one rank, rank 0 measures everything.
/// docs/concepts.md#measuring-over-mpi-ranks, docs/distributed.md.
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
        queue_(
            std::make_unique<mpi::WorkQueue<std::vector<Configuration>, std::vector<Measurement>>>(
                world, options)),
        root_works_(options.root_works) {}

  std::vector<Measurement> measure(SpaceView view, std::span<const Configuration> batch) {
    const std::size_t n = batch.size();
    if (n == 0) return {};
    const auto ranks = static_cast<std::size_t>(queue_->workers()) +
                       (root_works_ || queue_->workers() == 0 ? 1 : 0);
    const std::size_t k = std::min(n, ranks);
    std::vector<std::vector<Configuration>> shares(k);
    for (std::size_t j = 0; j < k; ++j) {
      shares[j].assign(
          batch.begin() + static_cast<std::ptrdiff_t>(mpi::detail::share_begin(n, ranks, j)),
          batch.begin() + static_cast<std::ptrdiff_t>(mpi::detail::share_begin(n, ranks, j + 1)));
    }
    auto results = queue_->run(std::span<const std::vector<Configuration>>(shares),
                               [&](const std::vector<Configuration>& share) {
                                 return mpi::detail::measure_share(inner_, view, share);
                               });
    std::vector<Measurement> out;
    out.reserve(n);
    for (std::size_t j = 0; j < k; ++j) {
      if (results[j]) {
        for (auto& m : *results[j]) out.push_back(std::move(m));
      } else {
        const std::string message = "the runner threw on " + results[j].error().message;
        for (std::size_t i = 0; i < shares[j].size(); ++i) {
          out.push_back(Measurement::failure(Status::runtime, message));
        }
      }
    }
    return out;
  }

  /// The number of ranks that measure besides rank 0.
  [[nodiscard]] int workers() const noexcept { return queue_->workers(); }
  [[nodiscard]] Inner& inner() noexcept { return inner_; }

 private:
  Inner inner_;
  std::unique_ptr<mpi::WorkQueue<std::vector<Configuration>, std::vector<Measurement>>> queue_;
  bool root_works_ = true;
};

namespace mpi {

/// A worker rank's side of an MpiMeasure: measures what rank 0 sends with `inner` on `space`
/// (the space rank 0 tunes), one share of a batch per message, until rank 0's MpiMeasure is
/// destroyed.
template <measure_policy Inner>
void serve(const boost::mpi::communicator& world, Inner& inner, const Space& space) {
  const SpaceView view(space);
  serve<std::vector<Configuration>, std::vector<Measurement>>(
      world, [&](const std::vector<Configuration>& share) {
        return detail::measure_share(inner, view, share);
      });
}

}  // namespace mpi

}  // namespace aoe

#endif  // AOE_MPI_MPI_MEASURE_HPP
