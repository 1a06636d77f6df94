// Choosing a CUDA device (by ordinal or part of its name) and reading the properties a tuning
// space must respect and a tuning key must name.
#ifndef AOE_MEASURE_CUDA_DEVICE_HPP
#define AOE_MEASURE_CUDA_DEVICE_HPP

#include "aoe/config/environment.hpp"
#include "aoe/core/error.hpp"
#include "aoe/measure/cuda/cuda_error.hpp"
#include "aoe/measure/cuda/driver_api.hpp"

#include <cuda.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace aoe::cuda {

/// Which device to open: empty (device 0), an ordinal ("1") or part of the name,
/// case-insensitive ("h100", "a100").
struct DeviceSelection {
  std::string device;

  /// From AOE_CUDA_DEVICE (config/environment.hpp).
  [[nodiscard]] static DeviceSelection from(const Environment& env) {
    return {env.cuda_device.value_or("")};
  }
};

/// What the runner and a tuning space need to know of a GPU: its name and compute capability
/// (for the tuning key and the compiler's target) and its limits (for constraints, so that
/// impossible configurations are never measured). All sizes in bytes.
struct DeviceInfo {
  std::string name;  ///< e.g. "NVIDIA H100 80GB HBM3"
  int ordinal = 0;
  int compute_major = 0;  ///< compute capability, e.g. 9 . 0
  int compute_minor = 0;
  int multiprocessors = 0;
  int warp_size = 32;
  int max_threads_per_block = 1024;
  std::array<int, 3> max_block_dims{1024, 1024, 64};
  std::array<int, 3> max_grid_dims{2147483647, 65535, 65535};
  int max_threads_per_multiprocessor = 2048;
  std::uint64_t shared_memory_per_block = 48 * 1024;        ///< without opting in
  std::uint64_t shared_memory_per_block_optin = 48 * 1024;  ///< with cuFuncSetAttribute
  std::uint64_t shared_memory_per_multiprocessor = 0;
  int registers_per_block = 65536;
  int registers_per_multiprocessor = 65536;
  int max_registers_per_thread = 255;  ///< an architectural limit of every GPU since Kepler
  std::uint64_t l2_bytes = 0;
  std::uint64_t global_memory_bytes = 0;
  int clock_khz = 0;         ///< the SM clock the driver reports as typical
  int memory_clock_khz = 0;  ///< peak memory clock
  int memory_bus_bits = 0;
  std::string pci_bus_id;  ///< "0000:65:00.0": where NVML finds the same device

  /// "sm_90": the compute capability as NVRTC's --gpu-architecture names it.
  [[nodiscard]] std::string architecture() const {
    return "sm_" + std::to_string(compute_major) + std::to_string(compute_minor);
  }
  /// "NVIDIA H100 80GB HBM3 (sm_90)": what a tuning key's device field should hold, so that a
  /// repository keeps results per GPU model.
  [[nodiscard]] std::string key() const { return name + " (" + architecture() + ")"; }
};

namespace detail {

[[nodiscard]] inline std::string lower_case(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace detail

/// Initialises the driver (cuInit) and counts its devices. `not_found` when there is none.
[[nodiscard]] inline Result<int> device_count(const DriverApi& api) {
  if (const CUresult r = api.init(0); r != CUDA_SUCCESS) {
    return make_error(r == CUDA_ERROR_NO_DEVICE ? Errc::not_found : Errc::device_error,
                      "cuInit failed: " + error_name(api, r));
  }
  int count = 0;
  if (const CUresult r = api.device_get_count(&count); r != CUDA_SUCCESS) {
    return make_error(Errc::device_error, "cuDeviceGetCount failed: " + error_name(api, r));
  }
  if (count == 0) return make_error(Errc::not_found, "the CUDA driver sees no device");
  return count;
}

/// Every property of DeviceInfo for device `ordinal` (the driver initialised).
[[nodiscard]] inline Result<DeviceInfo> describe(const DriverApi& api, int ordinal) {
  DeviceInfo info;
  info.ordinal = ordinal;
  CUdevice device = 0;
  if (const CUresult r = api.device_get(&device, ordinal); r != CUDA_SUCCESS) {
    return make_error(Errc::not_found,
                      "CUDA device " + std::to_string(ordinal) + ": " + error_name(api, r));
  }
  std::array<char, 256> name{};
  if (api.device_get_name(name.data(), static_cast<int>(name.size()), device) == CUDA_SUCCESS) {
    info.name = name.data();
  }
  CUresult failed = CUDA_SUCCESS;
  const auto attribute = [&](CUdevice_attribute a) {
    int v = 0;
    if (const CUresult r = api.device_get_attribute(&v, a, device); r != CUDA_SUCCESS) failed = r;
    return v;
  };
  const auto bytes = [&](CUdevice_attribute a) {
    return static_cast<std::uint64_t>(std::max(0, attribute(a)));
  };
  info.compute_major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info.compute_minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info.multiprocessors = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info.warp_size = attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  info.max_threads_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  info.max_block_dims = {attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X),
                         attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
                         attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)};
  info.max_grid_dims = {attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X),
                        attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
                        attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)};
  info.max_threads_per_multiprocessor =
      attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  info.shared_memory_per_block = bytes(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  info.shared_memory_per_block_optin = bytes(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  info.shared_memory_per_multiprocessor =
      bytes(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  info.registers_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  info.registers_per_multiprocessor =
      attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  info.l2_bytes = bytes(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  info.clock_khz = attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  info.memory_clock_khz = attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  info.memory_bus_bits = attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  if (failed != CUDA_SUCCESS) {
    return make_error(Errc::device_error, "reading the attributes of CUDA device " +
                                              std::to_string(ordinal) + ": " +
                                              error_name(api, failed));
  }
  info.shared_memory_per_block_optin =
      std::max(info.shared_memory_per_block_optin, info.shared_memory_per_block);
  std::size_t total = 0;
  if (api.device_total_mem(&total, device) == CUDA_SUCCESS) info.global_memory_bytes = total;
  std::array<char, 32> bus{};
  if (api.device_get_pci_bus_id(bus.data(), static_cast<int>(bus.size()), device) == CUDA_SUCCESS) {
    info.pci_bus_id = bus.data();
  }
  return info;
}

/// The device `selection` names (the driver initialised on the way). Errors (`not_found`,
/// `device_error`) name AOE_CUDA_DEVICE, what was asked and the devices there are.
[[nodiscard]] inline Result<DeviceInfo> find_device(const DriverApi& api,
                                                    const DeviceSelection& selection) {
  auto count = device_count(api);
  if (!count) return count.error();
  std::vector<DeviceInfo> all;
  std::string available;
  for (int d = 0; d < *count; ++d) {
    auto info = describe(api, d);
    if (!info) return info.error();
    available += "\n  device " + std::to_string(d) + ": " + info->key();
    all.push_back(std::move(*info));
  }
  const std::string& want = selection.device;
  if (want.empty()) return all.front();
  if (std::all_of(want.begin(), want.end(), [](unsigned char c) { return std::isdigit(c); })) {
    const auto d = std::stoull(want);
    if (d < all.size()) return all[d];
    return make_error(Errc::not_found, "AOE_CUDA_DEVICE='" + want + "': there are " +
                                           std::to_string(all.size()) + " devices" + available);
  }
  for (const auto& info : all) {
    if (detail::lower_case(info.name).find(detail::lower_case(want)) != std::string::npos) {
      return info;
    }
  }
  return make_error(Errc::not_found,
                    "AOE_CUDA_DEVICE='" + want + "': no device's name contains it" + available);
}

}  // namespace aoe::cuda

#endif  // AOE_MEASURE_CUDA_DEVICE_HPP
