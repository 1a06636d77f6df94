// Runner<device::Simulator>: the reference Ascend AI Core model. Times a configuration of an
// operator's tuning space (schedule, format, impl) on a SoC description, in simulated seconds.
#ifndef AOE_MEASURE_SIMULATOR_SIMULATOR_RUNNER_HPP
#define AOE_MEASURE_SIMULATOR_SIMULATOR_RUNNER_HPP

#include "aoe/core/error.hpp"
#include "aoe/core/random.hpp"
#include "aoe/measure/runner.hpp"
#include "aoe/measure/simulator/detail/model.hpp"
#include "aoe/measure/simulator/detail/parse.hpp"
#include "aoe/measure/simulator/detail/spaces.hpp"
#include "aoe/measure/simulator/detail/timing.hpp"
#include "aoe/measure/simulator/knowledge.hpp"
#include "aoe/measure/simulator/noise_model.hpp"
#include "aoe/measure/simulator/simulator_options.hpp"
#include "aoe/measure/simulator/soc.hpp"
#include "aoe/op/operator_desc.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/concepts.hpp"
#include "aoe/version.hpp"
#include "aoe/vocab/measurement.hpp"
#include "aoe/vocab/timing.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace aoe {

/// Measures configurations of one operator on a simulated Ascend SoC. Create with `create`
/// (errors for unsupported or malformed operators). `evaluate` is const, thread-safe,
/// allocation-free when the configuration fits and noise is off, and deterministic without
/// noise. A tile that does not fit a buffer is status `compile` with a message naming the buffer
/// and the sizes. Values are seconds; without noise `samples` stays empty (the value is exact)
/// and `cost` is `compile_seconds` plus the simulated time. Every configuration that fits also
/// carries its simulated energy and average power. Model: docs/simulator.md.
namespace sim {

/// The provenance of every time the simulator gives: its timing model's name and version and the
/// SoC it models, by name ("openaoe Ascend AI Core model 0.1.0, Ascend910A"; docs/simulator.md).
[[nodiscard]] inline Timing model_timing(std::string_view soc_name) {
  return Timing{TimingKind::simulated,
                "openaoe Ascend AI Core model " AOE_VERSION_STRING ", " + std::string(soc_name)};
}

}  // namespace sim

template <>
class Runner<device::Simulator> {
 public:
  static constexpr bool reports_device_time = true;

  [[nodiscard]] static Result<Runner> create(const sim::Soc& soc, const OperatorDesc& op,
                                             SimulatorOptions options = {}) {
    if (auto bad = check(options)) return *bad;
    auto model = sim::detail::parse(soc, op);
    if (!model) return model.error();
    auto c = std::make_shared<Compiled>();
    c->soc = soc;
    c->model = std::move(*model);
    c->defaults = sim::detail::heuristic(c->soc, c->model);
    auto layout = sim::detail::layout(c->soc, c->model);
    const auto wanted = [&](sim::detail::Role role) {
      const auto k = sim::detail::knowledge_of(role);
      return std::find(options.knowledge.begin(), options.knowledge.end(), k) !=
             options.knowledge.end();
    };
    std::vector<Parameter> parameters;
    std::vector<std::string> names;
    c->dim_of.fill(-1);
    for (std::size_t i = 0; i < layout.parameters.size(); ++i) {
      if (!wanted(layout.roles[i])) continue;
      c->dim_of[layout.roles[i]] = static_cast<std::int8_t>(parameters.size());
      names.push_back(layout.parameters[i].name());
      parameters.push_back(std::move(layout.parameters[i]));
    }
    std::vector<Constraint> constraints;
    for (auto& k : layout.constraints) {
      const bool all = std::all_of(k.names().begin(), k.names().end(), [&](const auto& n) {
        return std::find(names.begin(), names.end(), n) != names.end();
      });
      if (all) constraints.push_back(std::move(k));
    }
    c->space = std::make_shared<const Space>(std::move(parameters), std::move(constraints));
    const Space& space = *c->space;
    c->levels.resize(space.dimensions());
    c->roles.resize(space.dimensions());
    for (std::size_t d = 0; d < space.dimensions(); ++d) {
      for (const auto& level : space.parameter(d).levels()) {
        c->levels[d].push_back(level.is_number() ? level.as_integer() : -1);
      }
      // enumerations (order, format, impl_mode) are coded by position
      if (space.parameter(d).kind() == ParameterKind::enumeration) {
        for (std::size_t i = 0; i < c->levels[d].size(); ++i) {
          c->levels[d][i] = static_cast<std::int64_t>(i);
        }
      }
    }
    for (std::size_t role = 0; role < sim::detail::role_count; ++role) {
      if (c->dim_of[role] >= 0) c->roles[static_cast<std::size_t>(c->dim_of[role])] = role;
    }
    c->default_configuration = to_configuration(*c, c->defaults);
    return Runner(std::move(c), op, std::move(options));
  }

  /// A runner for `op` that shares this runner's compiled model and space (what `create` derives
  /// from the SoC, the operator and `options.knowledge`) instead of deriving them again: what
  /// aoe::sim::RunnerMemo hands out for an operator it has seen. `op` must equal op() in
  /// everything but its name and `options.knowledge` must equal options().knowledge (the memo's
  /// key); otherwise the result is unspecified. The result is the runner `create(soc(), op,
  /// options)` returns, with its own noise counter.
  [[nodiscard]] Result<Runner> with_operator(const OperatorDesc& op,
                                             SimulatorOptions options) const {
    if (auto bad = check(options)) return *bad;
    return Runner(c_, op, std::move(options));
  }

  [[nodiscard]] const Space& space() const noexcept { return *c_->space; }
  [[nodiscard]] const OperatorDesc& op() const noexcept { return op_; }
  [[nodiscard]] const sim::Soc& soc() const noexcept { return c_->soc; }
  /// Every time this runner gives is the timing model's (sim::model_timing).
  [[nodiscard]] Timing timing() const { return sim::model_timing(c_->soc.name); }
  [[nodiscard]] const SimulatorOptions& options() const noexcept { return options_; }

  /// The built-in heuristic's configuration (AOE's performance_before_tune); always valid.
  [[nodiscard]] Configuration default_configuration() const { return c_->default_configuration; }

  /// Simulated seconds of a configuration, or the failure. No noise, no allocation.
  [[nodiscard]] sim::detail::Outcome time(const Configuration& c) const noexcept {
    return sim::detail::time(c_->soc, c_->model, values(c));
  }

  /// Simulated seconds of a configuration and, in `energy`, its simulated joules
  /// (docs/simulator.md#the-energy-model). No noise, no allocation.
  [[nodiscard]] sim::detail::Outcome time_and_energy(const Configuration& c,
                                                     sim::detail::Joules& energy) const noexcept {
    return sim::detail::time_and_energy(c_->soc, c_->model, values(c), energy);
  }

  /// Where a configuration's simulated time goes (pipes, blocks, waves, bound): for profiles and
  /// reports. The profile's `seconds` is `time(c).seconds`; a configuration that does not fit
  /// gives the Outcome's buffer and an empty profile.
  [[nodiscard]] sim::detail::Outcome profile(const Configuration& c,
                                             sim::detail::Profile& out) const noexcept {
    out = {};
    return sim::detail::profile(c_->soc, c_->model, values(c), out);
  }

  /// One configuration's measurement; sleeps `options().measure_latency` seconds first.
  [[nodiscard]] Measurement evaluate(const Configuration& c) const {
    if (options_.measure_latency > 0) {
      std::this_thread::sleep_for(std::chrono::duration<double>(options_.measure_latency));
    }
    if (!c_->space->in_bounds(c)) {
      return Measurement::failure(Status::constraints,
                                  "configuration out of the space's bounds (" +
                                      std::to_string(c.size()) + " indices for " +
                                      std::to_string(c_->space->dimensions()) + " parameters)",
                                  options_.compile_seconds);
    }
    sim::detail::Joules joules;
    const auto o = time_and_energy(c, joules);
    if (o.buffer != sim::detail::Buffer::none) {
      return Measurement::failure(Status::compile, failure_message(o), options_.compile_seconds);
    }
    if (!options_.noise.enabled()) {
      auto m = Measurement::success(o.seconds, {}, options_.compile_seconds + o.seconds);
      m.energy = Energy{joules.value, joules.value / o.seconds, TimingKind::simulated};
      return m;
    }
    const auto& nm = options_.noise;
    const std::uint64_t n = counter_->fetch_add(1, std::memory_order_relaxed);
    Rng rng(derive_seed(nm.seed, ConfigurationHash{}(c) ^ (n * 0x9E3779B97F4A7C15ULL)));
    std::vector<double> samples;
    const std::size_t reps = std::max<std::size_t>(1, nm.repetitions);
    samples.reserve(reps);
    double charged = options_.compile_seconds;
    for (std::size_t i = 0; i < reps; ++i) {
      double t = o.seconds * std::max(0.01, 1 + nm.jitter * rng.normal());
      if (nm.outlier_probability > 0 && rng.bernoulli(nm.outlier_probability)) {
        t *= nm.outlier_factor;
      }
      samples.push_back(t);
      charged += t;
    }
    std::vector<double> sorted = samples;
    std::sort(sorted.begin(), sorted.end());
    const double value = sorted.size() % 2 == 1
                             ? sorted[sorted.size() / 2]
                             : (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]) / 2;
    auto m = Measurement::success(value, std::move(samples), charged);
    // Noise stretches the run: the dynamic energy stays, the static power runs for longer.
    const double e = joules.value + c_->soc.static_watts * (value - o.seconds);
    m.energy = Energy{e, e / value, TimingKind::simulated};
    return m;
  }

  [[nodiscard]] std::vector<Measurement> measure(SpaceView view,
                                                 std::span<const Configuration> batch) const {
    static_cast<void>(view);
    std::vector<Measurement> out;
    out.reserve(batch.size());
    for (const auto& c : batch) out.push_back(evaluate(c));
    return out;
  }

  /// The values of the model's roles for a configuration, by parameter name (for reports).
  [[nodiscard]] std::string describe(const Configuration& c) const {
    return c_->space->to_string(c);
  }

 private:
  /// What `create` derives from the SoC, the operator (all of it but its name) and the
  /// knowledge kinds: shared by the runners of operators that differ only in their names.
  struct Compiled {
    sim::Soc soc;
    sim::detail::Model model;
    std::shared_ptr<const Space> space;
    std::vector<std::vector<std::int64_t>> levels;  ///< per dimension, the role value of a level
    std::vector<std::size_t> roles;                 ///< per dimension, its role
    std::array<std::int8_t, sim::detail::role_count> dim_of{};
    sim::detail::Values defaults{};
    Configuration default_configuration;
  };

  Runner(std::shared_ptr<const Compiled> c, const OperatorDesc& op, SimulatorOptions options)
      : c_(std::move(c)),
        op_(op),
        options_(std::move(options)),
        counter_(std::make_shared<std::atomic<std::uint64_t>>(0)) {}

  /// The model's role values of a configuration: its levels over the heuristic's defaults.
  [[nodiscard]] sim::detail::Values values(const Configuration& c) const noexcept {
    const Compiled& k = *c_;
    sim::detail::Values v = k.defaults;
    const std::size_t dims = c.size() < k.levels.size() ? c.size() : k.levels.size();
    for (std::size_t d = 0; d < dims; ++d) v[k.roles[d]] = k.levels[d][c[d]];
    return v;
  }

  [[nodiscard]] static std::optional<ErrorInfo> check(const SimulatorOptions& options) {
    if (!(options.measure_latency >= 0 && options.measure_latency <= 3600)) {
      return make_error(Errc::invalid_argument, "SimulatorOptions::measure_latency = " +
                                                    std::to_string(options.measure_latency) +
                                                    ": expected seconds in [0, 3600]");
    }
    return std::nullopt;
  }

  [[nodiscard]] static Configuration to_configuration(const Compiled& k,
                                                      const sim::detail::Values& v) {
    Configuration c(k.space->dimensions(), 0);
    for (std::size_t d = 0; d < c.size(); ++d) {
      const auto want = v[k.roles[d]];
      std::uint32_t best = 0;
      for (std::uint32_t i = 0; i < k.levels[d].size(); ++i) {
        if (k.levels[d][i] <= want) best = i;  // levels are ascending
        if (k.levels[d][i] == want) break;
      }
      c[d] = best;
    }
    return c;
  }

  [[nodiscard]] std::string failure_message(const sim::detail::Outcome& o) const {
    const std::string who = "operator '" + op_.name + "' (" + op_.type + ") on " + c_->soc.name;
    if (o.buffer == sim::detail::Buffer::format) {
      return who + ": the kernel format ND needs MTE2's ND->NZ conversion, which this SoC lacks";
    }
    return who + ": the tile does not fit " +
           sim::detail::buffer_names[static_cast<std::size_t>(o.buffer)] + ": needs " +
           std::to_string(o.need) + " bytes, " +
           sim::detail::buffer_names[static_cast<std::size_t>(o.buffer)] + " holds " +
           std::to_string(o.capacity) + " (double-buffered buffers count twice)";
  }

  std::shared_ptr<const Compiled> c_;
  OperatorDesc op_;
  SimulatorOptions options_;
  std::shared_ptr<std::atomic<std::uint64_t>> counter_;
};

using SimulatorRunner = Runner<device::Simulator>;

static_assert(measure_policy<Runner<device::Simulator>>);

}  // namespace aoe

#endif  // AOE_MEASURE_SIMULATOR_SIMULATOR_RUNNER_HPP
