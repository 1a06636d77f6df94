// An experiment's input: a space to tune whose every valid value is known (a recorded space, or
// a simulator operator enumerated), so that a policy's runs are scored against the optimum and
// random search's exact expectation (docs/research.md).
#ifndef AOE_EXPERIMENT_PROBLEM_HPP
#define AOE_EXPERIMENT_PROBLEM_HPP

#include "aoe/core/error.hpp"
#include "aoe/measure/replay/load.hpp"
#include "aoe/measure/replay/random_baseline.hpp"
#include "aoe/measure/replay/recording.hpp"
#include "aoe/measure/replay/replay_runner.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/transfer.hpp"
#include "aoe/vocab/measurement.hpp"
#include "aoe/vocab/objective.hpp"
#include "aoe/vocab/status.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace aoe::experiment {

/// A space to tune whose every valid value is known: what the statistics need.
struct Problem {
  std::string name;
  std::string source;                                  ///< the file or operator it came from
  std::shared_ptr<const Space> space_holder;           ///< keeps `space` alive when not recorded
  std::shared_ptr<const replay::Recording> recording;  ///< replay inputs
  const Space* space = nullptr;
  /// Measures a batch (thread-safe; the same configuration always gives the same result).
  std::function<std::vector<Measurement>(SpaceView, std::span<const Configuration>)> measure;
  replay::RandomBaseline baseline;  ///< every valid value, and the population
  /// The input's own default configuration, if it has one (a simulator operator's built-in
  /// heuristic; recorded spaces have none): what `Settings::start_from_default` starts from.
  std::vector<Configuration> defaults;
  /// Configurations measured first when `Settings::transfer` is on: the best recorded
  /// configurations of the other inputs with the same parameters (other devices), interleaved
  /// by rank (`add_transfer`).
  std::vector<Configuration> transfer;
  std::vector<std::string> transfer_sources;     ///< the inputs `transfer` came from, by weight
  std::vector<TransferWeight> transfer_weights;  ///< how far each was trusted (add_transfer)
  std::size_t configurations = 0;                ///< configurations of the space (failed included)
  std::size_t valid_configurations = 0;          ///< of which measured correctly
  /// The recorded time-energy front (every valid recorded configuration with energy), by time;
  /// empty when the recording has no energy. What a Pareto tuning's hypervolume is scored
  /// against (Settings::objective).
  std::vector<FrontPoint> front;
  [[nodiscard]] double optimum() const { return baseline.optimum(); }

  /// The hypervolume's reference point: 1.1 x the front's slowest time and largest energy.
  [[nodiscard]] FrontPoint front_reference() const {
    if (front.empty()) return {};
    return {front.back().seconds * 1.1, front.front().joules * 1.1, 0};
  }
};

/// The recorded front of a recording: its valid entries with energy, non-dominated.
[[nodiscard]] inline std::vector<FrontPoint> recorded_front(const replay::Recording& r) {
  std::vector<FrontPoint> front;
  for (std::size_t i = 0; i < r.entries().size(); ++i) {
    const auto& e = r.entries()[i];
    if (e.status == Status::correct && e.energy) {
      (void)add_to_front(front, {e.value, e.energy->joules, i});
    }
  }
  return front;
}

namespace detail {

// The Cartesian product of a recording's parameters; absent configurations fail.
inline replay::Recording cartesian_of(const replay::Recording& r) {
  const auto& parameters = r.space().parameters();
  replay::Recording out(r.name() + "@cartesian", r.path(), parameters);
  out.device = r.device;
  out.kernel = r.kernel;
  out.objective = r.objective;
  Configuration c(parameters.size(), 0);
  const std::size_t dims = parameters.size();
  while (true) {
    if (const auto* e = r.find(c)) {
      out.add(c, *e);
    } else {
      replay::RecordedEntry failed;
      failed.status = Status::constraints;
      failed.marker = "absent from the recording (Cartesian product)";
      out.add(c, std::move(failed));
    }
    std::size_t d = dims;
    while (d > 0) {
      --d;
      if (++c[d] < parameters[d].size()) break;
      c[d] = 0;
      if (d == 0) return out;
    }
    if (dims == 0) return out;
  }
}

// Whether two spaces have the same parameters: the same names and values, in order.
inline bool same_parameters(const Space& a, const Space& b) {
  if (a.dimensions() != b.dimensions()) return false;
  for (std::size_t d = 0; d < a.dimensions(); ++d) {
    const auto& pa = a.parameter(d);
    const auto& pb = b.parameter(d);
    if (pa.name() != pb.name() || pa.size() != pb.size()) return false;
    for (std::uint32_t i = 0; i < pa.size(); ++i) {
      if (pa.numeric(i) != pb.numeric(i)) return false;
    }
  }
  return true;
}

// A recording's `top` best valid configurations, best first (ties: recording order).
inline std::vector<Configuration> best_recorded(const replay::Recording& r, std::size_t top) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < r.entries().size(); ++i) {
    if (r.entries()[i].status == Status::correct) order.push_back(i);
  }
  const std::size_t k = std::min(top, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    [&](std::size_t a, std::size_t b) {
                      return r.entries()[a].value < r.entries()[b].value ||
                             (r.entries()[a].value == r.entries()[b].value && a < b);
                    });
  std::vector<Configuration> out;
  for (std::size_t i = 0; i < k; ++i) out.push_back(r.recorded()[order[i]]);
  return out;
}

}  // namespace detail

/// A recorded space from a Kernel Tuner cache or T4 results file (.json or .json.gz).
/// `cartesian`: the space is the Cartesian product of the recorded parameter values, and each
/// configuration the file does not hold (it violated the kernel's restrictions) is a failure
/// that costs an evaluation (status `constraints`, no device time): the counting of the TEVC
/// 2022 benchmark (Schoonhoven et al.), where most of a space may fail. The name gets
/// "@cartesian". Errors: those of replay::load, and `schema_error` when no configuration was
/// measured successfully.
[[nodiscard]] inline Result<Problem> load_problem(const std::string& input,
                                                  bool cartesian = false) {
  auto recording = replay::load(input);
  if (!recording) return recording.error();
  if (cartesian) recording = detail::cartesian_of(*recording);
  Problem p;
  p.source = input;
  p.name = recording->name();
  auto shared = std::make_shared<const replay::Recording>(std::move(*recording));
  p.recording = shared;
  p.space = &shared->space();
  p.baseline = shared->baseline();
  p.configurations = shared->configurations();
  p.valid_configurations = shared->valid_configurations();
  p.front = recorded_front(*shared);
  if (p.valid_configurations == 0) {
    return make_error(Errc::schema_error,
                      input + ": /cache: no configuration was measured successfully");
  }
  auto runner = std::make_shared<const ReplayRunner>(shared);
  p.measure = [runner](SpaceView view, std::span<const Configuration> batch) {
    return runner->measure(view, batch);
  };
  return p;
}

/// Transfer across devices, leaving each input's own recording out: for every recorded
/// problem, `Problem::transfer` becomes the seeds `plan_transfer` takes from the other recorded
/// problems with the same parameters (same names and values, so the same kernel recorded on
/// other devices), each a source of all its correct entries: the `top` best of each, the
/// sources ordered by how well their best did on the other sources (aoe/tuner/transfer.hpp,
/// as `aoe::Tuner` does), rank 1 of every source first, then rank 2, ..., without repeats.
/// `Problem::transfer_sources` names the sources in that order.
inline void add_transfer(std::vector<Problem>& problems, std::size_t top) {
  std::vector<TransferSource> as_source(problems.size());
  for (std::size_t q = 0; q < problems.size(); ++q) {
    if (!problems[q].recording) continue;
    const auto& r = *problems[q].recording;
    as_source[q].device = problems[q].name;
    for (std::size_t i = 0; i < r.entries().size(); ++i) {
      if (r.entries()[i].status != Status::correct) continue;
      as_source[q].points.push_back(
          {problems[q].space->named_values(r.recorded()[i]), r.entries()[i].value});
    }
  }
  const TransferOptions options{.per_source = top,
                                .max_seeds = std::numeric_limits<std::size_t>::max()};
  for (std::size_t p = 0; p < problems.size(); ++p) {
    auto& target = problems[p];
    target.transfer.clear();
    target.transfer_sources.clear();
    target.transfer_weights.clear();
    if (!target.recording) continue;
    std::vector<const TransferSource*> sources;
    for (std::size_t q = 0; q < problems.size(); ++q) {
      if (q != p && problems[q].recording && problems[q].source != target.source &&
          detail::same_parameters(*problems[q].space, *target.space)) {
        sources.push_back(&as_source[q]);
      }
    }
    auto plan =
        plan_transfer(*target.space, std::span<const TransferSource* const>(sources), options);
    target.transfer = std::move(plan.seeds);
    for (const auto& w : plan.sources) target.transfer_sources.push_back(w.device);
    target.transfer_weights = std::move(plan.sources);
  }
}

}  // namespace aoe::experiment

#endif  // AOE_EXPERIMENT_PROBLEM_HPP
