// Runner<device::Ascend>: measures on a real NPU through AscendCL. Two modes: single operators
// (aclopCompile + aclopExecuteV2) and Ascend C kernels (aclrtBinaryLoadFromFile +
// aclrtLaunchKernel with a tiling-data buffer), timed with events on one stream. Needs the
// CANN toolkit (target aoe::ascend); not included by <aoe.hpp>. Guide: docs/ascend.md.
#ifndef AOE_MEASURE_ASCEND_ASCEND_RUNNER_HPP
#define AOE_MEASURE_ASCEND_ASCEND_RUNNER_HPP

#include "aoe/core/assert.hpp"
#include "aoe/core/error.hpp"
#include "aoe/measure/ascend/acl_api.hpp"
#include "aoe/measure/ascend/ascend_options.hpp"
#include "aoe/measure/ascend/detail/session.hpp"
#include "aoe/measure/ascend/kernel.hpp"
#include "aoe/measure/ascend/kernel_call.hpp"
#include "aoe/measure/ascend/op_call.hpp"
#include "aoe/measure/measure_each.hpp"
#include "aoe/measure/runner.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/concepts.hpp"
#include "aoe/vocab/measurement.hpp"
#include "aoe/vocab/timing.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace aoe {

/// One NPU, opened once: the device lock (one tuner per device, across processes), AscendCL,
/// the device (ASCEND_DEVICE_ID unless AscendOptions::device_id says otherwise), a context, a
/// stream and two events. `run` measures one call directly; `bind` gives a runner over a
/// tuning space (a measure policy, and an OPAT backend's runner) that turns each configuration
/// into a call through a program. Copies share the device; every call into AscendCL is
/// serialised on it, so `evaluate` is thread-safe (parallel threads overlap only host work).
///
/// Measurements: warm-up runs, then `repetitions` runs each between two events (one sample per
/// run, seconds, from aclrtEventElapsedTime), reduced by the statistic. A failing candidate is
/// a measurement, never an exception: `compile` (descriptor, attribute, aclopCompile or
/// program errors), `runtime` (launch and execution errors, out of device memory - "out of
/// device memory: ..."), `timeout` (over AscendOptions::sync_timeout_ms, or over the adaptive
/// timeout). Messages carry the ACL error name and aclGetRecentErrMsg's text.
template <>
class Runner<device::Ascend> {
 public:
  /// What a configuration runs.
  using Call = std::variant<ascend::OpCall, ascend::KernelCall>;
  /// Maps a configuration of the bound space to its call; an error makes that candidate a
  /// `compile` measurement with the error's message.
  using Program = std::function<Result<Call>(const Configuration&)>;

  /// Opens the device. Errors: Errc::busy ("device busy: ...") when another runner of this
  /// process or another process has it; Errc::invalid_argument for a device id out of range;
  /// Errc::device_error when there is no device; ACL codes (acl_category()) when AscendCL
  /// fails, with the function and the ACL error name in the message.
  [[nodiscard]] static Result<Runner> open(const ascend::AclApi& api, AscendOptions options = {}) {
    auto session = ascend::detail::Session::open(api, std::move(options));
    if (!session) return session.error();
    Runner r;
    r.session_ = std::move(*session);
    return r;
  }

  [[nodiscard]] int device_id() const noexcept { return session_->device_id(); }
  /// aclrtGetSocName(), e.g. "Ascend910B1" ("unknown" if AscendCL gives none).
  [[nodiscard]] const std::string& soc_name() const noexcept { return session_->soc_name(); }
  /// The device's AI Core count (aclGetDeviceCapability).
  [[nodiscard]] int ai_core_count() const noexcept { return session_->ai_cores(); }
  /// The provenance of this runner's times: measured with AscendCL events on this device
  /// ("Ascend910B1, device 0, 24 AI Cores, AscendCL events"). AscendCL gives no driver version
  /// or clock through the calls the runner makes, so none is named.
  [[nodiscard]] Timing timing() const {
    return Timing{TimingKind::measured, soc_name() + ", device " + std::to_string(device_id()) +
                                            ", " + std::to_string(ai_core_count()) +
                                            " AI Cores, AscendCL events"};
  }
  [[nodiscard]] const AscendOptions& options() const noexcept { return session_->options(); }

  /// Loads an Ascend C kernel binary (the .o of ascendc_fatbin_library) and finds the kernel
  /// `name` in it. Errors name the file and the kernel.
  [[nodiscard]] Result<std::shared_ptr<const ascend::Kernel>> load_kernel(
      const std::filesystem::path& binary, const std::string& name) const {
    auto loaded = session_->load(binary, name);
    if (!loaded) return loaded.error();
    return std::shared_ptr<const ascend::Kernel>(
        new ascend::Kernel(session_, std::move(loaded->first), loaded->second,
                           std::filesystem::absolute(binary), name));
  }

  /// Measures one single-operator call (no adaptive timeout).
  [[nodiscard]] Measurement run(const ascend::OpCall& call) const {
    return session_->run(call, std::numeric_limits<double>::infinity());
  }
  /// Measures one kernel launch (no adaptive timeout). The kernel must come from this device.
  [[nodiscard]] Measurement run(const ascend::KernelCall& call) const {
    return run_kernel(call, std::numeric_limits<double>::infinity());
  }

  /// A runner on the same device that measures configurations of `space` through `program`.
  /// `default_configuration` (in the space's bounds) is the untuned baseline.
  [[nodiscard]] Runner bind(Space space, Program program,
                            Configuration default_configuration) const {
    AOE_ASSERT(space.in_bounds(default_configuration),
               "Runner<device::Ascend>::bind: the default configuration is out of bounds");
    Runner r;
    r.session_ = session_;
    r.binding_ = std::make_shared<Binding>(std::move(space), std::move(program),
                                           std::move(default_configuration));
    return r;
  }

  [[nodiscard]] bool bound() const noexcept { return binding_ != nullptr; }
  /// Precondition: bound().
  [[nodiscard]] const Space& space() const noexcept { return binding_->space; }
  [[nodiscard]] Configuration default_configuration() const { return binding_->default_config; }
  /// The best value measured so far through this binding (the adaptive timeout's reference).
  [[nodiscard]] double best() const noexcept {
    return binding_ ? binding_->best.load() : std::numeric_limits<double>::infinity();
  }

  /// One configuration's measurement: `constraints` outside the space or against a
  /// constraint, `compile` when the program fails, else the call's measurement. Thread-safe.
  [[nodiscard]] Measurement evaluate(const Configuration& c) const {
    AOE_ASSERT(bound(), "Runner<device::Ascend>::evaluate: bind() a space and a program first");
    const Space& sp = binding_->space;
    if (!sp.in_bounds(c)) {
      return Measurement::failure(Status::constraints,
                                  "configuration out of the space's bounds (" +
                                      std::to_string(c.size()) + " indices for " +
                                      std::to_string(sp.dimensions()) + " parameters)");
    }
    if (const Constraint* k = sp.violated(c)) {
      return Measurement::failure(Status::constraints,
                                  sp.to_string(c) + ": violates " + k->description());
    }
    auto call = binding_->program(c);
    if (!call) {
      return Measurement::failure(Status::compile, sp.to_string(c) + ": " + call.error().message);
    }
    const double limit = timeout();
    Measurement m = std::visit(
        [&](const auto& x) -> Measurement {
          if constexpr (std::is_same_v<std::decay_t<decltype(x)>, ascend::OpCall>) {
            return session_->run(x, limit);
          } else {
            return run_kernel(x, limit);
          }
        },
        *call);
    if (m.ok()) {
      double seen = binding_->best.load();
      while (m.value < seen && !binding_->best.compare_exchange_weak(seen, m.value)) {
      }
    }
    return m;
  }

  [[nodiscard]] std::vector<Measurement> measure(SpaceView /*view*/,
                                                 std::span<const Configuration> batch) const {
    return measure_each(*this, batch);
  }

 private:
  struct Binding {
    Binding(Space s, Program p, Configuration d)
        : space(std::move(s)), program(std::move(p)), default_config(std::move(d)) {}
    Space space;
    Program program;
    Configuration default_config;
    std::atomic<double> best{std::numeric_limits<double>::infinity()};
  };

  Runner() = default;

  [[nodiscard]] double timeout() const noexcept {
    const auto& o = session_->options();
    const double b = best();
    if (o.timeout_factor <= 0 || !(b < std::numeric_limits<double>::infinity())) {
      return std::numeric_limits<double>::infinity();
    }
    return std::max(o.min_timeout, o.timeout_factor * b);
  }

  [[nodiscard]] Measurement run_kernel(const ascend::KernelCall& call, double limit) const {
    AOE_ASSERT(call.kernel != nullptr, "KernelCall::kernel is null: use load_kernel()");
    AOE_ASSERT(call.kernel->session_ == session_,
               "KernelCall::kernel was loaded by a runner of another device");
    return session_->run(call, call.kernel->function_, call.kernel->name(), limit);
  }

  std::shared_ptr<const ascend::detail::Session> session_;
  std::shared_ptr<Binding> binding_;
};

using AscendRunner = Runner<device::Ascend>;

static_assert(measure_policy<Runner<device::Ascend>>);

}  // namespace aoe

#endif  // AOE_MEASURE_ASCEND_ASCEND_RUNNER_HPP
