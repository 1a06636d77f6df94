// Tuner<Search, Measure, Repo>: the closed loop every job runs.
//   repository lookup -> (hit: reuse) -> propose -> measure -> observe -> ... -> store the winner
// With a repository that keeps trials (aoe::trial_log), every trial is logged as it is made and
// an interrupted run resumes: its logged trials are replayed into the search policy unmeasured.
#ifndef AOE_CORE_TUNER_HPP
#define AOE_CORE_TUNER_HPP

#include "aoe/core/assert.hpp"
#include "aoe/core/concepts.hpp"
#include "aoe/core/error.hpp"
#include "aoe/core/random.hpp"
#include "aoe/core/stop_conditions.hpp"
#include "aoe/core/trial.hpp"
#include "aoe/core/tuning_result.hpp"
#include "aoe/repo/memory_repository.hpp"
#include "aoe/repo/trial_log.hpp"
#include "aoe/space/fingerprint.hpp"
#include "aoe/space/space.hpp"

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

/// Options of a tuner. Aggregate: `aoe::TunerOptions{.seed = 7, .batch_size = 8}`.
struct TunerOptions {
  std::uint64_t seed = 0;        ///< the search policy's seed (derived; never the clock)
  std::size_t batch_size = 1;    ///< configurations proposed and measured together
  bool reuse = true;             ///< a repository hit ends the run (false: AOE's REPEAT_TUNE)
  std::size_t max_stalled = 64;  ///< proposals in a row with nothing new before giving up
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
  static constexpr bool search_has_start = requires(Search & s, SpaceView v, std::uint64_t seed) {
    s.start(v, seed);
  };
  static constexpr bool search_has_propose = requires(Search & s, std::size_t n) {
    { s.propose(n) } -> std::same_as<std::vector<Configuration>>;
  };
  static constexpr bool search_has_observe = requires(Search & s, std::span<const Trial> t) {
    s.observe(t);
  };
  static constexpr bool measure_has_measure =
      requires(Measure & m, SpaceView v, std::span<const Configuration> b) {
    { m.measure(v, b) } -> std::same_as<std::vector<Measurement>>;
  };
  static constexpr bool repo_has_lookup = requires(const Repo& r, const TuningKey& k) {
    { r.lookup(k) } -> std::same_as<Result<std::optional<Record>>>;
  };
  static constexpr bool repo_has_store = requires(Repo & r, const Record& rec) {
    { r.store(rec) } -> std::same_as<Result<StoreOutcome>>;
  };
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

  template <class Stop, class... Observers>
  TuningResult run(const Space& space, const TuningKey* key, const Stop& stop,
                   Observers&... observers) {
    const auto started = Clock::now();
    TuningResult result;
    result.policy = detail::policy_name(search_);
    TuningState state;
    const SpaceView view(space);
    constexpr bool logs_trials = trial_log<Repo>;
    std::string fingerprint;
    if constexpr (fingerprinted_repository<Repo> || logs_trials) {
      if (key != nullptr) fingerprint = space_fingerprint(space);
    }

    if (key != nullptr && options_.reuse && try_reuse(space, *key, fingerprint, result)) {
      (notify_start(observers, view, state), ...);
      result.total_seconds = seconds(Clock::now() - started);
      (notify_finish(observers, result), ...);
      return result;
    }

    {
      const auto t0 = Clock::now();
      search_.start(view, derive_seed(options_.seed, 0));
      result.search_seconds += seconds(Clock::now() - t0);
    }
    (notify_start(observers, view, state), ...);

    // Resume: the trials an interrupted run logged, by configuration. A proposal found here is
    // taken from the log instead of being measured (docs/database.md#resume).
    std::unordered_map<Configuration, LoggedTrial, ConfigurationHash> replay;
    bool logging = false;
    std::vector<LoggedTrial> to_log;
    if constexpr (logs_trials) {
      if (key != nullptr) {
        RunInfo info{*key, fingerprint, options_.seed, result.policy, options_.batch_size, {}};
        for (const auto& p : space.parameters()) info.parameters.push_back(p.name());
        auto logged = repo_.begin_run(info);
        if (logged) {
          logging = true;
          for (auto& lt : *logged) {
            if (auto c = space.find(lt.configuration)) replay.emplace(std::move(*c), std::move(lt));
          }
        } else {
          result.repository_error = logged.error();
        }
      }
    }
    const auto log = [&](const Trial& t) {
      if (logging) {
        to_log.push_back(LoggedTrial{space.named_values(t.configuration), t.measurement,
                                     t.evaluation, t.started, t.finished});
      }
    };

    // Every configuration evaluated in this run, to its index in the history.
    std::unordered_map<Configuration, std::size_t, ConfigurationHash> seen;
    std::vector<Configuration> fresh;
    std::vector<Configuration> to_measure;
    std::vector<Trial> observed;
    std::size_t stalled = 0;
    bool stop_requested = false;
    const auto notify_measured = [&](const Trial& t) {
      bool any = false;
      ((any = detail::notify_measurement(observers, t, state) || any), ...);
      return any;
    };

    while (true) {
      state.elapsed = result.search_seconds + result.measure_seconds;
      if (stop.done(state)) {
        result.reason = StopReason::condition;
        break;
      }
      std::size_t n = options_.batch_size == 0 ? 1 : options_.batch_size;
      if (const auto left = remaining_evaluations(stop, state)) n = std::min(n, *left);
      if (n == 0) {
        result.reason = StopReason::condition;
        break;
      }

      auto t0 = Clock::now();
      std::vector<Configuration> batch = search_.propose(n);
      result.search_seconds += seconds(Clock::now() - t0);
      if (batch.empty()) {
        result.reason = StopReason::exhausted;
        break;
      }

      // Split the proposal: configurations seen before get their recorded trial back without
      // being measured again; invalid ones are recorded with status `constraints`.
      fresh.clear();
      observed.clear();
      std::size_t new_count = 0;
      for (auto& c : batch) {
        if (const auto it = seen.find(c); it != seen.end()) continue;
        if (new_count == n) break;  // a policy that proposed more than asked
        ++new_count;
        seen.emplace(c, TuningState::npos);
        if (!space.is_valid(c)) {
          const Constraint* broken = space.in_bounds(c) ? space.violated(c) : nullptr;
          Trial t;
          t.configuration = c;
          t.measurement = Measurement::failure(
              Status::constraints, broken != nullptr
                                       ? "violates constraint '" + broken->description() + "'"
                                       : std::string("index out of range"));
          const bool was_logged = replay.erase(c) > 0;
          record(std::move(t), state, result, seen);
          if (!was_logged) log(result.history.back());
          stop_requested = notify_measured(result.history.back()) || stop_requested;
          continue;
        }
        fresh.push_back(c);
      }

      if (!fresh.empty()) {
        // Measure what the log does not have; keep the proposal order in the history.
        to_measure.clear();
        for (const auto& c : fresh) {
          if (!replay.contains(c)) to_measure.push_back(c);
        }
        std::vector<Measurement> measurements;
        double per_config = 0;
        if (!to_measure.empty()) {
          const auto t1 = Clock::now();
          measurements = measure_.measure(view, std::span<const Configuration>(to_measure));
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
        double clock = result.search_seconds + result.measure_seconds;
        std::size_t next = 0;
        for (std::size_t i = 0; i < fresh.size(); ++i) {
          Trial t;
          double cost = 0;
          bool replayed = false;
          if (const auto it = replay.find(fresh[i]); it != replay.end()) {
            t.measurement = std::move(it->second.measurement);
            cost = it->second.finished - it->second.started;
            replay.erase(it);
            replayed = true;
            ++result.replayed;
          } else {
            t.measurement = std::move(measurements[next++]);
            cost = detail::reports_device_time<Measure>() ? t.measurement.cost : per_config;
            if (!detail::reports_device_time<Measure>() && t.measurement.cost == 0) {
              t.measurement.cost = per_config;
            }
          }
          t.configuration = std::move(fresh[i]);
          t.started = clock;
          clock += cost;
          t.finished = clock;
          result.measure_seconds += cost;
          record(std::move(t), state, result, seen);
          if (!replayed) log(result.history.back());
          state.elapsed = result.search_seconds + result.measure_seconds;
          stop_requested = notify_measured(result.history.back()) || stop_requested;
        }
      }
      if constexpr (logs_trials) {
        if (logging && !to_log.empty()) {
          if (auto logged = repo_.log_trials(std::span<const LoggedTrial>(to_log)); !logged) {
            result.repository_error = logged.error();
            logging = false;  // keep tuning; the run just cannot be resumed past this point
          }
          to_log.clear();
        }
      }

      // Hand the policy its trials in proposal order, new and old alike.
      for (const auto& c : batch) {
        const auto it = seen.find(c);
        if (it != seen.end() && it->second != TuningState::npos) {
          observed.push_back(result.history[it->second]);
        }
      }
      if (new_count == 0) {
        if (++stalled >= options_.max_stalled) {
          result.reason = StopReason::stalled;
          break;
        }
      } else {
        stalled = 0;
      }
      {
        const std::span<const Trial> batch_trials(
            result.history.data() + (result.history.size() - new_count), new_count);
        bool any = false;
        ((any = detail::notify_batch(observers, batch_trials, state) || any), ...);
        stop_requested = stop_requested || any;
      }
      t0 = Clock::now();
      search_.observe(std::span<const Trial>(observed));
      result.search_seconds += seconds(Clock::now() - t0);
      if (stop_requested) {
        result.reason = StopReason::observer;
        break;
      }
    }
    state.elapsed = result.search_seconds + result.measure_seconds;

    if (state.has_best()) {
      result.best_index = state.best_index;
      result.best_value = state.best_value;
      result.best_configuration = result.history[state.best_index].configuration;
      if (key != nullptr) {
        Record rec{*key, space.named_values(*result.best_configuration), state.best_value,
                   Provenance{result.policy, state.evaluations, detail::utc_timestamp()}};
        auto stored = [&] {
          if constexpr (fingerprinted_repository<Repo>) {
            return repo_.store(rec, std::string_view(fingerprint));
          } else {
            return repo_.store(rec);
          }
        }();
        if (stored) {
          result.stored = *stored;
        } else {
          result.repository_error = stored.error();
        }
      }
    }
    result.total_seconds = seconds(Clock::now() - started);
    if constexpr (logs_trials) {
      if (logging) {
        RunSummary summary{std::string(to_string(result.reason)), state.evaluations, std::nullopt,
                           result.total_seconds};
        if (state.has_best()) summary.best_value = state.best_value;
        if (auto ended = repo_.end_run(summary); !ended) result.repository_error = ended.error();
      }
    }
    (notify_finish(observers, result), ...);
    return result;
  }

  bool try_reuse(const Space& space, const TuningKey& key, const std::string& fingerprint,
                 TuningResult& result) {
    auto found = [&] {
      if constexpr (fingerprinted_repository<Repo>) {
        return repo_.lookup(key, std::string_view(fingerprint));
      } else {
        (void)fingerprint;
        return repo_.lookup(key);
      }
    }();
    if (!found) {
      result.repository_error = found.error();
      return false;
    }
    if (!found->has_value()) return false;
    const Record& rec = **found;
    auto c = space.find(rec.configuration);
    if (!c || !space.is_valid(*c)) return false;  // stale: the space changed; tune again
    result.repository_record = rec;
    result.best_configuration = std::move(c);
    result.best_value = rec.value;
    result.reason = StopReason::repository_hit;
    return true;
  }

  static void record(Trial t, TuningState& state, TuningResult& result,
                     std::unordered_map<Configuration, std::size_t, ConfigurationHash>& seen) {
    ++state.evaluations;
    t.evaluation = state.evaluations;
    ++result.status_counts[static_cast<std::size_t>(t.measurement.status)];
    const std::size_t index = result.history.size();
    seen[t.configuration] = index;
    bool improved = false;
    if (t.measurement.ok()) {
      ++state.valid_evaluations;
      if (t.measurement.value < state.best_value) {
        state.best_value = t.measurement.value;
        state.best_index = index;
        improved = true;
      }
    }
    state.since_improvement = improved ? 0 : state.since_improvement + 1;
    result.history.push_back(std::move(t));
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

#endif  // AOE_CORE_TUNER_HPP
