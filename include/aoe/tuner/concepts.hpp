// The concepts every part of a tuner models. docs/concepts.md states each one's requirements
// and semantics, with a minimal model; tests/support/archetypes.hpp proves each accepts that.
#ifndef AOE_TUNER_CONCEPTS_HPP
#define AOE_TUNER_CONCEPTS_HPP

#include "aoe/core/error.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/vocab/measurement.hpp"
#include "aoe/vocab/record.hpp"
#include "aoe/vocab/run_log.hpp"
#include "aoe/vocab/timing.hpp"
#include "aoe/vocab/trial.hpp"

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace aoe {

struct TuningResult;

/// One requirement each: the concepts below are their conjunctions, and `aoe::Tuner` checks
/// them one by one so that its error names the member that is missing (docs/concepts.md).
namespace requirement {
template <class S>
concept search_start = requires(S& s, SpaceView view, std::uint64_t seed) {
  s.start(view, seed);
};
template <class S>
concept search_propose = requires(S& s, std::size_t n) {
  { s.propose(n) } -> std::same_as<std::vector<Configuration>>;
};
template <class S>
concept search_observe = requires(S& s, std::span<const Trial> t) {
  s.observe(t);
};
template <class M>
concept measure_batch = requires(M& m, SpaceView view, std::span<const Configuration> batch) {
  { m.measure(view, batch) } -> std::same_as<std::vector<Measurement>>;
};
template <class R>
concept repository_lookup = requires(const R& r, const TuningKey& key) {
  { r.lookup(key) } -> std::same_as<Result<std::optional<Record>>>;
};
template <class R>
concept repository_store = requires(R& r, const Record& record) {
  { r.store(record) } -> std::same_as<Result<StoreOutcome>>;
};
}  // namespace requirement

/// Ask/tell search. `start` (re)initialises on a space with a seed; `propose(n)` returns at most
/// n new, valid configurations (fewer, or none, when the space is exhausted); `observe` gets
/// the trials of the configurations it proposed, in the order proposed. Optional:
/// `name()`, for reports and provenance.
template <class S>
concept search_policy = std::move_constructible<S> && requirement::search_start<S> &&
    requirement::search_propose<S> && requirement::search_observe<S>;

/// Measures a batch of valid configurations of a space: one `Measurement` per configuration,
/// in order. A failing configuration is a measurement with a failure status, never an
/// exception. Optional: `static constexpr bool reports_device_time = true` when
/// `Measurement::cost` is the device time to charge (simulator, replay) rather than wall time.
template <class M>
concept measure_policy = std::move_constructible<M> && requirement::measure_batch<M>;

/// A measure policy that says where its times come from: `timing()` gives the kind (simulated
/// or measured) and the source (docs/reports.md#simulated-or-measured). Optional: the tuner
/// writes it into the records and runs it stores, and on a policy that measures it takes a
/// stored record that is not measured as a miss (docs/database.md#simulated-or-measured). A
/// policy without it is "not said".
template <class M>
concept timed_measure = requires(const M& m) {
  { m.timing() } -> std::convertible_to<Timing>;
};

/// Keeps the best known configuration per key. `lookup` and `store` return `Result`s: an
/// unreadable or unwritable repository is an error the tuner reports, not one that loses a run.
template <class R>
concept repository_policy = std::move_constructible<R> && requirement::repository_lookup<R> &&
    requirement::repository_store<R>;

/// A cost model's prediction of a configuration's objective.
struct Prediction {
  double mean = 0;
  double variance = 0;
};

/// Predicts measurements: `fit` on the trials so far, `predict` a batch of configurations
/// (mean and variance each). Used as a surrogate by Bayesian search and to pre-screen
/// candidates before they are measured.
template <class C>
concept cost_model = requires(C& c, const C& cc, SpaceView view, std::span<const Trial> history,
                              std::span<const Configuration> queries) {
  c.fit(view, history);
  { cc.predict(queries) } -> std::same_as<std::vector<Prediction>>;
};

/// A repository that logs the trials of each run and can hand back those of an interrupted run.
/// `begin_run` opens a run: when an unfinished run matches `RunInfo` it is resumed and its
/// trials are returned (the tuner replays them into the search policy without measuring them),
/// otherwise a new run is started and the list is empty. `log_trials` appends trials to the open
/// run (durably: a run killed afterwards still has them); `end_run` marks it finished.
template <class R>
concept trial_log = requires(R& r, const RunInfo& info, std::span<const LoggedTrial> trials,
                             const RunSummary& summary) {
  { r.begin_run(info) } -> std::same_as<Result<std::vector<LoggedTrial>>>;
  { r.log_trials(trials) } -> std::same_as<Result<void>>;
  { r.end_run(summary) } -> std::same_as<Result<void>>;
};

/// A repository whose records are keyed by key and space fingerprint: a record tuned on another
/// space is a miss. The tuner uses these members instead of `lookup(key)`/`store(record)`.
template <class R>
concept fingerprinted_repository = requires(R& r, const R& cr, const TuningKey& key,
                                            std::string_view fingerprint, const Record& record) {
  { cr.lookup(key, fingerprint) } -> std::same_as<Result<std::optional<Record>>>;
  { r.store(record, fingerprint) } -> std::same_as<Result<StoreOutcome>>;
};

namespace detail {
template <class O>
concept has_on_start = requires(O& o, SpaceView v, const TuningState& s) {
  o.on_start(v, s);
};
template <class O>
concept has_on_measurement = requires(O& o, const Trial& t, const TuningState& s) {
  o.on_measurement(t, s);
};
template <class O>
concept has_on_batch = requires(O& o, std::span<const Trial> t, const TuningState& s) {
  o.on_batch(t, s);
};
template <class O>
concept has_on_finish = requires(O& o, const TuningResult& r) {
  o.on_finish(r);
};
}  // namespace detail

/// Watches a run through any of the hooks `on_start(SpaceView, const TuningState&)`,
/// `on_measurement(const Trial&, const TuningState&)`, `on_batch(std::span<const Trial>, const
/// TuningState&)` and `on_finish(const TuningResult&)`; hooks it does not have cost nothing.
/// `on_measurement` and `on_batch` may return bool: true asks the run to stop.
template <class O>
concept observer = std::is_class_v<O> &&(detail::has_on_start<O> || detail::has_on_measurement<O> ||
                                         detail::has_on_batch<O> || detail::has_on_finish<O>);

}  // namespace aoe

#endif  // AOE_TUNER_CONCEPTS_HPP
