// Runner<device::Replay>: measures configurations by looking them up in a recorded space, and
// charges the recorded device time so that budgets in seconds hold as on the real device.
#ifndef AOE_MEASURE_REPLAY_REPLAY_RUNNER_HPP
#define AOE_MEASURE_REPLAY_REPLAY_RUNNER_HPP

#include "aoe/core/assert.hpp"
#include "aoe/core/error.hpp"
#include "aoe/measure/replay/recording.hpp"
#include "aoe/measure/runner.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/concepts.hpp"
#include "aoe/vocab/measurement.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <numeric>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace aoe {

/// How the replay runner charges time. Aggregate: `aoe::ReplayOptions{.charge_compile = false}`.
struct ReplayOptions {
  /// Charge the recorded compile (and verification) time of each evaluation.
  bool charge_compile = true;
  /// Runs charged per evaluation when a record has neither `benchmark_time` nor `times`:
  /// the value times this (Kernel Tuner's default `iterations`, 7).
  std::size_t iterations = 7;
  /// Wall-clock time: each evaluation sleeps what it cost on the device (`cost`: the recorded
  /// compile + verification + benchmark time) times this factor, so that a replayed search
  /// takes real time, as on the device (1) or faster (0.01), and parallel or distributed
  /// measurement (docs/distributed.md) shows its speed-up. The sleep is not charged into
  /// Measurement::cost. 0 (default): no sleep. A number in [0, 1000]: `create` refuses others.
  double sleep_scale = 0;
  /// How to sleep `seconds` (for tests: count the sleeps); empty: std::this_thread::sleep_for.
  std::function<void(double seconds)> sleep{};
};

/// Replays a recorded space (aoe::replay::Recording, from a Kernel Tuner cache or T4 results):
/// `measure` returns each configuration's recorded status, value and samples, and charges as
/// `Measurement::cost` (seconds) what the evaluation cost on the device:
///   compile_time + verification_time + benchmark time,
/// where the benchmark time is the recorded `benchmark_time` if present, else the sum of the
/// recorded runs (`times` / T4 `runtimes`), else value x `iterations`. This is what Kernel
/// Tuner's simulation mode charges to its time limit (runners/simulation.py) and what the
/// methodology of Willemsen et al. (FGCS 2024) counts as the time of an evaluation, minus the
/// tuner's own framework and strategy time, which a run here spends for real.
/// A configuration absent from the recording is not part of the space (status
/// `constraints`, cost 0); search policies never propose one, since the space's constraint is
/// the recording itself. Deterministic and stateless: copies share the recording.
template <>
class Runner<device::Replay> {
 public:
  /// Reports the recorded device time as the cost to charge (see aoe::Tuner).
  static constexpr bool reports_device_time = true;

  /// A runner over `recording`. Contract: a recording, and `options` that `create` accepts.
  explicit Runner(std::shared_ptr<const replay::Recording> recording, ReplayOptions options = {})
      : recording_(std::move(recording)), options_(std::move(options)) {
    AOE_ASSERT(recording_ != nullptr, "Runner<device::Replay>: no recording");
    AOE_ASSERT(options_.sleep_scale >= 0 && options_.sleep_scale <= 1000,
               "Runner<device::Replay>: ReplayOptions::sleep_scale out of [0, 1000] (use create)");
  }

  /// A runner, or an error (invalid_argument) naming what is wrong: no recording, or
  /// `sleep_scale` not a number in [0, 1000].
  [[nodiscard]] static Result<Runner> create(std::shared_ptr<const replay::Recording> recording,
                                             ReplayOptions options = {}) {
    if (recording == nullptr) {
      return make_error(Errc::invalid_argument, "Runner<device::Replay>: no recording");
    }
    if (!(options.sleep_scale >= 0 && options.sleep_scale <= 1000)) {
      return make_error(Errc::invalid_argument,
                        "ReplayOptions::sleep_scale = " + std::to_string(options.sleep_scale) +
                            ": expected a factor in [0, 1000]");
    }
    return Runner(std::move(recording), std::move(options));
  }

  /// The space to tune: the recording's.
  [[nodiscard]] const Space& space() const noexcept { return recording_->space(); }
  [[nodiscard]] const replay::Recording& recording() const noexcept { return *recording_; }
  [[nodiscard]] const ReplayOptions& options() const noexcept { return options_; }

  [[nodiscard]] std::vector<Measurement> measure(SpaceView view,
                                                 std::span<const Configuration> batch) const {
    static_cast<void>(view);
    AOE_ASSERT(view->dimensions() == recording_->space().dimensions(),
               "Runner<device::Replay>: the space is not the recording's (use runner.space())");
    std::vector<Measurement> out;
    out.reserve(batch.size());
    for (const auto& c : batch) out.push_back(measure_one(c));
    return out;
  }

  /// The measurement of one configuration (what `measure` returns for it).
  [[nodiscard]] Measurement measure_one(const Configuration& c) const {
    const replay::RecordedEntry* e = recording_->find(c);
    if (e == nullptr) {
      return Measurement::failure(Status::constraints, "not recorded in " + recording_->path() +
                                                           " (not part of the recorded space)");
    }
    Measurement m;
    m.status = e->status;
    m.value = e->value;
    m.samples = e->samples;
    m.energy = e->energy;
    m.cost = cost(*e);
    if (options_.sleep_scale > 0) {
      const double seconds = options_.sleep_scale * device_seconds(*e);
      if (seconds > 0) {
        if (options_.sleep) {
          options_.sleep(seconds);
        } else {
          std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
        }
      }
    }
    if (e->status != Status::correct) {
      m.message =
          "recorded as " + (e->marker.empty() ? std::string(to_string(e->status)) : e->marker);
    }
    return m;
  }

  /// Seconds charged for evaluating a recorded entry.
  [[nodiscard]] double cost(const replay::RecordedEntry& e) const {
    const double compile =
        options_.charge_compile ? e.compile_seconds + e.verification_seconds : 0.0;
    return compile + benchmark_seconds(e);
  }

  /// Seconds the evaluation of a recorded entry took on the device, compile and verification
  /// included whatever `charge_compile` says: what `sleep_scale` scales.
  [[nodiscard]] double device_seconds(const replay::RecordedEntry& e) const {
    return e.compile_seconds + e.verification_seconds + benchmark_seconds(e);
  }

 private:
  [[nodiscard]] double benchmark_seconds(const replay::RecordedEntry& e) const {
    double benchmark = 0;
    if (e.benchmark_seconds) {
      benchmark = *e.benchmark_seconds;
    } else if (!e.samples.empty()) {
      benchmark = std::accumulate(e.samples.begin(), e.samples.end(), 0.0);
    } else if (e.status == Status::correct) {
      benchmark = e.value * static_cast<double>(options_.iterations);
    }
    return benchmark;
  }

  std::shared_ptr<const replay::Recording> recording_;
  ReplayOptions options_;
};

using ReplayRunner = Runner<device::Replay>;

static_assert(measure_policy<Runner<device::Replay>>);

}  // namespace aoe

#endif  // AOE_MEASURE_REPLAY_REPLAY_RUNNER_HPP
