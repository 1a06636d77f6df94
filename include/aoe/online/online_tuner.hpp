// Online<Search, Repo, Params>: tuning inside the user's own loop. Each call site names its
// problem (a TuningKey) and asks for the configuration to use on this call:
//   static aoe::Online<aoe::Bayesian<>, aoe::KnowledgeBank, Tiling> tuner(space, options);
//   auto call = tuner.begin(key);       // the configuration to use now
//   run_matmul(a, b, c, call.parameters());
//   call.end();                         // timed by the library, or call.end(seconds)
// With AOE_MODE unset the call is a lock-free cached lookup of the best known configuration
// (repository, else the default); with AOE_MODE=2 a key still being tuned runs the search
// policy's next candidate on the call. docs/online.md.
#ifndef AOE_ONLINE_ONLINE_TUNER_HPP
#define AOE_ONLINE_ONLINE_TUNER_HPP

#include "aoe/config/environment.hpp"
#include "aoe/core/assert.hpp"
#include "aoe/core/error.hpp"
#include "aoe/core/random.hpp"
#include "aoe/measure/statistics.hpp"
#include "aoe/online/online_options.hpp"
#include "aoe/online/online_summary.hpp"
#include "aoe/space/space.hpp"
#include "aoe/space/typed_space.hpp"
#include "aoe/tuner/concepts.hpp"
#include "aoe/tuner/memory_repository.hpp"
#include "aoe/tuner/transfer.hpp"
#include "aoe/tuner/tuner.hpp"
#include "aoe/vocab/trial.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace aoe {

namespace detail {

/// FNV-1a (64 bit) of a key: stable across runs and platforms, so a key's seed stream is too.
[[nodiscard]] inline std::uint64_t online_key_hash(const TuningKey& key) noexcept {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  const auto mix = [&h](const std::string& s) {
    for (const char c : s) {
      h ^= static_cast<unsigned char>(c);
      h *= 0x100000001B3ULL;
    }
  };
  mix(key.problem);
  h ^= 0x1FU;  // a separator no text holds, so ("ab", "c") and ("a", "bc") differ
  h *= 0x100000001B3ULL;
  mix(key.device);
  return h;
}

template <class Repo>
[[nodiscard]] Repo online_repository(const Environment& env) {
  if constexpr (requires {
                  { Repo::from_environment(env) } -> std::convertible_to<Repo>;
                }) {
    return Repo::from_environment(env);
  } else {
    return Repo{};
  }
}

}  // namespace detail

/// Tunes while the program runs: any search policy, any repository (docs/online.md). `Params`
/// is the user's parameter struct (BOOST_HANA_DEFINE_STRUCT, the space a `make_space<Params>`)
/// or `aoe::Configuration` (index vectors). Thread-safe; not movable (call sites keep a
/// reference, typically a function-local static).
template <class Search, class Repo = MemoryRepository, class Params = Configuration>
class Online {
  static_assert(search_policy<Search>,
                "aoe::Online: the search policy needs start(aoe::SpaceView, std::uint64_t), "
                "propose(std::size_t) -> std::vector<aoe::Configuration> and "
                "observe(std::span<const aoe::Trial>) (docs/concepts.md#search_policy)");
  static_assert(std::copy_constructible<Search>,
                "aoe::Online: the search policy must be copy-constructible: each key is tuned "
                "by its own copy of the policy given");
  static_assert(repository_policy<Repo>,
                "aoe::Online: the repository needs lookup(const aoe::TuningKey&) const -> "
                "aoe::Result<std::optional<aoe::Record>> and store(const aoe::Record&) -> "
                "aoe::Result<aoe::StoreOutcome> (docs/concepts.md#repository_policy)");
  static constexpr bool typed = !std::is_same_v<Params, Configuration>;
  static_assert(!typed || parameter_struct<Params>,
                "aoe::Online: Params must be aoe::Configuration or a struct declared with "
                "BOOST_HANA_DEFINE_STRUCT");

  struct KeyState;
  struct NoParams {};

 public:
  /// A configuration handed out: immutable once made, alive as long as the tuner.
  struct Choice {
    Configuration configuration;
    [[no_unique_address]] std::conditional_t<typed, Params, NoParams> params{};
  };

  /// One call: the configuration to run now and, when the call runs a candidate, the timing
  /// that goes back to the tuner. Move-only; end it on the thread that began it.
  class Call {
   public:
    Call(Call&& other) noexcept
        : owner_(other.owner_),
          key_(other.key_),
          choice_(other.choice_),
          started_(other.started_),
          exceptions_(other.exceptions_),
          measuring_(std::exchange(other.measuring_, false)) {}
    Call& operator=(Call&&) = delete;
    Call(const Call&) = delete;
    Call& operator=(const Call&) = delete;

    /// A call that runs a candidate and was not ended: if an exception is leaving the scope
    /// (the kernel threw), the candidate is recorded as failed; otherwise it is run again on a
    /// later call.
    ~Call() {
      if (!measuring_) return;
      if (std::uncaught_exceptions() > exceptions_) {
        owner_->fail_candidate(*key_, "the kernel threw an exception");
      } else {
        owner_->release_candidate(*key_);
      }
    }

    /// The configuration (index vector) to run.
    [[nodiscard]] const Configuration& configuration() const noexcept {
      return choice_->configuration;
    }
    /// The user's parameter struct to run (Params a parameter struct).
    [[nodiscard]] const Params& parameters() const noexcept requires typed {
      return choice_->params;
    }
    /// Whether this call runs a candidate being tuned (its time goes back to the tuner).
    [[nodiscard]] bool measuring() const noexcept { return measuring_; }

    /// Ends the call: its time, by the steady clock since `begin`, goes to the tuner.
    void end() {
      if (!measuring_) return;
      end(std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count());
    }
    /// Ends the call with a time the caller measured (seconds; e.g. a GPU event's time).
    void end(double seconds) {
      if (!std::exchange(measuring_, false)) return;
      owner_->conclude_sample(*key_, seconds);
    }
    /// Ends the call as failed: the candidate is recorded with status `runtime` and `message`
    /// and never proposed again.
    void fail(const std::string& message) {
      if (!std::exchange(measuring_, false)) return;
      owner_->fail_candidate(*key_, message);
    }

   private:
    friend class Online;
    Call(Online* owner, KeyState* key, const Choice* choice) noexcept
        : owner_(owner), key_(key), choice_(choice) {}

    Online* owner_;
    KeyState* key_;
    const Choice* choice_;
    std::chrono::steady_clock::time_point started_{};
    int exceptions_ = 0;
    bool measuring_ = false;
  };

  /// The repository is made from the environment when `Repo::from_environment(const
  /// aoe::Environment&)` exists (the knowledge bank: TUNE_BANK_PATH ...), else
  /// default-constructed. Throws `aoe::Error` for an invalid environment variable (named in the
  /// message) or a default configuration that is not in the space.
  explicit Online(Space space, OnlineOptions options = {}, Search search = Search())
      : Online(std::move(space), options, std::move(search), std::nullopt) {}

  Online(Space space, OnlineOptions options, Search search, Repo repository)
      : Online(std::move(space), std::move(options), std::move(search),
               std::optional<Repo>(std::move(repository))) {}

  Online(const Online&) = delete;
  Online& operator=(const Online&) = delete;

  /// Stores what is not stored yet and, if `summary_at_exit`, prints the summary to stderr.
  ~Online() {
    for (auto& k : keys_) {
      std::lock_guard lock(k->mutex);
      if (k->unstored) store_best(*k);
    }
    if (options_.summary_at_exit) {
      const OnlineSummary s = summary();
      bool worth = false;
      for (const auto& k : s.keys)
        worth = worth || k.evaluations > 0 || !k.repository_error.empty();
      if (worth) std::fputs(s.to_string().c_str(), stderr);
    }
  }

  /// The configuration to use for `key` now. Off (or a key done): a lock-free lookup of the
  /// best known configuration. Tuning: the key's next candidate, unless another thread is
  /// running it (then the best so far).
  [[nodiscard]] Call begin(const TuningKey& key) {
    KeyState& k = find(key);
    k.calls.fetch_add(1, std::memory_order_relaxed);
    if (!k.tuning.load(std::memory_order_acquire)) {
      return Call(this, &k, k.best.load(std::memory_order_acquire));
    }
    return begin_tuning(k);
  }

  /// Runs `kernel(parameters)` (or `kernel(configuration)`) for `key`, timed by the library;
  /// an exception the kernel throws marks the candidate failed and reaches the caller.
  template <class F>
  decltype(auto) run(const TuningKey& key, F&& kernel) {
    Call call = begin(key);
    try {
      if constexpr (std::is_void_v<decltype(invoke_kernel(kernel, call))>) {
        invoke_kernel(kernel, call);
        call.end();
      } else {
        auto result = invoke_kernel(kernel, call);
        call.end();
        return result;
      }
    } catch (const std::exception& e) {
      call.fail(e.what());
      throw;
    } catch (...) {
      call.fail("the kernel threw an exception that is not a std::exception");
      throw;
    }
  }

  /// Every key's account so far.
  [[nodiscard]] OnlineSummary summary() const {
    OnlineSummary s;
    s.mode = mode_;
    std::lock_guard insert(insert_mutex_);
    for (const auto& k : keys_) {
      std::lock_guard lock(k->mutex);
      OnlineKeySummary ks;
      ks.key = k->key;
      ks.calls = k->calls.load(std::memory_order_relaxed);
      ks.tuning = k->tuning.load(std::memory_order_relaxed);
      ks.evaluations = k->state.evaluations;
      ks.failed = k->failed;
      ks.abandoned = k->abandoned;
      ks.confirmed = k->confirmed;
      ks.source = k->source;
      ks.best = space_.to_string(k->best.load(std::memory_order_relaxed)->configuration);
      ks.best_seconds = k->best_seconds;
      ks.default_seconds = k->default_seconds;
      ks.exploration_calls = k->exploration_calls;
      ks.exploration_seconds = k->exploration_seconds;
      if (!std::isnan(k->best_seconds)) {
        ks.regret_seconds =
            k->exploration_seconds - static_cast<double>(k->exploration_calls) * k->best_seconds;
      }
      ks.repository_error = k->repository_error;
      ks.transfer_seeds = k->transfer_seeds;
      s.keys.push_back(std::move(ks));
    }
    return s;
  }

  /// The trials of `key` in the order concluded (empty for a key never tuned).
  [[nodiscard]] std::vector<Trial> history(const TuningKey& key) const {
    std::lock_guard insert(insert_mutex_);
    for (const auto& k : keys_) {
      if (k->key != key) continue;
      std::lock_guard lock(k->mutex);
      return k->history;
    }
    return {};
  }

  /// Watches each key's tuning with the tuner's observer hooks (docs/concepts.md#observer):
  /// `on_start` when a key starts being tuned, `on_measurement` for every concluded candidate
  /// (returning true ends that key's tuning), `on_finish` with the key's `TuningResult` when it
  /// is done. Called under a lock, one at a time, on the thread of the call that concluded.
  /// The observer must outlive the tuner's calls.
  template <class O>
    requires observer<O>
  void add_observer(O& o) {
    Watcher w;
    if constexpr (detail::has_on_start<O>) {
      w.start = [&o](SpaceView v, const TuningState& s) { o.on_start(v, s); };
    }
    w.measured = [&o](const Trial& t, const TuningState& s) {
      return detail::notify_measurement(o, t, s);
    };
    if constexpr (detail::has_on_finish<O>) {
      w.finish = [&o](const TuningResult& r) { o.on_finish(r); };
    }
    std::lock_guard lock(observer_mutex_);
    observers_.push_back(std::move(w));
  }

  [[nodiscard]] OnlineMode mode() const noexcept { return mode_; }
  [[nodiscard]] bool repeat_tune() const noexcept { return repeat_tune_; }
  [[nodiscard]] const Space& space() const noexcept { return space_; }
  [[nodiscard]] const OnlineOptions& options() const noexcept { return options_; }
  /// The repository (read it only while no call is running).
  [[nodiscard]] const Repo& repository() const noexcept { return repo_; }

 private:
  using Clock = std::chrono::steady_clock;

  /// One key. The fast path reads `tuning` and `best` only; everything else is guarded by
  /// `mutex` (taken only while the key is being tuned, and by `summary`).
  struct KeyState {
    TuningKey key;
    std::uint64_t hash = 0;
    std::atomic<std::uint64_t> calls{0};
    std::atomic<bool> tuning{false};
    std::atomic<const Choice*> best{nullptr};

    mutable std::mutex mutex;
    std::deque<std::unique_ptr<Choice>> choices;  // every Choice handed out; freed with the tuner
    std::optional<Search> search;
    bool started = false;
    std::vector<Configuration> initial;  // measured first: the default, a stored record
    std::vector<Configuration> pending;  // proposed, not yet run
    const Choice* current = nullptr;     // the candidate being measured
    bool current_proposed = false;       // by the policy (not an initial one)
    bool out = false;                    // a call is running `current`
    std::vector<double> samples;         // of `current`
    std::unordered_map<Configuration, std::size_t, ConfigurationHash> seen;  // -> history index
    std::vector<Trial> history;
    TuningState state;
    std::size_t stalled = 0;
    bool stopped = false;  // an observer asked to stop
    std::size_t failed = 0;
    std::size_t abandoned = 0;
    std::size_t confirmed = 0;
    OnlineSource source = OnlineSource::default_configuration;
    double best_seconds = std::numeric_limits<double>::quiet_NaN();
    double default_seconds = std::numeric_limits<double>::quiet_NaN();
    std::uint64_t exploration_calls = 0;
    double exploration_seconds = 0;
    bool unstored = false;  // the best was found here and is not in the repository yet
    std::string repository_error;
    std::size_t transfer_seeds = 0;  // other devices' configurations measured first
  };

  /// An insert-only open-addressing table of keys: readers probe with acquire loads, never a
  /// lock; writers (a key's first call) insert under `insert_mutex_` and grow by publishing a
  /// new table. Old tables live as long as the tuner, so a reader never sees one freed.
  struct Table {
    explicit Table(std::size_t capacity)
        : mask(capacity - 1), slots(std::make_unique<std::atomic<KeyState*>[]>(capacity)) {}
    std::size_t mask;
    std::unique_ptr<std::atomic<KeyState*>[]> slots;
  };

  Online(Space space, OnlineOptions options, Search search, std::optional<Repo> repository)
      : space_(std::move(space)), options_(std::move(options)), prototype_(std::move(search)) {
    Environment env;
    if (options_.environment) {
      env = *options_.environment;
    } else if (!options_.mode || !options_.repeat_tune || !repository) {
      env = read_environment().value();  // throws aoe::Error naming the variable
    }
    mode_ = options_.mode.value_or(online_mode(env));
    repeat_tune_ = options_.repeat_tune.value_or(env.repeat_tune);
    repo_ = repository ? std::move(*repository) : detail::online_repository<Repo>(env);
    default_ = resolve_default();
    tables_.push_back(std::make_unique<Table>(64));
    table_.store(tables_.back().get(), std::memory_order_release);
  }

  [[nodiscard]] Configuration resolve_default() const {
    if (!options_.default_configuration.empty()) {
      auto c = space_.find(options_.default_configuration);
      if (!c || !space_.is_valid(*c)) {
        std::string text;
        for (const auto& nv : options_.default_configuration) {
          text += (text.empty() ? "" : ", ") + nv.name + "=" + nv.value.to_string();
        }
        throw Error(Errc::invalid_argument, "aoe::Online: OnlineOptions::default_configuration {" +
                                                text +
                                                "} is not a valid configuration of the space");
      }
      return *c;
    }
    const auto raw = static_cast<std::uint64_t>(std::min(space_.raw_size(), 1e7));
    for (std::uint64_t r = 0; r < raw; ++r) {
      Configuration c = space_.unrank(r);
      if (space_.is_valid(c)) return c;
    }
    throw Error(Errc::invalid_argument, "aoe::Online: the space has no valid configuration");
  }

  KeyState& find(const TuningKey& key) {
    const std::uint64_t h = detail::online_key_hash(key);
    const Table* t = table_.load(std::memory_order_acquire);
    for (std::size_t i = h & t->mask;; i = (i + 1) & t->mask) {
      KeyState* k = t->slots[i].load(std::memory_order_acquire);
      if (k == nullptr) break;
      if (k->hash == h && k->key == key) return *k;
    }
    return insert(key, h);
  }

  KeyState& insert(const TuningKey& key, std::uint64_t h) {
    std::lock_guard lock(insert_mutex_);
    Table* t = tables_.back().get();
    for (std::size_t i = h & t->mask;; i = (i + 1) & t->mask) {
      KeyState* k = t->slots[i].load(std::memory_order_relaxed);
      if (k == nullptr) break;
      if (k->hash == h && k->key == key) return *k;
    }
    keys_.push_back(make_key(key, h));
    KeyState* made = keys_.back().get();
    if (2 * keys_.size() > t->mask + 1) {
      tables_.push_back(std::make_unique<Table>(2 * (t->mask + 1)));
      t = tables_.back().get();
      for (const auto& k : keys_) place(*t, k.get());
      table_.store(t, std::memory_order_release);
    } else {
      place(*t, made);
    }
    return *made;
  }

  static void place(Table& t, KeyState* k) {
    for (std::size_t i = k->hash & t.mask;; i = (i + 1) & t.mask) {
      if (t.slots[i].load(std::memory_order_relaxed) == nullptr) {
        t.slots[i].store(k, std::memory_order_release);
        return;
      }
    }
  }

  std::unique_ptr<KeyState> make_key(const TuningKey& key, std::uint64_t h) {
    auto k = std::make_unique<KeyState>();
    k->key = key;
    k->hash = h;
    std::optional<Configuration> stored;
    {
      std::lock_guard repo_lock(repo_mutex_);
      auto found = repo_.lookup(key);
      if (!found) {
        k->repository_error = found.error().what();
      } else if (found->has_value()) {
        auto c = space_.find((*found)->configuration);
        if (c && space_.is_valid(*c)) {
          stored = std::move(c);
          k->best_seconds = (*found)->value;
        }
      }
    }
    const Configuration& use = stored ? *stored : default_;
    k->best.store(make_choice(*k, use), std::memory_order_release);
    k->source = stored ? OnlineSource::repository : OnlineSource::default_configuration;
    if (mode_ == OnlineMode::tune && (!stored || repeat_tune_)) {
      k->search.emplace(prototype_);
      k->initial.push_back(default_);
      if (stored && *stored != default_) k->initial.push_back(*stored);
      add_transfer(*k);
      k->best_seconds = std::numeric_limits<double>::quiet_NaN();
      k->tuning.store(true, std::memory_order_release);
    }
    return k;
  }

  /// Other devices' best configurations of the key's problem (plan_transfer): the policy's
  /// first points when it takes a warm start, else measured after the key's initial ones.
  void add_transfer(KeyState& k) {
    const TransferOptions& o = options_.transfer;
    if (!o.enabled) return;
    std::vector<TransferSource> found;
    if constexpr (transfer_repository<Repo>) {
      std::lock_guard repo_lock(repo_mutex_);
      if (auto got = repo_.transfer_sources(k.key)) {
        found = std::move(*got);
      } else {
        k.repository_error = got.error().what();
      }
    }
    auto plan = plan_transfer_for(space_, &k.key, o, found);
    k.transfer_seeds = plan.seeds.size();
    bool taken = false;
    if constexpr (takes_warm_start<Search>) {
      taken = static_cast<bool>(k.search->warm_start(std::span<const Configuration>(plan.seeds)));
    }
    if (taken) return;
    for (auto& c : plan.seeds) {
      if (std::find(k.initial.begin(), k.initial.end(), c) == k.initial.end()) {
        k.initial.push_back(std::move(c));
      }
    }
  }

  const Choice* make_choice(KeyState& k, const Configuration& c) {
    auto choice = std::make_unique<Choice>();
    choice->configuration = c;
    if constexpr (typed) choice->params = to_struct<Params>(space_, c);
    k.choices.push_back(std::move(choice));
    return k.choices.back().get();
  }

  Call begin_tuning(KeyState& k) {
    std::unique_lock lock(k.mutex);
    if (!k.tuning.load(std::memory_order_relaxed) || k.out) {
      return Call(this, &k, k.best.load(std::memory_order_relaxed));
    }
    if (k.current == nullptr && !next_candidate(k)) {
      return Call(this, &k, k.best.load(std::memory_order_relaxed));
    }
    k.out = true;
    Call call(this, &k, k.current);
    call.measuring_ = true;
    call.exceptions_ = std::uncaught_exceptions();
    lock.unlock();
    call.started_ = Clock::now();
    return call;
  }

  /// Makes the key's next candidate `current`; false when tuning is over.
  bool next_candidate(KeyState& k) {
    if (!k.started) {
      k.search->start(SpaceView(space_), derive_seed(options_.seed, k.hash));
      k.started = true;
      std::lock_guard lock(observer_mutex_);
      for (const auto& o : observers_) {
        if (o.start) o.start(SpaceView(space_), k.state);
      }
    }
    while (true) {
      if (k.stopped || k.state.evaluations >= options_.budget ||
          (options_.patience > 0 && k.state.has_best() &&
           k.state.since_improvement >= options_.patience)) {
        finish(k, StopReason::condition);
        return false;
      }
      Configuration c;
      bool proposed = false;
      if (!k.initial.empty()) {
        c = std::move(k.initial.front());
        k.initial.erase(k.initial.begin());
      } else {
        if (k.pending.empty()) k.pending = k.search->propose(1);
        if (k.pending.empty()) {
          finish(k, StopReason::exhausted);
          return false;
        }
        c = std::move(k.pending.front());
        k.pending.erase(k.pending.begin());
        proposed = true;
      }
      if (const auto it = k.seen.find(c); it != k.seen.end()) {
        if (proposed) {
          const Trial t = k.history[it->second];  // seen before: its trial, not a new run
          k.search->observe(std::span<const Trial>(&t, 1));
          if (++k.stalled >= 64) {
            finish(k, StopReason::stalled);  // nothing new proposed (as Tuner's max_stalled)
            return false;
          }
        }
        continue;
      }
      k.stalled = 0;
      if (!space_.is_valid(c)) {
        const Constraint* broken = space_.in_bounds(c) ? space_.violated(c) : nullptr;
        conclude(k, c,
                 Measurement::failure(Status::constraints,
                                      broken != nullptr
                                          ? "violates constraint '" + broken->description() + "'"
                                          : std::string("index out of range")),
                 proposed);
        continue;
      }
      k.current = make_choice(k, c);
      k.current_proposed = proposed;
      k.samples.clear();
      return true;
    }
  }

  void conclude_sample(KeyState& k, double seconds) {
    AOE_ASSERT(seconds >= 0 && seconds < std::numeric_limits<double>::infinity(),
               "aoe::Online: Call::end(seconds) needs a finite, non-negative time");
    std::lock_guard lock(k.mutex);
    k.out = false;
    if (k.current == nullptr) return;
    ++k.exploration_calls;
    k.exploration_seconds += seconds;
    k.samples.push_back(seconds);
    const double best = k.state.best_value;
    const bool has_best = k.state.has_best();
    const double value = median(std::span<const double>(k.samples));
    bool done = false;
    if (has_best && seconds > options_.abandon_factor * best) {
      ++k.abandoned;
      done = true;
    } else if (has_best && value > (1 + options_.promising_within) * best) {
      done = true;  // not promising: judged on what it has
    } else if (k.samples.size() >= std::max<std::size_t>(1, options_.confirmations)) {
      ++k.confirmed;
      done = true;
    }
    if (!done) return;  // promising: the next call repeats it
    conclude(k, k.current->configuration,
             Measurement::success(
                 value, k.samples,
                 mean(std::span<const double>(k.samples)) * static_cast<double>(k.samples.size())),
             true);
  }

  void fail_candidate(KeyState& k, const std::string& message) {
    std::lock_guard lock(k.mutex);
    k.out = false;
    if (k.current == nullptr) return;
    ++k.failed;
    conclude(k, k.current->configuration, Measurement::failure(Status::runtime, message), true);
  }

  void release_candidate(KeyState& k) {
    std::lock_guard lock(k.mutex);
    k.out = false;
  }

  /// Records a candidate's trial, tells the policy (if it proposed it), publishes and stores a
  /// new best. Under the key's lock.
  void conclude(KeyState& k, const Configuration& c, Measurement m, bool from_current) {
    const bool proposed = from_current ? k.current_proposed : true;
    if (from_current) {
      k.current = nullptr;
      k.samples.clear();
    }
    Trial t;
    t.configuration = c;
    t.measurement = std::move(m);
    ++k.state.evaluations;
    t.evaluation = k.state.evaluations;
    bool improved = false;
    if (t.measurement.ok()) {
      ++k.state.valid_evaluations;
      if (t.measurement.value < k.state.best_value) {
        k.state.best_value = t.measurement.value;
        k.state.best_index = k.history.size();
        improved = true;
      }
      if (c == default_) k.default_seconds = t.measurement.value;
    }
    k.state.since_improvement = improved ? 0 : k.state.since_improvement + 1;
    k.seen.emplace(c, k.history.size());
    k.history.push_back(t);
    if (proposed) k.search->observe(std::span<const Trial>(&k.history.back(), 1));
    if (improved) {
      const Choice* choice = nullptr;
      for (const auto& ch : k.choices) {
        if (ch->configuration == c) choice = ch.get();
      }
      k.best.store(choice, std::memory_order_release);
      k.best_seconds = k.state.best_value;
      k.source = OnlineSource::tuned;
      k.unstored = true;
      store_best(k);
    }
    bool stop = false;
    {
      std::lock_guard lock(observer_mutex_);
      for (const auto& o : observers_) stop = o.measured(k.history.back(), k.state) || stop;
    }
    if (stop) {
      k.stopped = true;
      k.initial.clear();
    }
  }

  void finish(KeyState& k, StopReason reason) {
    if (k.unstored) store_best(k);
    k.search.reset();
    k.pending.clear();
    k.tuning.store(false, std::memory_order_release);
    std::lock_guard lock(observer_mutex_);
    if (observers_.empty()) return;
    TuningResult r;
    r.policy = detail::policy_name(prototype_);
    r.history = k.history;
    for (const auto& t : k.history)
      ++r.status_counts[static_cast<std::size_t>(t.measurement.status)];
    if (k.state.has_best()) {
      r.best_index = k.state.best_index;
      r.best_value = k.state.best_value;
      r.best_configuration = k.history[k.state.best_index].configuration;
    }
    r.measure_seconds = k.exploration_seconds;
    r.total_seconds = k.exploration_seconds;
    r.reason = k.stopped ? StopReason::observer : reason;
    if (!k.repository_error.empty()) {
      r.repository_error = ErrorInfo(Errc::io_error, k.repository_error);
    }
    for (const auto& o : observers_) {
      if (o.finish) o.finish(r);
    }
  }

  /// Stores the key's best (found here) in the repository; an error is kept for the summary
  /// and the store retried at the next improvement or at exit.
  void store_best(KeyState& k) {
    if (!k.state.has_best()) return;
    const Trial& best = k.history[k.state.best_index];
    Record rec{
        k.key, space_.named_values(best.configuration), best.measurement.value,
        Provenance{detail::policy_name(prototype_), k.state.evaluations, detail::utc_timestamp()}};
    std::lock_guard repo_lock(repo_mutex_);
    auto stored = repo_.store(rec);
    if (stored) {
      k.unstored = false;
    } else {
      k.repository_error = stored.error().what();
    }
  }

  template <class F>
  decltype(auto) invoke_kernel(F& kernel, const Call& call) {
    if constexpr (typed && std::is_invocable_v<F&, const Params&>) {
      return kernel(call.parameters());
    } else {
      return kernel(call.configuration());
    }
  }

  Space space_;
  OnlineOptions options_;
  Search prototype_;
  Repo repo_{};
  OnlineMode mode_ = OnlineMode::off;
  bool repeat_tune_ = false;
  Configuration default_;

  std::atomic<const Table*> table_{nullptr};
  mutable std::mutex insert_mutex_;
  std::vector<std::unique_ptr<Table>> tables_;  // under insert_mutex_
  std::deque<std::unique_ptr<KeyState>> keys_;  // under insert_mutex_
  std::mutex repo_mutex_;
  struct Watcher {  // `start` and `finish` empty when the observer has no such hook
    std::function<void(SpaceView, const TuningState&)> start;
    std::function<bool(const Trial&, const TuningState&)> measured;
    std::function<void(const TuningResult&)> finish;
  };
  std::mutex observer_mutex_;
  std::vector<Watcher> observers_;
};

}  // namespace aoe

#endif  // AOE_ONLINE_ONLINE_TUNER_HPP
