// Runner<device::Host>: times a user's C++ callable on this CPU.
#ifndef AOE_MEASURE_HOST_RUNNER_HPP
#define AOE_MEASURE_HOST_RUNNER_HPP

#include "aoe/measure/rapl.hpp"
#include "aoe/measure/runner.hpp"
#include "aoe/measure/statistics.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/space/typed_space.hpp"
#include "aoe/tuner/concepts.hpp"
#include "aoe/vocab/measurement.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace aoe {

/// How the host runner measures. Aggregate: `aoe::HostOptions{.repetitions = 9}`.
struct HostOptions {
  std::size_t warmup = 1;                   ///< untimed runs before the timed ones
  std::size_t repetitions = 5;              ///< timed runs (at least one is made)
  Statistic statistic = Statistic::median;  ///< how the samples become the value
  /// A run longer than this many times the best value so far ends the configuration with
  /// status `timeout` (0 turns the adaptive timeout off). A run is never interrupted: the
  /// remaining repetitions are skipped.
  double timeout_factor = 10;
  double min_timeout = 0.05;  ///< seconds below which nothing times out
  /// Energy from the CPU packages' RAPL counters (aoe::Rapl) around the timed runs, where they
  /// are readable; false: never read. docs/energy.md#host.
  bool energy = true;
  /// Seconds: after the timed runs, untimed runs go on until the counters have run this long,
  /// so that a counter updated about every millisecond resolves a short kernel.
  double energy_window = 0.01;
  std::string powercap = "/sys/class/powercap";  ///< where the RAPL counters are
};

namespace detail {

template <class F>
struct call_argument;
template <class C, class R, class A>
struct call_argument<R (C::*)(A) const> {
  using type = std::remove_cvref_t<A>;
};
template <class C, class R, class A>
struct call_argument<R (C::*)(A)> {
  using type = std::remove_cvref_t<A>;
};
template <class R, class A>
struct call_argument<R (*)(A)> {
  using type = std::remove_cvref_t<A>;
};

template <class F>
struct callable_argument : call_argument<decltype(&F::operator())> {};
template <class R, class A>
struct callable_argument<R (*)(A)> : call_argument<R (*)(A)> {};

/// The argument type of a unary callable that is not a template (a lambda, a function).
template <class F>
using callable_argument_t = typename callable_argument<std::decay_t<F>>::type;

}  // namespace detail

/// Measures a callable on this CPU. The callable takes the user's parameter struct (declared
/// with BOOST_HANA_DEFINE_STRUCT; the space must be `make_space<Struct>`) or an
/// `aoe::Configuration`. Warm-up runs, then timed repetitions reduced by the statistic; raw
/// samples are kept. An exception becomes status `runtime` with its message; an optional check
/// that returns false becomes `correctness`; a run over the adaptive timeout becomes `timeout`.
/// Where RAPL is readable, a valid measurement carries the packages' energy per run and their
/// average power (measured: the whole package, whatever else ran on it).
template <>
class Runner<device::Host> {
 public:
  /// `kernel(params)` is timed; its return value is ignored.
  template <class F>
  explicit Runner(F kernel, HostOptions options = {})
      : prepare_(make_prepare(std::move(kernel))), options_(std::move(options)) {
    open_rapl();
  }

  /// `check(params)` runs after the timed runs and returns whether the output is right.
  template <class F, class C>
  Runner(F kernel, C check, HostOptions options = {})
      : prepare_(make_prepare(std::move(kernel))),
        check_(make_check(std::move(check))),
        options_(std::move(options)) {
    open_rapl();
  }

  [[nodiscard]] std::vector<Measurement> measure(SpaceView view,
                                                 std::span<const Configuration> batch) {
    std::vector<Measurement> out;
    out.reserve(batch.size());
    for (const auto& c : batch) out.push_back(measure_one(view.space(), c));
    return out;
  }

  [[nodiscard]] const HostOptions& options() const noexcept { return options_; }
  /// The best value measured so far (the adaptive timeout's reference).
  [[nodiscard]] double best() const noexcept { return best_; }
  /// Whether measurements carry energy, and if not why ("energy off", RAPL's reason).
  [[nodiscard]] bool measures_energy() const noexcept { return rapl_ != nullptr; }
  [[nodiscard]] const std::string& energy_unavailable() const noexcept { return no_energy_; }

 private:
  using Clock = std::chrono::steady_clock;
  using Prepared = std::function<void()>;

  template <class F>
  static std::function<Prepared(const Space&, const Configuration&)> make_prepare(F kernel) {
    using Arg = detail::callable_argument_t<F>;
    return [kernel = std::move(kernel)](const Space& space, const Configuration& c) -> Prepared {
      if constexpr (std::is_same_v<Arg, Configuration>) {
        return [&kernel, c]() { kernel(c); };
      } else {
        static_assert(parameter_struct<Arg>,
                      "aoe::Runner<device::Host>: the kernel must take an aoe::Configuration or "
                      "a struct declared with BOOST_HANA_DEFINE_STRUCT");
        return [&kernel, p = to_struct<Arg>(space, c)]() { kernel(p); };
      }
    };
  }

  template <class C>
  static std::function<bool(const Space&, const Configuration&)> make_check(C check) {
    using Arg = detail::callable_argument_t<C>;
    return [check = std::move(check)](const Space& space, const Configuration& c) -> bool {
      if constexpr (std::is_same_v<Arg, Configuration>) {
        return static_cast<bool>(check(c));
      } else {
        return static_cast<bool>(check(to_struct<Arg>(space, c)));
      }
    };
  }

  void open_rapl() {
    if (!options_.energy) {
      no_energy_ = "HostOptions::energy is off";
      return;
    }
    auto rapl = std::make_shared<const Rapl>(options_.powercap);
    if (rapl->available()) {
      rapl_ = std::move(rapl);
    } else {
      no_energy_ = rapl->why();
    }
  }

  /// The energy of one run: the counters from the first timed run (`before`, at `since`) to
  /// now, after untimed runs that stretch the window to `energy_window`, over the runs made.
  [[nodiscard]] std::optional<Energy> energy_since(const Rapl::Reading& before,
                                                   Clock::time_point since, std::size_t runs,
                                                   const Prepared& run) const {
    const auto window = [&] { return std::chrono::duration<double>(Clock::now() - since).count(); };
    while (window() < options_.energy_window) {
      run();
      ++runs;
    }
    const auto after = rapl_->read();
    const double seconds = window();
    if (!after || seconds <= 0) return std::nullopt;
    const double joules = rapl_->joules_between(before, *after);
    return Energy{joules / static_cast<double>(runs), joules / seconds, TimingKind::measured};
  }

  [[nodiscard]] double timeout() const noexcept {
    if (options_.timeout_factor <= 0 || !(best_ < std::numeric_limits<double>::infinity())) {
      return std::numeric_limits<double>::infinity();
    }
    return std::max(options_.min_timeout, options_.timeout_factor * best_);
  }

  Measurement measure_one(const Space& space, const Configuration& c) {
    const auto begin = Clock::now();
    const auto cost = [&] { return std::chrono::duration<double>(Clock::now() - begin).count(); };
    std::vector<double> samples;
    std::optional<Energy> energy;
    try {
      const Prepared run = prepare_(space, c);
      const double limit = timeout();
      const std::size_t repetitions = std::max<std::size_t>(1, options_.repetitions);
      std::optional<Rapl::Reading> before;
      Clock::time_point since;
      for (std::size_t i = 0; i < options_.warmup + repetitions; ++i) {
        if (i == options_.warmup && rapl_) {
          before = rapl_->read();
          since = Clock::now();
        }
        const auto t0 = Clock::now();
        run();
        const double t = std::chrono::duration<double>(Clock::now() - t0).count();
        if (t > limit) {
          Measurement m = Measurement::failure(
              Status::timeout,
              "a run took " + std::to_string(t) + " s, over the timeout of " +
                  std::to_string(limit) + " s (" + std::to_string(options_.timeout_factor) +
                  " x the best so far)",
              cost());
          m.samples = std::move(samples);
          return m;
        }
        if (i >= options_.warmup) samples.push_back(t);
      }
      if (before) energy = energy_since(*before, since, repetitions, run);
      if (check_ && !check_(space, c)) {
        Measurement m =
            Measurement::failure(Status::correctness, "the check rejected the output", cost());
        m.samples = std::move(samples);
        return m;
      }
    } catch (const std::exception& e) {
      Measurement m = Measurement::failure(Status::runtime, e.what(), cost());
      m.samples = std::move(samples);
      return m;
    } catch (...) {
      Measurement m = Measurement::failure(Status::runtime, "unknown exception", cost());
      m.samples = std::move(samples);
      return m;
    }
    const double value = reduce(options_.statistic, samples);
    best_ = std::min(best_, value);
    Measurement m = Measurement::success(value, std::move(samples), cost());
    m.energy = energy;
    return m;
  }

  std::function<Prepared(const Space&, const Configuration&)> prepare_;
  std::function<bool(const Space&, const Configuration&)> check_;
  HostOptions options_;
  std::shared_ptr<const Rapl> rapl_;  ///< null: no energy
  std::string no_energy_;
  double best_ = std::numeric_limits<double>::infinity();
};

using HostRunner = Runner<device::Host>;

static_assert(measure_policy<Runner<device::Host>>);

}  // namespace aoe

#endif  // AOE_MEASURE_HOST_RUNNER_HPP
