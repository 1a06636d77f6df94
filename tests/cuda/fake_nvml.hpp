// A test double of NVML for the CUDA runner: its read-only queries (aoe::cuda::NvmlReadApi: the
// energy counter, which the fake GPU's clock advances at `watts`, the clocks and the power) and
// its setters (aoe::cuda::NvmlControlApi) for GpuSettings and the opt-in clock and power-limit
// parameters: a GPU whose power limit, locked clocks and the calls made to them are plain
// fields. One FakeNvml at a time (FakeNvmlScope installs it).
#ifndef AOE_TESTS_CUDA_FAKE_NVML_HPP
#define AOE_TESTS_CUDA_FAKE_NVML_HPP

#include "fake_driver.hpp"
#include <aoe/measure/cuda/cuda_runner.hpp>
#include <aoe/measure/cuda/gpu_settings.hpp>
#include <aoe/measure/cuda/nvml.hpp>

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace aoe::test {

/// The fake GPU's NVML settings and what was asked of them.
struct FakeNvml {
  // ---- settings ----
  std::string bus_id = "0000:00:00.0";  ///< the only device (the fake driver's bus id)
  unsigned limit_mw = 700'000;          ///< the power limit in force
  unsigned min_limit_mw = 200'000;
  unsigned max_limit_mw = 700'000;
  std::set<unsigned> sm_clocks{1980, 1755, 1410, 1095};  ///< the SM clocks it accepts (MHz)
  bool root = true;                                      ///< false: every setter NO_PERMISSION
  /// The board's draw while the fake GPU runs: the energy counter is watts x the fake driver's
  /// clock (its kernels' seconds), in millijoules.
  double watts = 300;
  unsigned sm_clock = 1755;    ///< the SM clock read while no clock is locked (MHz)
  bool energy_counter = true;  ///< false: the energy query is not supported (pre-Volta)
  // ---- state and what happened ----
  std::optional<unsigned> sm_locked;      ///< MHz, while locked
  std::optional<unsigned> memory_locked;  ///< MHz, while locked
  std::vector<std::string> calls;         ///< "limit 250000", "sm 1410", "reset sm", ...
  int open_handles = 0;                   ///< nvmlInit minus nvmlShutdown
};

inline FakeNvml*& fake_nvml() {
  static FakeNvml* nvml = nullptr;
  return nvml;
}

namespace fake_nvml_detail {

inline FakeNvml& nvml() { return *fake_nvml(); }
inline int device_tag = 0;  // the one device handle's target

// NVML's codes: 0 success, 2 invalid argument, 4 no permission.
inline int init() {
  ++nvml().open_handles;
  return 0;
}
inline int shutdown() {
  --nvml().open_handles;
  return 0;
}
inline const char* error_string(int r) {
  switch (r) {
    case 0: return "Success";
    case 2: return "Invalid Argument";
    case 4: return "Insufficient Permissions";
    default: return "Unknown Error";
  }
}
inline int handle(const char* bus, void** device) {
  if (nvml().bus_id != bus) return 2;
  *device = &device_tag;
  return 0;
}
inline int set_sm(void*, unsigned lo, unsigned hi) {
  if (!nvml().root) return 4;
  if (lo != hi || nvml().sm_clocks.count(lo) == 0) return 2;
  nvml().calls.push_back("sm " + std::to_string(lo));
  nvml().sm_locked = lo;
  return 0;
}
inline int reset_sm(void*) {
  if (!nvml().root) return 4;
  nvml().calls.emplace_back("reset sm");
  nvml().sm_locked.reset();
  return 0;
}
inline int set_memory(void*, unsigned lo, unsigned) {
  if (!nvml().root) return 4;
  nvml().calls.push_back("memory " + std::to_string(lo));
  nvml().memory_locked = lo;
  return 0;
}
inline int reset_memory(void*) {
  if (!nvml().root) return 4;
  nvml().calls.emplace_back("reset memory");
  nvml().memory_locked.reset();
  return 0;
}
inline int clock(void*, int type, unsigned* mhz) {
  if (type != 1) return 3;  // only the SM clock: NOT_SUPPORTED
  *mhz = nvml().sm_locked.value_or(nvml().sm_clock);
  return 0;
}
inline int temperature(void*, int, unsigned* c) {
  *c = 41;
  return 0;
}
inline int power(void*, unsigned* mw) {
  *mw = static_cast<unsigned>(nvml().watts * 1000);
  return 0;
}
inline int energy(void*, unsigned long long* mj) {
  if (!nvml().energy_counter) return 3;
  const double gpu_seconds = fake_gpu() != nullptr ? fake_gpu()->clock : 0.0;
  *mj = static_cast<unsigned long long>(nvml().watts * gpu_seconds * 1000.0);
  return 0;
}
inline int get_limit(void*, unsigned* mw) {
  *mw = nvml().limit_mw;
  return 0;
}
inline int get_constraints(void*, unsigned* lo, unsigned* hi) {
  *lo = nvml().min_limit_mw;
  *hi = nvml().max_limit_mw;
  return 0;
}
inline int set_limit(void*, unsigned mw) {
  if (!nvml().root) return 4;
  if (mw < nvml().min_limit_mw || mw > nvml().max_limit_mw) return 2;
  nvml().calls.push_back("limit " + std::to_string(mw));
  nvml().limit_mw = mw;
  return 0;
}

}  // namespace fake_nvml_detail

/// The table of the fake's entry points.
inline const cuda::NvmlControlApi& fake_nvml_control() {
  namespace f = fake_nvml_detail;
  static const cuda::NvmlControlApi api{.init = f::init,
                                        .shutdown = f::shutdown,
                                        .error_string = f::error_string,
                                        .handle_by_pci_bus_id = f::handle,
                                        .set_gpu_locked_clocks = f::set_sm,
                                        .reset_gpu_locked_clocks = f::reset_sm,
                                        .set_memory_locked_clocks = f::set_memory,
                                        .reset_memory_locked_clocks = f::reset_memory,
                                        .get_power_limit = f::get_limit,
                                        .get_power_limit_constraints = f::get_constraints,
                                        .set_power_limit = f::set_limit};
  return api;
}

/// The table of the fake's read-only queries.
inline const cuda::NvmlReadApi& fake_nvml_read() {
  namespace f = fake_nvml_detail;
  static const cuda::NvmlReadApi api{.init = f::init,
                                     .shutdown = f::shutdown,
                                     .handle_by_pci_bus_id = f::handle,
                                     .clock = f::clock,
                                     .temperature = f::temperature,
                                     .power = f::power,
                                     .energy = f::energy};
  return api;
}

/// Both tables, for CudaRunner::open_with.
inline cuda::NvmlApis fake_nvml_apis() { return {&fake_nvml_read(), &fake_nvml_control()}; }

/// Installs `nvml` as the fake for its lifetime.
struct FakeNvmlScope {
  explicit FakeNvmlScope(FakeNvml& nvml) { fake_nvml() = &nvml; }
  FakeNvmlScope(const FakeNvmlScope&) = delete;
  FakeNvmlScope& operator=(const FakeNvmlScope&) = delete;
  ~FakeNvmlScope() { fake_nvml() = nullptr; }
};

}  // namespace aoe::test

#endif  // AOE_TESTS_CUDA_FAKE_NVML_HPP
