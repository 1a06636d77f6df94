// Tuner<Search, Measure, Repo>: the closed loop every job runs.
//   repository lookup -> (hit: reuse) -> propose -> measure -> observe -> ... -> store the winner
// With a repository that keeps trials (aoe::trial_log), every trial is logged as it is made and
// an interrupted run resumes: its logged trials are replayed into the search policy unmeasured.
#ifndef AOE_TUNER_TUNER_HPP
#define AOE_TUNER_TUNER_HPP

#include "aoe/core/assert.hpp"
#include "aoe/core/error.hpp"
#include "aoe/core/random.hpp"
#include "aoe/space/fingerprint.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/concepts.hpp"
#include "aoe/tuner/memory_repository.hpp"
#include "aoe/tuner/stop_conditions.hpp"
#include "aoe/tuner/transfer.hpp"
#include "aoe/tuner/tuning_result.hpp"
#include "aoe/vocab/objective.hpp"
#include "aoe/vocab/run_log.hpp"
#include "aoe/vocab/trial.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace aoe {

/// Re-measurement of the best before it is declared (TunerOptions::confirm; off by default).
/// When the run ends, its `candidates` best configurations by their measured score are
/// measured again in `rounds` rounds, each round one batch of all of them (rotated, so that no
/// candidate always goes first), and the one with the lowest median over its measurements —
/// the search's and the rounds' — becomes the result, that median its value. On a device
/// whose single measurements are noisy or whose speed drifts during a run, one lucky
/// measurement no longer decides the winner. The re-measurements are not evaluations: they
/// are in TuningResult::confirmation, not in `history`, and their wall time counts in
/// `measure_seconds`. Not for the pareto objective (its front is the result).
struct ConfirmOptions {
  std::size_t candidates = 0;  ///< how many of the best are measured again (0 or 1: off)
  std::size_t rounds = 3;      ///< measurements of each, after the search's
};

/// Options of a tuner. Aggregate: `aoe::TunerOptions{.seed = 7, .batch_size = 8}`.
struct TunerOptions {
  std::uint64_t seed = 0;        ///< the search policy's seed (derived; never the clock)
  std::size_t batch_size = 1;    ///< configurations proposed and measured together
  bool reuse = true;             ///< a repository hit ends the run (false: AOE's REPEAT_TUNE)
  std::size_t max_stalled = 64;  ///< proposals in a row with nothing new before giving up
  /// What is minimised (docs/energy.md). The default, time, is the tuning of every earlier
  /// release. Any other needs measurements with energy (the tuner throws `aoe::Error`,
  /// `invalid_argument`, at the first valid one without), keys the repository apart
  /// (`Objective::key_suffix`) and shows the search policy the objective's score as the value.
  Objective objective{};
  /// Transfer across devices (docs/transfer.md): on by default, the best configurations other
  /// devices found for the key's problem (the repository's, where it is a
  /// `transfer_repository`, and `transfer.sources`) are measured first, the most trusted
  /// device's first. `TuningResult::transfer` says what was taken.
  TransferOptions transfer{};
  /// Re-measures the best candidates before one is declared best (ConfirmOptions; off).
  ConfirmOptions confirm{};
};

namespace detail {

template <class S>
[[nodiscard]] std::string policy_name(const S& s) {
  if constexpr (requires {
                  { s.name() } -> std::convertible_to<std::string_view>;
                }) {
    return std::string(std::string_view(s.name()));
  } else {
    return "custom";
  }
}

template <class M>
[[nodiscard]] constexpr bool reports_device_time() {
  if constexpr (requires { M::reports_device_time; }) {
    return static_cast<bool>(M::reports_device_time);
  } else {
    return false;
  }
}

inline std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

/// Tells a policy with a `multi_objective(const Objective&)` member the run's objective; true
/// when it takes the Pareto front itself (its trials are then shown as measured).
template <class S>
bool tell_objective(S& s, const Objective& o) {
  if constexpr (requires {
                  { s.multi_objective(o) } -> std::convertible_to<bool>;
                }) {
    return static_cast<bool>(s.multi_objective(o));
  } else {
    return false;
  }
}

template <class O, class... Args>
bool notify_measurement(O& o, const Args&... args) {
  if constexpr (has_on_measurement<O>) {
    if constexpr (std::is_same_v<decltype(o.on_measurement(args...)), bool>) {
      return o.on_measurement(args...);
    } else {
      o.on_measurement(args...);
    }
  }
  return false;
}

template <class O, class... Args>
bool notify_batch(O& o, const Args&... args) {
  if constexpr (has_on_batch<O>) {
    if constexpr (std::is_same_v<decltype(o.on_batch(args...)), bool>) {
      return o.on_batch(args...);
    } else {
      o.on_batch(args...);
    }
  }
  return false;
}

}  // namespace detail

/// Composes a search policy, a measure policy and a repository into a tuner. Each argument is
/// checked member by member so that a missing one is named in the error (docs/concepts.md).
template <class Search, class Measure, class Repo = MemoryRepository>
class Tuner {
  static constexpr bool search_has_start = requirement::search_start<Search>;
  static constexpr bool search_has_propose = requirement::search_propose<Search>;
  static constexpr bool search_has_observe = requirement::search_observe<Search>;
  static constexpr bool measure_has_measure = requirement::measure_batch<Measure>;
  static constexpr bool repo_has_lookup = requirement::repository_lookup<Repo>;
  static constexpr bool repo_has_store = requirement::repository_store<Repo>;
  static_assert(search_has_start,
                "aoe::Tuner: the search policy needs a member `start(aoe::SpaceView, "
                "std::uint64_t seed)` (docs/concepts.md#search_policy)");
  static_assert(search_has_propose,
                "aoe::Tuner: the search policy needs a member `std::vector<aoe::Configuration> "
                "propose(std::size_t n)` (docs/concepts.md#search_policy)");
  static_assert(search_has_observe,
                "aoe::Tuner: the search policy needs a member `observe(std::span<const "
                "aoe::Trial>)` (docs/concepts.md#search_policy)");
  static_assert(measure_has_measure,
                "aoe::Tuner: the measure policy needs a member `std::vector<aoe::Measurement> "
                "measure(aoe::SpaceView, std::span<const aoe::Configuration>)` "
                "(docs/concepts.md#measure_policy)");
  static_assert(repo_has_lookup,
                "aoe::Tuner: the repository needs a member `aoe::Result<std::optional<aoe::"
                "Record>> lookup(const aoe::TuningKey&) const` "
                "(docs/concepts.md#repository_policy)");
  static_assert(repo_has_store,
                "aoe::Tuner: the repository needs a member `aoe::Result<aoe::StoreOutcome> "
                "store(const aoe::Record&)` (docs/concepts.md#repository_policy)");
  // Move-constructibility is checked only for a policy whose members are all there, so that a
  // policy gets one message, the one that names what it misses.
  static_assert(!(search_has_start && search_has_propose && search_has_observe) ||
                    std::move_constructible<Search>,
                "aoe::Tuner: the search policy must be move-constructible (the tuner holds it by "
                "value; wrap a non-movable one in a type that holds a pointer to it and "
                "forwards start/propose/observe) (docs/concepts.md#search_policy)");
  static_assert(!measure_has_measure || std::move_constructible<Measure>,
                "aoe::Tuner: the measure policy must be move-constructible (the tuner holds it "
                "by value; wrap a non-movable one in a type that forwards measure) "
                "(docs/concepts.md#measure_policy)");
  static_assert(!(repo_has_lookup && repo_has_store) || std::move_constructible<Repo>,
                "aoe::Tuner: the repository must be move-constructible (the tuner holds it by "
                "value; wrap a non-movable one in a type that forwards lookup/store) "
                "(docs/concepts.md#repository_policy)");

 public:
  explicit Tuner(Search search = {}, Measure measure = {}, Repo repository = {},
                 TunerOptions options = {})
      : search_(std::move(search)),
        measure_(std::move(measure)),
        repo_(std::move(repository)),
        options_(options) {}

  Tuner(Search search, Measure measure, TunerOptions options)
      : Tuner(std::move(search), std::move(measure), Repo{}, options) {}

  /// Tunes `space` until `stop` holds, without a repository. Throws `aoe::Error`
  /// (`invalid_argument`) in every build when the measure policy does not return one
  /// measurement per configuration of a batch.
  template <stop_condition Stop, class... Observers>
    requires(observer<std::remove_cvref_t<Observers>>&&...)
  TuningResult tune(const Space& space, Stop stop, Observers&&... observers) {
    return run(space, nullptr, stop, observers...);
  }

  /// Looks `key` up first (a hit ends the run unless `reuse` is off), then tunes and stores the
  /// winner under `key`.
  template <stop_condition Stop, class... Observers>
    requires(observer<std::remove_cvref_t<Observers>>&&...)
  TuningResult tune(const Space& space, const TuningKey& key, Stop stop, Observers&&... observers) {
    return run(space, &key, stop, observers...);
  }

  [[nodiscard]] Search& search() noexcept { return search_; }
  [[nodiscard]] Measure& measure() noexcept { return measure_; }
  [[nodiscard]] Repo& repository() noexcept { return repo_; }
  [[nodiscard]] const Repo& repository() const noexcept { return repo_; }
  [[nodiscard]] TunerOptions& options() noexcept { return options_; }

 private:
  using Clock = std::chrono::steady_clock;

  static double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

  using SeenMap = std::unordered_map<Configuration, std::size_t, ConfigurationHash>;

  /// What one run carries from step to step.
  struct Run {
    Run(const Space& s, const TuningKey* k, const Objective& o)
        : space(s), objective(o), view(s), started(Clock::now()) {
      if (k != nullptr) {
        keyed = *k;
        keyed.problem += o.key_suffix();
        key = &keyed;
      }
    }

    const Space& space;
    Objective objective;
    TuningKey keyed;                 ///< the caller's key, with the objective's suffix
    const TuningKey* key = nullptr;  ///< null: no repository
    SpaceView view;
    Clock::time_point started;
    TuningResult result;
    TuningState state;
    std::string fingerprint;  ///< the space's, where the repository keys or logs by it
    /// Resume: the trials an interrupted run logged, by configuration. A proposal found here is
    /// taken from the log instead of being measured (docs/database.md#resume).
    std::unordered_map<Configuration, LoggedTrial, ConfigurationHash> replay;
    bool logging = false;
    std::vector<LoggedTrial> to_log;
    /// Every configuration evaluated in this run, to its index in the history.
    SeenMap seen;
    std::vector<Configuration> fresh;  ///< the batch's new, valid configurations
    std::size_t new_count = 0;         ///< the batch's configurations not seen before
    std::size_t stalled = 0;           ///< proposals in a row with nothing new
    bool stop_requested = false;       ///< an observer asked the run to stop
    std::vector<FrontPoint> front;     ///< pareto: the non-dominated trials, by time
    bool policy_ranks_front = false;   ///< pareto: the policy is shown trials as measured
    /// Transfer's seeds the policy did not take: the tuner proposes them before the policy.
    std::vector<Configuration> served;
    std::size_t next_served = 0;

    [[nodiscard]] double clock() const { return result.search_seconds + result.measure_seconds; }
  };

  /// The loop: propose, screen, measure, log, observe, until a stop condition, an exhausted or
  /// stalled policy, or an observer ends it; then the winner is stored.
  template <class Stop, class... Observers>
  TuningResult run(const Space& space, const TuningKey* key, const Stop& stop,
                   Observers&... observers) {
    Run r(space, key, options_.objective);
    r.result.policy = detail::policy_name(search_);
    if constexpr (fingerprinted_repository<Repo> || trial_log<Repo>) {
      if (key != nullptr) r.fingerprint = space_fingerprint(space);
    }
    if (key != nullptr && options_.reuse && try_reuse(r)) {
      (notify_start(observers, r.view, r.state), ...);
      r.result.total_seconds = seconds(Clock::now() - r.started);
      (notify_finish(observers, r.result), ...);
      return std::move(r.result);
    }
    r.policy_ranks_front = detail::tell_objective(search_, options_.objective) &&
                           options_.objective.kind == ObjectiveKind::pareto;
    prepare_transfer(r);
    timed(r.result.search_seconds, [&] { search_.start(r.view, derive_seed(options_.seed, 0)); });
    (notify_start(observers, r.view, r.state), ...);
    open_log(r);

    while (true) {
      r.state.elapsed = r.clock();
      const std::size_t n = batch_size(stop, r.state);
      if (n == 0) {
        r.result.reason = StopReason::condition;
        break;
      }
      std::vector<Configuration> batch = take_served(r, n);
      const bool served = !batch.empty();
      if (!served) timed(r.result.search_seconds, [&] { batch = search_.propose(n); });
      if (batch.empty()) {
        r.result.reason = StopReason::exhausted;
        break;
      }
      screen(r, batch, n, observers...);
      measure_fresh(r, observers...);
      flush_log(r);
      if (r.new_count == 0 && ++r.stalled >= options_.max_stalled) {
        r.result.reason = StopReason::stalled;
        break;
      }
      if (r.new_count != 0) r.stalled = 0;
      observe(r, batch, !served, observers...);
      if (r.stop_requested) {
        r.result.reason = StopReason::observer;
        break;
      }
    }
    confirm_best(r);
    r.state.elapsed = r.clock();
    store_winner(r);
    r.result.total_seconds = seconds(Clock::now() - r.started);
    close_log(r);
    (notify_finish(observers, r.result), ...);
    return std::move(r.result);
  }

  template <class F>
  static void timed(double& seconds_spent, F&& step) {
    const auto t0 = Clock::now();
    step();
    seconds_spent += seconds(Clock::now() - t0);
  }

  /// How many configurations to ask for next: the batch size, capped by the evaluations the
  /// stop condition has left; 0 when the condition holds.
  template <class Stop>
  std::size_t batch_size(const Stop& stop, const TuningState& state) const {
    if (stop.done(state)) return 0;
    std::size_t n = options_.batch_size == 0 ? 1 : options_.batch_size;
    if (const auto left = remaining_evaluations(stop, state)) n = std::min(n, *left);
    return n;
  }

  /// Transfer's seeds for this run (plan_transfer): from `options.transfer.sources` (other
  /// devices than the key's) and the repository's other devices. The policy takes them as its
  /// first points when it can (`takes_warm_start`, told even when there are none, so that a
  /// previous run's go); otherwise they wait in `r.served` for the loop to propose first. A
  /// repository that cannot say is a repository error, not a failed run.
  void prepare_transfer(Run& r) {
    std::vector<TransferSource> found;
    if constexpr (transfer_repository<Repo>) {
      if (options_.transfer.enabled && r.key != nullptr) {
        if (auto got = repo_.transfer_sources(*r.key)) {
          found = std::move(*got);
        } else {
          r.result.repository_error = got.error();
        }
      }
    }
    TransferPlan plan = plan_transfer_for(r.space, r.key, options_.transfer, found);
    r.result.transfer.sources = std::move(plan.sources);
    r.result.transfer.seeds = plan.seeds.size();
    bool taken = false;
    if constexpr (takes_warm_start<Search>) {
      taken = static_cast<bool>(search_.warm_start(std::span<const Configuration>(plan.seeds)));
    }
    r.result.transfer.by_policy = taken && !plan.seeds.empty();
    if (!taken) r.served = std::move(plan.seeds);
  }

  /// Up to `n` of the tuner's own transfer seeds not evaluated yet; empty once they are all out.
  static std::vector<Configuration> take_served(Run& r, std::size_t n) {
    std::vector<Configuration> batch;
    while (r.next_served < r.served.size() && batch.size() < n) {
      const Configuration& c = r.served[r.next_served++];
      if (!r.seen.contains(c)) batch.push_back(c);
    }
    return batch;
  }

  /// With a repository that logs trials: opens the run, and takes back the trials of an
  /// interrupted one with the same key, fingerprint, seed and policy.
  void open_log(Run& r) {
    if constexpr (trial_log<Repo>) {
      if (r.key == nullptr) return;
      RunInfo info{*r.key, r.fingerprint, options_.seed, r.result.policy, options_.batch_size, {}};
      if constexpr (timed_measure<Measure>) info.timing = measure_.timing();
      for (const auto& p : r.space.parameters()) info.parameters.push_back(p.name());
      auto logged = repo_.begin_run(info);
      if (!logged) {
        r.result.repository_error = logged.error();
        return;
      }
      r.logging = true;
      for (auto& lt : *logged) {
        // A trial logged without its energy cannot be scored by an objective that needs it.
        if (r.objective.needs_energy() && lt.measurement.ok() && !lt.measurement.energy) continue;
        if (auto c = r.space.find(lt.configuration)) r.replay.emplace(std::move(*c), std::move(lt));
      }
    } else {
      (void)r;
    }
  }

  static void log_trial(Run& r, const Trial& t) {
    if (r.logging) {
      r.to_log.push_back(LoggedTrial{r.space.named_values(t.configuration), t.measurement,
                                     t.evaluation, t.started, t.finished});
    }
  }

  /// Appends the batch's new trials to the log; a log that fails stops logging, not tuning (the
  /// run just cannot be resumed past this point).
  void flush_log(Run& r) {
    if constexpr (trial_log<Repo>) {
      if (!r.logging || r.to_log.empty()) return;
      if (auto logged = repo_.log_trials(std::span<const LoggedTrial>(r.to_log)); !logged) {
        r.result.repository_error = logged.error();
        r.logging = false;
      }
      r.to_log.clear();
    } else {
      (void)r;
    }
  }

  void close_log(Run& r) {
    if constexpr (trial_log<Repo>) {
      if (!r.logging) return;
      RunSummary summary{std::string(to_string(r.result.reason)), r.state.evaluations, std::nullopt,
                         r.result.total_seconds};
      if (r.state.has_best()) summary.best_value = r.state.best_value;
      if (auto ended = repo_.end_run(summary); !ended) r.result.repository_error = ended.error();
    } else {
      (void)r;
    }
  }

  template <class... Observers>
  static bool notify_measured(Run& r, Observers&... observers) {
    bool any = false;
    ((any = detail::notify_measurement(observers, r.result.history.back(), r.state) || any), ...);
    return any;
  }

  /// Splits a proposal: configurations seen before in this run are skipped (their trial goes
  /// back to the policy in `observe`), at most `n` new ones are taken, and an invalid one is
  /// recorded with status `constraints` without being measured. The valid new ones are left in
  /// `r.fresh`.
  template <class... Observers>
  static void screen(Run& r, const std::vector<Configuration>& batch, std::size_t n,
                     Observers&... observers) {
    r.fresh.clear();
    r.new_count = 0;
    for (const auto& c : batch) {
      if (r.seen.contains(c)) continue;
      if (r.new_count == n) break;  // a policy that proposed more than asked
      ++r.new_count;
      r.seen.emplace(c, TuningState::npos);
      if (!r.space.is_valid(c)) {
        const Constraint* broken = r.space.in_bounds(c) ? r.space.violated(c) : nullptr;
        Trial t;
        t.configuration = c;
        t.measurement = Measurement::failure(
            Status::constraints, broken != nullptr
                                     ? "violates constraint '" + broken->description() + "'"
                                     : std::string("index out of range"));
        const bool was_logged = r.replay.erase(c) > 0;
        record(std::move(t), r);
        if (!was_logged) log_trial(r, r.result.history.back());
        r.stop_requested = notify_measured(r, observers...) || r.stop_requested;
        continue;
      }
      r.fresh.push_back(c);
    }
  }

  /// Measures what the log does not have, in one call of the measure policy, and records the
  /// batch's valid configurations in proposal order, each charged its cost on the tuner's clock.
  template <class... Observers>
  void measure_fresh(Run& r, Observers&... observers) {
    if (r.fresh.empty()) return;
    std::vector<Configuration> to_measure;
    for (const auto& c : r.fresh) {
      if (!r.replay.contains(c)) to_measure.push_back(c);
    }
    std::vector<Measurement> measurements;
    double per_config = 0;
    if (!to_measure.empty()) {
      const auto t1 = Clock::now();
      measurements = measure_.measure(r.view, std::span<const Configuration>(to_measure));
      const double wall = seconds(Clock::now() - t1);
      if (measurements.size() != to_measure.size()) {
        // A user's policy is wrong: said in every build (an assertion is compiled out in
        // Release, and indexing past the end would follow).
        throw Error(Errc::invalid_argument,
                    "aoe::Tuner: the measure policy returned " +
                        std::to_string(measurements.size()) + " measurements for a batch of " +
                        std::to_string(to_measure.size()) +
                        " configurations; expected one per configuration, in batch order");
      }
      per_config = wall / static_cast<double>(to_measure.size());
    }
    double clock = r.clock();
    std::size_t next = 0;
    for (auto& c : r.fresh) {
      Trial t;
      double cost = 0;
      bool replayed = false;
      if (const auto it = r.replay.find(c); it != r.replay.end()) {
        t.measurement = std::move(it->second.measurement);
        cost = it->second.finished - it->second.started;
        r.replay.erase(it);
        replayed = true;
        ++r.result.replayed;
      } else {
        t.measurement = std::move(measurements[next++]);
        cost = detail::reports_device_time<Measure>() ? t.measurement.cost : per_config;
        if (!detail::reports_device_time<Measure>() && t.measurement.cost == 0) {
          t.measurement.cost = per_config;
        }
      }
      t.configuration = std::move(c);
      t.started = clock;
      clock += cost;
      t.finished = clock;
      r.result.measure_seconds += cost;
      record(std::move(t), r);
      if (!replayed) log_trial(r, r.result.history.back());
      r.state.elapsed = r.clock();
      r.stop_requested = notify_measured(r, observers...) || r.stop_requested;
    }
  }

  /// Tells the observers about the batch's new trials, then hands the policy its trials in
  /// proposal order, new and old alike (`tell_policy`: the policy proposed the batch; the
  /// tuner's transfer seeds go to the observers only).
  template <class... Observers>
  void observe(Run& r, const std::vector<Configuration>& batch, bool tell_policy,
               Observers&... observers) {
    std::vector<Trial> observed;
    for (const auto& c : batch) {
      const auto it = r.seen.find(c);
      if (it != r.seen.end() && it->second != TuningState::npos) {
        observed.push_back(policy_view(r, r.result.history[it->second]));
      }
    }
    const std::span<const Trial> batch_trials(
        r.result.history.data() + (r.result.history.size() - r.new_count), r.new_count);
    bool any = false;
    ((any = detail::notify_batch(observers, batch_trials, r.state) || any), ...);
    r.stop_requested = r.stop_requested || any;
    if (!tell_policy) return;
    timed(r.result.search_seconds, [&] { search_.observe(std::span<const Trial>(observed)); });
  }

  /// A valid measurement's score for the run's objective (nullopt: invalid, or over the cap).
  static std::optional<double> confirm_score(const Measurement& m, const Run& r) {
    if (!m.ok()) return std::nullopt;
    if (r.objective.plain_time()) return m.value;
    if (!under_cap(m, r.objective)) return std::nullopt;
    return objective_score(m, r.objective);
  }

  /// TunerOptions::confirm: the best candidates measured again, each round one batch of all of
  /// them, and the one with the lowest median over its measurements declared best.
  void confirm_best(Run& r) {
    const ConfirmOptions& options = options_.confirm;
    if (options.candidates < 2 || options.rounds == 0 || !r.state.has_best() ||
        r.objective.kind == ObjectiveKind::pareto) {
      return;
    }
    std::vector<std::pair<double, std::size_t>> ranked;  // score, index in history
    for (std::size_t i = 0; i < r.result.history.size(); ++i) {
      if (const auto s = confirm_score(r.result.history[i].measurement, r)) {
        ranked.emplace_back(*s, i);
      }
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    if (ranked.size() > options.candidates) ranked.resize(options.candidates);
    if (ranked.size() < 2) return;
    auto& confirmed = r.result.confirmation;
    for (const auto& [score, index] : ranked) confirmed.push_back({index, {score}, score});
    const auto t0 = Clock::now();
    for (std::size_t round = 0; round < options.rounds; ++round) {
      std::vector<std::size_t> order(ranked.size());
      for (std::size_t k = 0; k < order.size(); ++k) order[k] = (k + round) % order.size();
      std::vector<Configuration> batch;
      for (const std::size_t k : order) {
        batch.push_back(r.result.history[confirmed[k].index].configuration);
      }
      const auto measured = measure_.measure(r.view, std::span<const Configuration>(batch));
      if (measured.size() != batch.size()) {
        throw Error(Errc::invalid_argument,
                    "aoe::Tuner: the measure policy returned " + std::to_string(measured.size()) +
                        " measurements for a batch of " + std::to_string(batch.size()) +
                        " configurations (confirming the best); expected one per configuration");
      }
      for (std::size_t k = 0; k < order.size(); ++k) {
        if (const auto s = confirm_score(measured[k], r)) confirmed[order[k]].values.push_back(*s);
      }
    }
    r.result.measure_seconds += seconds(Clock::now() - t0);
    const auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      const std::size_t h = v.size() / 2;
      return v.size() % 2 == 1 ? v[h] : (v[h - 1] + v[h]) / 2;
    };
    std::size_t best = 0;
    for (std::size_t k = 0; k < confirmed.size(); ++k) {
      confirmed[k].median = median(confirmed[k].values);
      if (confirmed[k].median < confirmed[best].median) best = k;
    }
    r.state.best_index = confirmed[best].index;
    r.state.best_value = confirmed[best].median;
  }

  /// The best trial becomes the result; with a key, it is stored in the repository.
  void store_winner(Run& r) {
    if (!r.state.has_best()) return;
    TuningResult& result = r.result;
    result.best_index = r.state.best_index;
    result.best_value = r.state.best_value;
    result.best_configuration = result.history[r.state.best_index].configuration;
    for (const auto& p : r.front) result.front.push_back(p.index);
    if (r.key == nullptr) return;
    Record rec{*r.key, r.space.named_values(*result.best_configuration), r.state.best_value,
               Provenance{result.policy, r.state.evaluations, detail::utc_timestamp()}};
    if constexpr (timed_measure<Measure>) rec.provenance.timing = measure_.timing();
    for (const auto& p : r.front) {
      rec.front.push_back(
          {r.space.named_values(result.history[p.index].configuration), p.seconds, p.joules});
    }
    auto stored = [&] {
      if constexpr (fingerprinted_repository<Repo>) {
        return repo_.store(rec, std::string_view(r.fingerprint));
      } else {
        return repo_.store(rec);
      }
    }();
    if (stored) {
      result.stored = *stored;
    } else {
      result.repository_error = stored.error();
      r.logging = false;  // the run's log stays open: the next run resumes it and stores the best
    }
  }

  bool try_reuse(Run& r) {
    auto found = [&] {
      if constexpr (fingerprinted_repository<Repo>) {
        return repo_.lookup(*r.key, std::string_view(r.fingerprint));
      } else {
        return repo_.lookup(*r.key);
      }
    }();
    if (!found) {
      r.result.repository_error = found.error();
      return false;
    }
    if (!found->has_value()) return false;
    const Record& rec = **found;
    // A model's time is not a device's: a policy that measures tunes again and stores its own
    // record, which replaces this one in a repository that keeps the rule (TuningDatabase).
    if constexpr (timed_measure<Measure>) {
      if (Timing(measure_.timing()).measured() && !stored_measured(rec)) return false;
    }
    auto c = r.space.find(rec.configuration);
    if (!c || !r.space.is_valid(*c)) return false;  // stale: the space changed; tune again
    r.result.repository_record = rec;
    r.result.best_configuration = std::move(c);
    r.result.best_value = rec.value;
    r.result.reason = StopReason::repository_hit;
    return true;
  }

  /// Whether a stored record says its time was measured on a device.
  static bool stored_measured(const Record& rec) {
    return rec.provenance.timing && rec.provenance.timing->measured();
  }

  /// Appends a trial to the history; a valid one that improves the objective becomes the best.
  static void record(Trial t, Run& r) {
    TuningState& state = r.state;
    TuningResult& result = r.result;
    ++state.evaluations;
    t.evaluation = state.evaluations;
    ++result.status_counts[static_cast<std::size_t>(t.measurement.status)];
    const std::size_t index = result.history.size();
    r.seen[t.configuration] = index;
    bool improved = false;
    if (t.measurement.ok()) {
      ++state.valid_evaluations;
      improved = r.objective.plain_time() ? improves_time(t.measurement, index, state)
                                          : improves_objective(t.measurement, index, r);
    }
    state.since_improvement = improved ? 0 : state.since_improvement + 1;
    result.history.push_back(std::move(t));
  }

  static bool improves_time(const Measurement& m, std::size_t index, TuningState& state) {
    if (!(m.value < state.best_value)) return false;
    state.best_value = m.value;
    state.best_index = index;
    return true;
  }

  /// An objective other than plain time: the score, the cap, and for pareto the front and its
  /// rule. A valid measurement without energy is the measure policy's error.
  static bool improves_objective(const Measurement& m, std::size_t index, Run& r) {
    const auto score = objective_score(m, r.objective);
    if (!score) {
      throw Error(Errc::invalid_argument,
                  "aoe::Tuner: the objective '" + r.objective.label() +
                      "' needs each measurement's energy, and the measure policy gave none for "
                      "a valid configuration (evaluation " +
                      std::to_string(r.state.evaluations) +
                      "); its runner cannot measure energy here (docs/energy.md)");
    }
    if (!under_cap(m, r.objective)) return false;
    if (r.objective.kind != ObjectiveKind::pareto) {
      if (!(*score < r.state.best_value)) return false;
      r.state.best_value = *score;
      r.state.best_index = index;
      return true;
    }
    if (!add_to_front(r.front, FrontPoint{m.value, m.energy->joules, index})) return false;
    const FrontPoint& chosen = r.front[pick_from_front(r.front, r.objective.pick)];
    r.state.best_index = chosen.index;
    r.state.best_value =
        chosen.index == index
            ? *score
            : *objective_score(r.result.history[chosen.index].measurement, r.objective);
    return true;
  }

  /// The trial a search policy is shown: as measured for plain time, and for pareto to a
  /// policy that ranks the front itself; otherwise a valid one's value is the objective's
  /// (objective_score, policy_value).
  static Trial policy_view(const Run& r, const Trial& t) {
    if (r.objective.plain_time() || r.policy_ranks_front || !t.measurement.ok()) return t;
    Trial shown = t;
    const double score = objective_score(t.measurement, r.objective).value_or(t.measurement.value);
    shown.measurement.value = policy_value(t.measurement, r.objective, score);
    return shown;
  }

  template <class O>
  static void notify_start(O& o, SpaceView v, const TuningState& s) {
    if constexpr (detail::has_on_start<O>) o.on_start(v, s);
  }
  template <class O>
  static void notify_finish(O& o, const TuningResult& r) {
    if constexpr (detail::has_on_finish<O>) o.on_finish(r);
  }

  Search search_;
  Measure measure_;
  Repo repo_;
  TunerOptions options_;
};

}  // namespace aoe

#endif  // AOE_TUNER_TUNER_HPP
