// Choosing an OpenCL device (by index or part of its name) and reading the limits a tuning space
// must respect.
#ifndef AOE_MEASURE_OPENCL_DEVICE_HPP
#define AOE_MEASURE_OPENCL_DEVICE_HPP

#include "aoe/config/environment.hpp"
#include "aoe/core/error.hpp"
#include "aoe/measure/opencl/detail/cl.hpp"
#include "aoe/measure/opencl/opencl_error.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace aoe::opencl {

/// Which device to open. Each field is empty (the first), an index ("1") or part of the name,
/// case-insensitive ("pocl", "nvidia", "gfx90a"). With only `device` given, every platform is
/// searched for a device of that name (an index: the first platform with that many devices).
struct DeviceSelection {
  std::string platform;
  std::string device;

  /// From AOE_OPENCL_PLATFORM and AOE_OPENCL_DEVICE (config/environment.hpp).
  [[nodiscard]] static DeviceSelection from(const Environment& env) {
    return {env.opencl_platform.value_or(""), env.opencl_device.value_or("")};
  }
};

/// What a tuning space needs to know about the device: name (for the tuning key) and limits
/// (for constraints, so that impossible configurations are never measured).
struct DeviceInfo {
  std::string name;      ///< CL_DEVICE_NAME, e.g. "pthread-skylake-avx512-AMD EPYC 7B13"
  std::string platform;  ///< CL_PLATFORM_NAME, e.g. "Portable Computing Language"
  std::string version;   ///< CL_DEVICE_VERSION
  bool cpu = false;      ///< CL_DEVICE_TYPE_CPU: builds would compete with the measured kernel
  bool gpu = false;      ///< CL_DEVICE_TYPE_GPU
  std::uint32_t compute_units = 0;
  std::size_t max_work_group_size = 0;               ///< work-items per group, any kernel
  std::array<std::size_t, 3> max_work_item_sizes{};  ///< per dimension
  std::uint64_t local_memory_bytes = 0;              ///< __local memory per work-group
  std::uint64_t global_memory_bytes = 0;
};

namespace detail {

[[nodiscard]] inline std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

[[nodiscard]] inline bool is_index(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

// Whether `name` is chosen by `pattern` (empty: everything; else a part of the name).
[[nodiscard]] inline bool name_matches(const std::string& name, const std::string& pattern) {
  return pattern.empty() || lower(name).find(lower(pattern)) != std::string::npos;
}

}  // namespace detail

/// Everything `describe` reads from a device.
[[nodiscard]] inline DeviceInfo describe(const cl::Device& device) {
  DeviceInfo info;
  info.name = device.getInfo<CL_DEVICE_NAME>();
  const cl::Platform platform(device.getInfo<CL_DEVICE_PLATFORM>());
  info.platform = platform.getInfo<CL_PLATFORM_NAME>();
  info.version = device.getInfo<CL_DEVICE_VERSION>();
  const auto type = device.getInfo<CL_DEVICE_TYPE>();
  info.cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
  info.gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
  info.compute_units = device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
  info.max_work_group_size = device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  const auto sizes = device.getInfo<CL_DEVICE_MAX_WORK_ITEM_SIZES>();
  for (std::size_t d = 0; d < 3 && d < sizes.size(); ++d) info.max_work_item_sizes[d] = sizes[d];
  info.local_memory_bytes = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  info.global_memory_bytes = device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
  // Trim the NUL some drivers leave at the end of strings.
  for (auto* s : {&info.name, &info.platform, &info.version}) {
    while (!s->empty() && s->back() == '\0') s->pop_back();
  }
  return info;
}

/// Every platform's devices, in the order of the ICD loader. `not_found` when there is no
/// platform (no OpenCL driver installed: on Debian e.g. pocl-opencl-icd for the CPU).
[[nodiscard]] inline Result<std::vector<std::vector<cl::Device>>> list_devices() {
  std::vector<cl::Platform> platforms;
  const cl_int err = cl::Platform::get(&platforms);
  if (err != CL_SUCCESS || platforms.empty()) {
    return make_error(Errc::not_found,
                      "no OpenCL platform (" + error_name(err) +
                          "): install a driver (Debian: pocl-opencl-icd for the CPU, or the "
                          "GPU vendor's ICD) and check with clinfo");
  }
  std::vector<std::vector<cl::Device>> out;
  for (const auto& p : platforms) {
    std::vector<cl::Device> devices;
    if (p.getDevices(CL_DEVICE_TYPE_ALL, &devices) != CL_SUCCESS) devices.clear();
    out.push_back(std::move(devices));
  }
  return out;
}

/// The device chosen by `selection`. Errors (`not_found`, `invalid_argument`) name the field
/// (AOE_OPENCL_PLATFORM / AOE_OPENCL_DEVICE), what was asked and what exists.
[[nodiscard]] inline Result<cl::Device> find_device(const DeviceSelection& selection) {
  auto all = list_devices();
  if (!all) return all.error();
  std::vector<cl::Platform> platforms;
  (void)cl::Platform::get(&platforms);
  std::string available;
  for (std::size_t p = 0; p < all->size(); ++p) {
    available +=
        "\n  platform " + std::to_string(p) + ": " + platforms[p].getInfo<CL_PLATFORM_NAME>();
    for (std::size_t d = 0; d < (*all)[p].size(); ++d) {
      available += "\n    device " + std::to_string(d) + ": " + describe((*all)[p][d]).name;
    }
  }

  std::vector<std::size_t> candidates;  // platforms to look in
  if (detail::is_index(selection.platform)) {
    const std::size_t p = std::stoul(selection.platform);
    if (p >= all->size()) {
      return make_error(Errc::not_found, "AOE_OPENCL_PLATFORM='" + selection.platform +
                                             "': there are " + std::to_string(all->size()) +
                                             " platforms" + available);
    }
    candidates.push_back(p);
  } else {
    for (std::size_t p = 0; p < all->size(); ++p) {
      if (detail::name_matches(platforms[p].getInfo<CL_PLATFORM_NAME>(), selection.platform)) {
        candidates.push_back(p);
      }
    }
    if (candidates.empty()) {
      return make_error(Errc::not_found, "AOE_OPENCL_PLATFORM='" + selection.platform +
                                             "': no platform's name contains it" + available);
    }
  }
  for (const std::size_t p : candidates) {
    const auto& devices = (*all)[p];
    if (detail::is_index(selection.device)) {
      const std::size_t d = std::stoul(selection.device);
      if (d < devices.size()) return devices[d];
      if (!selection.platform.empty()) break;
      continue;
    }
    for (const auto& device : devices) {
      if (detail::name_matches(describe(device).name, selection.device)) return device;
    }
  }
  return make_error(
      Errc::not_found,
      "AOE_OPENCL_DEVICE='" + selection.device + "'" +
          (selection.platform.empty() ? std::string()
                                      : " on AOE_OPENCL_PLATFORM='" + selection.platform + "'") +
          ": no such device" + available);
}

}  // namespace aoe::opencl

#endif  // AOE_MEASURE_OPENCL_DEVICE_HPP
