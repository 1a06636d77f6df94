// Clocks and power limits as tuning parameters, for a user who opts in on a GPU that is theirs
// to change (CudaOptions::gpu_settings, off by default): the NVML setters, loaded only then, and
// GpuSettings, which applies a configuration's settings and puts back what it found when it is
// destroyed. A shared GPU must be left as it was found: without the opt-in nothing here is
// loaded, and a space with such a parameter is refused. docs/cuda.md, "Clocks and power limits".
#ifndef AOE_MEASURE_CUDA_GPU_SETTINGS_HPP
#define AOE_MEASURE_CUDA_GPU_SETTINGS_HPP

#include "aoe/core/error.hpp"
#include "aoe/measure/cuda/nvml.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"

#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace aoe::cuda {

/// The parameters that set the GPU rather than the kernel, named and scaled as Kernel Tuner's
/// (its NVMLObserver): the SM clock and the memory clock, locked to the value (MHz), and the
/// board's power limit (W). They reach NVML, never the compiler.
inline constexpr std::string_view sm_clock_parameter = "nvml_gr_clock";
inline constexpr std::string_view memory_clock_parameter = "nvml_mem_clock";
inline constexpr std::string_view power_limit_parameter = "nvml_pwr_limit";

/// Whether `name` is one of the parameters that set the GPU.
[[nodiscard]] inline bool is_gpu_setting(std::string_view name) noexcept {
  return name == sm_clock_parameter || name == memory_clock_parameter ||
         name == power_limit_parameter;
}

/// The first parameter of `space` that sets the GPU, if any.
[[nodiscard]] inline std::optional<std::string> gpu_setting_parameter(const Space& space) {
  for (std::size_t d = 0; d < space.dimensions(); ++d) {
    if (is_gpu_setting(space.parameter(d).name())) return space.parameter(d).name();
  }
  return std::nullopt;
}

/// What a configuration asks of the GPU; each empty where its space has no such parameter.
struct GpuSettingsRequest {
  std::optional<unsigned> sm_clock_mhz{};
  std::optional<unsigned> memory_clock_mhz{};
  std::optional<double> power_limit_w{};
  [[nodiscard]] bool empty() const noexcept {
    return !sm_clock_mhz && !memory_clock_mhz && !power_limit_w;
  }
  friend bool operator==(const GpuSettingsRequest&, const GpuSettingsRequest&) = default;
};

/// The largest clock (MHz) and power limit (W) a configuration may ask for: a million MHz is a
/// petahertz, a million watts a megawatt; anything above is a mistake in the space.
inline constexpr double max_clock_mhz = 1e6;
inline constexpr double max_power_limit_w = 1e6;

/// The settings configuration `c` of `space` asks for. `invalid_argument` names a parameter whose
/// value is not a positive number within its bound.
[[nodiscard]] inline Result<GpuSettingsRequest> gpu_settings_of(const Space& space,
                                                                const Configuration& c) {
  GpuSettingsRequest out;
  for (std::size_t d = 0; d < space.dimensions(); ++d) {
    const std::string& name = space.parameter(d).name();
    if (!is_gpu_setting(name)) continue;
    const Value& v = space.value(c, d);
    const double x = v.is_integer() ? static_cast<double>(v.as_integer())
                     : v.is_real()  ? v.as_real()
                                    : std::nan("");
    // NVML takes clocks in MHz and limits in milliwatts, as unsigned: the bounds keep both
    // far inside what it can hold.
    const bool watts = name == power_limit_parameter;
    const double bound = watts ? max_power_limit_w : max_clock_mhz;
    if (!(x > 0) || !std::isfinite(x) || x > bound) {
      return make_error(Errc::invalid_argument, "parameter '" + name + "' = " + v.to_string() +
                                                    ": expected a positive number of " +
                                                    (watts ? "watts" : "MHz") + ", at most " +
                                                    std::to_string(static_cast<long>(bound)));
    }
    if (name == sm_clock_parameter) out.sm_clock_mhz = static_cast<unsigned>(std::lround(x));
    if (name == memory_clock_parameter) {
      out.memory_clock_mhz = static_cast<unsigned>(std::lround(x));
    }
    if (name == power_limit_parameter) out.power_limit_w = x;
  }
  return out;
}

/// NVML's entry points that GpuSettings calls, as one table: the installed NVML's
/// (`real_nvml_control`) or a test double. NVML's C types: nvmlReturn_t is an int enum (0:
/// success), nvmlDevice_t an opaque pointer; limits are in milliwatts, clocks in MHz (NVML API
/// reference, docs.nvidia.com/deploy/nvml-api).
struct NvmlControlApi {
  using Device = void*;
  int (*init)() = nullptr;                                             // nvmlInit_v2
  int (*shutdown)() = nullptr;                                         // nvmlShutdown
  const char* (*error_string)(int) = nullptr;                          // nvmlErrorString
  int (*handle_by_pci_bus_id)(const char*, Device*) = nullptr;         // ..._v2
  int (*set_gpu_locked_clocks)(Device, unsigned, unsigned) = nullptr;  // min, max MHz
  int (*reset_gpu_locked_clocks)(Device) = nullptr;
  int (*set_memory_locked_clocks)(Device, unsigned, unsigned) = nullptr;
  int (*reset_memory_locked_clocks)(Device) = nullptr;
  int (*get_power_limit)(Device, unsigned*) = nullptr;  // nvmlDeviceGetPowerManagementLimit
  int (*get_power_limit_constraints)(Device, unsigned*, unsigned*) = nullptr;  // min, max mW
  int (*set_power_limit)(Device, unsigned) = nullptr;  // nvmlDeviceSetPowerManagementLimit
};

/// NVML's return codes GpuSettings explains (nvmlReturn_t).
inline constexpr int nvml_success = 0;
inline constexpr int nvml_error_no_permission = 4;

/// The installed NVML's setters, loaded once per process, only when asked for (thread-safe;
/// never unloaded). `not_found` when libnvidia-ml.so.1 cannot be loaded, `unsupported` when an
/// entry point is missing (a driver older than locked clocks: R440).
[[nodiscard]] inline Result<const NvmlControlApi*> real_nvml_control() {
  static const Result<NvmlControlApi> loaded = []() -> Result<NvmlControlApi> {
    const auto& library = detail::nvml_library();
    if (library.handle == nullptr) {
      return make_error(Errc::not_found, "no NVML: libnvidia-ml.so.1 could not be loaded (" +
                                             library.why +
                                             "); setting clocks or power limits needs NVIDIA's "
                                             "driver");
    }
    NvmlControlApi api;
    std::string missing;
    const auto bind = [&](auto& slot, const char* symbol) {
      detail::bind_nvml(library.handle, slot, symbol, missing);
    };
    bind(api.init, "nvmlInit_v2");
    bind(api.shutdown, "nvmlShutdown");
    bind(api.error_string, "nvmlErrorString");
    bind(api.handle_by_pci_bus_id, "nvmlDeviceGetHandleByPciBusId_v2");
    bind(api.set_gpu_locked_clocks, "nvmlDeviceSetGpuLockedClocks");
    bind(api.reset_gpu_locked_clocks, "nvmlDeviceResetGpuLockedClocks");
    bind(api.set_memory_locked_clocks, "nvmlDeviceSetMemoryLockedClocks");
    bind(api.reset_memory_locked_clocks, "nvmlDeviceResetMemoryLockedClocks");
    bind(api.get_power_limit, "nvmlDeviceGetPowerManagementLimit");
    bind(api.get_power_limit_constraints, "nvmlDeviceGetPowerManagementLimitConstraints");
    bind(api.set_power_limit, "nvmlDeviceSetPowerManagementLimit");
    if (!missing.empty()) {
      return make_error(Errc::unsupported, "NVML has no " + missing +
                                               ": the driver is too old to set clocks and power "
                                               "limits (update it)");
    }
    return api;
  }();
  if (!loaded) return loaded.error();
  return &*loaded;
}

/// The settings of one GPU while a runner tunes them: applies each configuration's request
/// (only what differs from the one before) and, when destroyed or `restore()`d, puts back what
/// it found: the power limit read when it opened, the clocks unlocked (NVML cannot say whether
/// they were locked before: a GPU whose clocks someone locked is not one to opt in on). A
/// process that is killed cannot restore: `nvidia-smi -rgc -rmc` unlocks the clocks and
/// `nvidia-smi -pl WATTS` sets the limit back (docs/cuda.md). Movable, not copyable.
class GpuSettings {
 public:
  /// Opens the device at `pci_bus_id` through `api` and reads its power limit and the range
  /// NVML accepts. Errors (`device_error`) say which call failed and why.
  [[nodiscard]] static Result<GpuSettings> open(const NvmlControlApi& api,
                                                const std::string& pci_bus_id) {
    GpuSettings s;
    s.api_ = &api;
    if (const int r = api.init(); r != nvml_success) {
      return make_error(Errc::device_error, "nvmlInit: " + s.explain(r));
    }
    s.initialised_ = true;
    if (const int r = api.handle_by_pci_bus_id(pci_bus_id.c_str(), &s.device_); r != nvml_success) {
      return make_error(Errc::device_error,
                        "NVML: no device at PCI bus id " + pci_bus_id + ": " + s.explain(r));
    }
    if (const int r = api.get_power_limit(s.device_, &s.original_limit_mw_); r != nvml_success) {
      return make_error(Errc::device_error, "nvmlDeviceGetPowerManagementLimit: " + s.explain(r));
    }
    if (const int r =
            api.get_power_limit_constraints(s.device_, &s.min_limit_mw_, &s.max_limit_mw_);
        r != nvml_success) {
      return make_error(Errc::device_error,
                        "nvmlDeviceGetPowerManagementLimitConstraints: " + s.explain(r));
    }
    return s;
  }

  GpuSettings(GpuSettings&& other) noexcept { *this = std::move(other); }
  GpuSettings& operator=(GpuSettings&& other) noexcept {
    if (this != &other) {
      (void)restore();
      close();
      api_ = std::exchange(other.api_, nullptr);
      device_ = std::exchange(other.device_, nullptr);
      initialised_ = std::exchange(other.initialised_, false);
      original_limit_mw_ = other.original_limit_mw_;
      min_limit_mw_ = other.min_limit_mw_;
      max_limit_mw_ = other.max_limit_mw_;
      current_ = std::exchange(other.current_, {});
      sm_locked_ = std::exchange(other.sm_locked_, false);
      memory_locked_ = std::exchange(other.memory_locked_, false);
      limit_changed_ = std::exchange(other.limit_changed_, false);
    }
    return *this;
  }
  GpuSettings(const GpuSettings&) = delete;
  GpuSettings& operator=(const GpuSettings&) = delete;
  ~GpuSettings() {
    (void)restore();
    close();
  }

  /// Applies `request`: each value that differs from the one in force. The error names the
  /// parameter, its value and NVML's reason (a clock the GPU does not support, a power limit
  /// outside the range it accepts, no permission: setting needs root).
  [[nodiscard]] std::optional<std::string> apply(const GpuSettingsRequest& request) {
    if (request.power_limit_w && request.power_limit_w != current_.power_limit_w) {
      const double mw = *request.power_limit_w * 1000.0;
      if (mw < min_limit_mw_ || mw > max_limit_mw_) {
        return std::string(power_limit_parameter) + " = " + watts(mw) +
               " W: outside the range this GPU accepts, " + watts(min_limit_mw_) + " to " +
               watts(max_limit_mw_) + " W";
      }
      limit_changed_ = true;
      if (const int r = api_->set_power_limit(device_, static_cast<unsigned>(std::lround(mw)));
          r != nvml_success) {
        return std::string(power_limit_parameter) + " = " + watts(mw) +
               " W: nvmlDeviceSetPowerManagementLimit: " + explain(r);
      }
      current_.power_limit_w = request.power_limit_w;
    }
    if (auto err =
            lock(request.sm_clock_mhz, current_.sm_clock_mhz, sm_locked_,
                 api_->set_gpu_locked_clocks, sm_clock_parameter, "nvmlDeviceSetGpuLockedClocks")) {
      return err;
    }
    return lock(request.memory_clock_mhz, current_.memory_clock_mhz, memory_locked_,
                api_->set_memory_locked_clocks, memory_clock_parameter,
                "nvmlDeviceSetMemoryLockedClocks");
  }

  /// Puts back what was found: the clocks unlocked where this locked them, the power limit
  /// read at `open` where this changed it. Says what could not be put back (empty: all was).
  [[nodiscard]] std::string restore() noexcept {
    if (api_ == nullptr || device_ == nullptr) return {};
    std::string failed;
    const auto note = [&](const std::string& what, int r) {
      if (r != nvml_success) failed += (failed.empty() ? "" : "; ") + what + ": " + explain(r);
    };
    if (sm_locked_) note("nvmlDeviceResetGpuLockedClocks", api_->reset_gpu_locked_clocks(device_));
    if (memory_locked_) {
      note("nvmlDeviceResetMemoryLockedClocks", api_->reset_memory_locked_clocks(device_));
    }
    if (limit_changed_) {
      note("nvmlDeviceSetPowerManagementLimit (back to " + watts(original_limit_mw_) + " W)",
           api_->set_power_limit(device_, original_limit_mw_));
    }
    sm_locked_ = memory_locked_ = limit_changed_ = false;
    current_ = {};
    return failed;
  }

  /// The power limit found when this opened, and the range NVML accepts (W).
  [[nodiscard]] double original_power_limit_w() const noexcept { return original_limit_mw_ / 1e3; }
  [[nodiscard]] double min_power_limit_w() const noexcept { return min_limit_mw_ / 1e3; }
  [[nodiscard]] double max_power_limit_w() const noexcept { return max_limit_mw_ / 1e3; }
  /// The settings in force from the last `apply` (empty values: left as found).
  [[nodiscard]] const GpuSettingsRequest& current() const noexcept { return current_; }

 private:
  GpuSettings() = default;

  void close() noexcept {
    if (initialised_ && api_ != nullptr) (void)api_->shutdown();
    initialised_ = false;
    device_ = nullptr;
  }

  [[nodiscard]] std::string explain(int r) const {
    std::string out = api_->error_string != nullptr && api_->error_string(r) != nullptr
                          ? api_->error_string(r)
                          : "NVML error " + std::to_string(r);
    if (r == nvml_error_no_permission) out += " (setting clocks and power limits needs root)";
    return out;
  }

  static std::string watts(double mw) {
    const double w = mw / 1e3;
    return w == std::floor(w) ? std::to_string(static_cast<long long>(w)) : std::to_string(w);
  }

  std::optional<std::string> lock(std::optional<unsigned> wanted, std::optional<unsigned>& now,
                                  bool& locked,
                                  int (*set)(NvmlControlApi::Device, unsigned, unsigned),
                                  std::string_view parameter, const char* call) {
    if (!wanted || wanted == now) return std::nullopt;
    locked = true;
    if (const int r = set(device_, *wanted, *wanted); r != nvml_success) {
      now.reset();
      return std::string(parameter) + " = " + std::to_string(*wanted) + " MHz: " + call + ": " +
             explain(r);
    }
    now = wanted;
    return std::nullopt;
  }

  const NvmlControlApi* api_ = nullptr;
  NvmlControlApi::Device device_ = nullptr;
  bool initialised_ = false;
  unsigned original_limit_mw_ = 0;
  unsigned min_limit_mw_ = 0;
  unsigned max_limit_mw_ = 0;
  GpuSettingsRequest current_{};
  bool sm_locked_ = false;
  bool memory_locked_ = false;
  bool limit_changed_ = false;
};

}  // namespace aoe::cuda

#endif  // AOE_MEASURE_CUDA_GPU_SETTINGS_HPP
