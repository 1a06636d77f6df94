// An experiment's repetitions spread over MPI ranks (docs/research.md#over-mpi-ranks):
// `settings.run_repetitions = aoe::mpi::spread_repetitions(world)`, and `aoe::experiment::run`
// measures on every rank and summarises on rank 0, with the same numbers as on threads.
// Needs aoe::mpi (Boost.MPI and an MPI library).
#ifndef AOE_MPI_SPREAD_REPETITIONS_HPP
#define AOE_MPI_SPREAD_REPETITIONS_HPP

#include "aoe/core/error.hpp"
#include "aoe/experiment/settings.hpp"
#include "aoe/mpi/work_queue.hpp"

#include <boost/mpi/communicator.hpp>
#include <boost/serialization/vector.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace boost::serialization {

/// A repetition crosses the wire whole: its curve (infinities included), its evaluations, its
/// trace (empty unless Settings::traces), configurations included, and the rank that ran it.
template <class Archive>
void serialize(Archive& ar, aoe::experiment::Repetition& r, const unsigned int /*version*/) {
  ar& r.curve;
  ar& r.hypervolume;
  ar& r.evaluations;
  ar& r.trace.values;
  ar& r.trace.costs;
  ar& r.trace.energies;
  ar& r.trace.seconds;
  ar& r.trace.configurations;
  ar& r.rank;
}

}  // namespace boost::serialization

namespace aoe::mpi {

/// Called on rank 0 once the repetitions are in: how many each rank ran (index: the rank).
using OnSpread = std::function<void(std::span<const std::size_t> per_rank)>;

/// A RepetitionRunner (Settings::run_repetitions) that spreads the repetitions over the ranks
/// of `world` with the work queue (aoe/mpi/work_queue.hpp), one at a time on each, rank 0
/// included. Rank 0 gets every repetition in index order, or the error of the first (by index)
/// that threw, naming its rank; the other ranks serve rank 0 and get an empty optional (and
/// `aoe::experiment::run` returns them no results). Collective: every rank runs the same
/// experiment with the same settings. `world` must outlive the runner.
[[nodiscard]] inline experiment::RepetitionRunner spread_repetitions(
    const boost::mpi::communicator& world, OnSpread on_spread = {}) {
  return [&world, on_spread = std::move(on_spread)](
             std::size_t count, const std::function<experiment::Repetition(std::size_t)>& one)
             -> Result<std::optional<std::vector<experiment::Repetition>>> {
    std::vector<std::uint64_t> tasks;
    if (world.rank() == 0) {
      tasks.resize(count);
      for (std::size_t j = 0; j < count; ++j) tasks[j] = j;
    }
    const auto results = distribute(world, std::span<const std::uint64_t>(tasks),
                                    [&one, &world](const std::uint64_t& j) {
                                      experiment::Repetition r = one(static_cast<std::size_t>(j));
                                      r.rank = world.rank();
                                      return r;
                                    });
    if (world.rank() != 0) return std::optional<std::vector<experiment::Repetition>>{};
    std::vector<experiment::Repetition> out;
    out.reserve(results.size());
    std::vector<std::size_t> per_rank(static_cast<std::size_t>(world.size()), 0);
    for (const auto& r : results) {
      if (!r) return r.error();
      out.push_back(*r);
      if (r->rank >= 0 && r->rank < world.size()) ++per_rank[static_cast<std::size_t>(r->rank)];
    }
    if (on_spread) on_spread(per_rank);
    return std::optional<std::vector<experiment::Repetition>>(std::move(out));
  };
}

}  // namespace aoe::mpi

#endif  // AOE_MPI_SPREAD_REPETITIONS_HPP
