// What the GPU was doing while it was measured: clocks, temperature, power and energy, read
// through NVML (libnvidia-ml.so.1, loaded at run time and only read: nothing is ever set). Where
// NVML is absent or refuses a query, the value is unknown, never a failure.
#ifndef AOE_MEASURE_CUDA_NVML_HPP
#define AOE_MEASURE_CUDA_NVML_HPP

#include <dlfcn.h>

#include <optional>
#include <string>

namespace aoe::cuda {

/// A reading of the GPU's state; each value is empty where it could not be read.
struct GpuState {
  std::optional<double> sm_clock_mhz;      ///< current SM clock
  std::optional<double> memory_clock_mhz;  ///< current memory clock
  std::optional<double> temperature_c;     ///< GPU die temperature
  std::optional<double> power_w;           ///< board power draw
};

/// NVML's read-only entry points, as one table: the installed NVML's (`real_nvml_read`) or a
/// test double. NVML's C types: nvmlReturn_t is an int enum (0: success), nvmlDevice_t an opaque
/// pointer (NVML API reference, docs.nvidia.com/deploy/nvml-api). Nothing here sets anything;
/// the setters are NvmlControlApi's (gpu_settings.hpp), loaded only for a user who opts in.
struct NvmlReadApi {
  using Device = void*;
  int (*init)() = nullptr;                                      // nvmlInit_v2
  int (*shutdown)() = nullptr;                                  // nvmlShutdown
  int (*handle_by_pci_bus_id)(const char*, Device*) = nullptr;  // ..._v2
  int (*clock)(Device, int, unsigned*) = nullptr;               // nvmlDeviceGetClockInfo
  int (*temperature)(Device, int, unsigned*) = nullptr;         // nvmlDeviceGetTemperature
  int (*power)(Device, unsigned*) = nullptr;                    // nvmlDeviceGetPowerUsage, mW
  /// nvmlDeviceGetTotalEnergyConsumption: millijoules since the driver loaded (Volta and later).
  int (*energy)(Device, unsigned long long*) = nullptr;
};

namespace detail {

/// libnvidia-ml.so.1, opened once per process and never closed (the driver's own threads may
/// use it); `handle` null where it cannot be loaded, and `why` the loader's reason.
struct NvmlLibrary {
  void* handle = nullptr;
  std::string why;
};

[[nodiscard]] inline const NvmlLibrary& nvml_library() {
  static const NvmlLibrary library = [] {
    NvmlLibrary l;
    l.handle = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (l.handle == nullptr) {
      const char* why = ::dlerror();
      l.why = why != nullptr ? why : "unknown reason";
    }
    return l;
  }();
  return library;
}

/// Sets `slot` to `symbol` of `library` (null where it has none; `missing` then names the first
/// symbol missing).
template <class F>
void bind_nvml(void* library, F& slot, const char* symbol, std::string& missing) {
  void* p = ::dlsym(library, symbol);
  if (p == nullptr && missing.empty()) missing = symbol;
  slot = reinterpret_cast<F>(p);
}

}  // namespace detail

/// The installed NVML's read-only entry points, loaded once per process (thread-safe); null
/// where libnvidia-ml.so.1 cannot be loaded or lacks nvmlInit, nvmlShutdown or the handle
/// lookup. A query it lacks stays null (its value is then unknown).
[[nodiscard]] inline const NvmlReadApi* real_nvml_read() {
  static const std::optional<NvmlReadApi> loaded = []() -> std::optional<NvmlReadApi> {
    void* library = detail::nvml_library().handle;
    if (library == nullptr) return std::nullopt;
    NvmlReadApi api;
    std::string missing;
    detail::bind_nvml(library, api.init, "nvmlInit_v2", missing);
    detail::bind_nvml(library, api.shutdown, "nvmlShutdown", missing);
    detail::bind_nvml(library, api.handle_by_pci_bus_id, "nvmlDeviceGetHandleByPciBusId_v2",
                      missing);
    if (!missing.empty()) return std::nullopt;
    detail::bind_nvml(library, api.clock, "nvmlDeviceGetClockInfo", missing);
    detail::bind_nvml(library, api.temperature, "nvmlDeviceGetTemperature", missing);
    detail::bind_nvml(library, api.power, "nvmlDeviceGetPowerUsage", missing);
    detail::bind_nvml(library, api.energy, "nvmlDeviceGetTotalEnergyConsumption", missing);
    return api;
  }();
  return loaded ? &*loaded : nullptr;
}

/// NVML for one device, found by its PCI bus id (DeviceInfo::pci_bus_id), through the read-only
/// entry points `api` (the installed NVML's by default). Not copyable; one per runner.
class Nvml {
 public:
  /// NVML for the device at `pci_bus_id`; `available()` is false when NVML or the device
  /// cannot be opened.
  explicit Nvml(const std::string& pci_bus_id) : Nvml(real_nvml_read(), pci_bus_id) {}
  /// The same through `api` (null: no NVML).
  Nvml(const NvmlReadApi* api, const std::string& pci_bus_id) : api_(api) {
    if (api_ == nullptr || api_->init() != 0) return;
    initialised_ = true;
    if (api_->handle_by_pci_bus_id(pci_bus_id.c_str(), &device_) != 0) device_ = nullptr;
  }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;
  ~Nvml() {
    if (initialised_) (void)api_->shutdown();
  }

  [[nodiscard]] bool available() const noexcept { return device_ != nullptr; }

  /// The energy the device has used since the driver was loaded, in joules (the counter is in
  /// millijoules; Volta and later); none where NVML or the query is unavailable.
  [[nodiscard]] std::optional<double> energy_joules() const {
    unsigned long long mj = 0;
    if (device_ == nullptr || api_->energy == nullptr || api_->energy(device_, &mj) != 0) {
      return std::nullopt;
    }
    return static_cast<double>(mj) * 1e-3;
  }

  /// The device's state now (all unknown when NVML is unavailable).
  [[nodiscard]] GpuState read() const {
    GpuState s;
    if (device_ == nullptr) return s;
    unsigned int v = 0;
    // nvmlClockType_t: NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2.
    if (api_->clock != nullptr && api_->clock(device_, 1, &v) == 0) s.sm_clock_mhz = v;
    if (api_->clock != nullptr && api_->clock(device_, 2, &v) == 0) s.memory_clock_mhz = v;
    // nvmlTemperatureSensors_t: NVML_TEMPERATURE_GPU = 0.
    if (api_->temperature != nullptr && api_->temperature(device_, 0, &v) == 0) {
      s.temperature_c = v;
    }
    // Milliwatts.
    if (api_->power != nullptr && api_->power(device_, &v) == 0) s.power_w = v / 1000.0;
    return s;
  }

 private:
  const NvmlReadApi* api_ = nullptr;
  bool initialised_ = false;
  NvmlReadApi::Device device_ = nullptr;
};

}  // namespace aoe::cuda

#endif  // AOE_MEASURE_CUDA_NVML_HPP
