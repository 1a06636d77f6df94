// What the GPU was doing while it was measured: clocks, temperature and power, read through NVML
// (libnvidia-ml.so.1, loaded at run time and only read: nothing is ever set). Where NVML is
// absent or refuses a query, the value is unknown, never a failure.
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

/// NVML for one device, found by its PCI bus id (DeviceInfo::pci_bus_id). Reads only: the
/// functions loaded are nvmlInit, nvmlShutdown, nvmlDeviceGetHandleByPciBusId,
/// nvmlDeviceGetClockInfo, nvmlDeviceGetTemperature, nvmlDeviceGetPowerUsage and
/// nvmlDeviceGetTotalEnergyConsumption (NVML API reference, docs.nvidia.com/deploy/nvml-api).
/// Nothing that sets a clock or a power limit is loaded. Not copyable; one per runner.
class Nvml {
 public:
  /// NVML for the device at `pci_bus_id`; `available()` is false when NVML or the device
  /// cannot be opened.
  explicit Nvml(const std::string& pci_bus_id) {
    library_ = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library_ == nullptr) return;
    init_ = reinterpret_cast<Init>(::dlsym(library_, "nvmlInit_v2"));
    shutdown_ = reinterpret_cast<Shutdown>(::dlsym(library_, "nvmlShutdown"));
    by_bus_id_ = reinterpret_cast<ByBusId>(::dlsym(library_, "nvmlDeviceGetHandleByPciBusId_v2"));
    clock_ = reinterpret_cast<Clock>(::dlsym(library_, "nvmlDeviceGetClockInfo"));
    temperature_ = reinterpret_cast<Temperature>(::dlsym(library_, "nvmlDeviceGetTemperature"));
    power_ = reinterpret_cast<Power>(::dlsym(library_, "nvmlDeviceGetPowerUsage"));
    energy_ = reinterpret_cast<Energy>(::dlsym(library_, "nvmlDeviceGetTotalEnergyConsumption"));
    if (init_ == nullptr || shutdown_ == nullptr || by_bus_id_ == nullptr || init_() != 0) {
      return;
    }
    initialised_ = true;
    if (by_bus_id_(pci_bus_id.c_str(), &device_) != 0) device_ = nullptr;
  }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;
  ~Nvml() {
    if (initialised_) (void)shutdown_();
    // The library stays loaded: the driver's own threads may still use it.
  }

  [[nodiscard]] bool available() const noexcept { return device_ != nullptr; }

  /// The energy the device has used since the driver was loaded, in joules (the counter is in
  /// millijoules; Volta and later); none where NVML or the query is unavailable.
  [[nodiscard]] std::optional<double> energy_joules() const {
    unsigned long long mj = 0;
    if (device_ == nullptr || energy_ == nullptr || energy_(device_, &mj) != 0) return std::nullopt;
    return static_cast<double>(mj) * 1e-3;
  }

  /// The device's state now (all unknown when NVML is unavailable).
  [[nodiscard]] GpuState read() const {
    GpuState s;
    if (device_ == nullptr) return s;
    unsigned int v = 0;
    // nvmlClockType_t: NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2.
    if (clock_ != nullptr && clock_(device_, 1, &v) == 0) s.sm_clock_mhz = v;
    if (clock_ != nullptr && clock_(device_, 2, &v) == 0) s.memory_clock_mhz = v;
    // nvmlTemperatureSensors_t: NVML_TEMPERATURE_GPU = 0.
    if (temperature_ != nullptr && temperature_(device_, 0, &v) == 0) s.temperature_c = v;
    // Milliwatts.
    if (power_ != nullptr && power_(device_, &v) == 0) s.power_w = v / 1000.0;
    return s;
  }

 private:
  // NVML's C types: nvmlReturn_t is an int enum (0: success), nvmlDevice_t an opaque pointer.
  using Device = void*;
  using Init = int (*)();
  using Shutdown = int (*)();
  using ByBusId = int (*)(const char*, Device*);
  using Clock = int (*)(Device, int, unsigned int*);
  using Temperature = int (*)(Device, int, unsigned int*);
  using Power = int (*)(Device, unsigned int*);
  using Energy = int (*)(Device, unsigned long long*);

  void* library_ = nullptr;
  Init init_ = nullptr;
  Shutdown shutdown_ = nullptr;
  ByBusId by_bus_id_ = nullptr;
  Clock clock_ = nullptr;
  Temperature temperature_ = nullptr;
  Power power_ = nullptr;
  Energy energy_ = nullptr;
  bool initialised_ = false;
  Device device_ = nullptr;
};

}  // namespace aoe::cuda

#endif  // AOE_MEASURE_CUDA_NVML_HPP
