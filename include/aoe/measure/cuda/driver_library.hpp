// The real CUDA driver, loaded at run time (dlopen of libcuda.so.1): a program built with the
// CUDA runner starts on a machine without an NVIDIA driver (a CI machine, a laptop) and reports
// "no CUDA driver" there instead of failing to load. docs/cuda.md.
#ifndef AOE_MEASURE_CUDA_DRIVER_LIBRARY_HPP
#define AOE_MEASURE_CUDA_DRIVER_LIBRARY_HPP

#include "aoe/core/error.hpp"
#include "aoe/measure/cuda/driver_api.hpp"

#include <dlfcn.h>

#include <string>
#include <type_traits>

// The name a <cuda.h> function has in the library: the macro's expansion (cuMemAlloc ->
// cuMemAlloc_v2) as a string.
#define AOE_CUDA_STRINGIFY_(name) #name
#define AOE_CUDA_SYMBOL(name) AOE_CUDA_STRINGIFY_(name)

namespace aoe::cuda {

namespace detail {

// Resolves every entry of the table from `library`; the error names the first symbol missing.
[[nodiscard]] inline Result<DriverApi> resolve_driver(void* library) {
  DriverApi api;
  std::string missing;
  const auto bind = [&](auto& slot, const char* symbol) {
    void* p = ::dlsym(library, symbol);
    if (p == nullptr && missing.empty()) missing = symbol;
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(p);
  };
  bind(api.init, AOE_CUDA_SYMBOL(cuInit));
  bind(api.driver_get_version, AOE_CUDA_SYMBOL(cuDriverGetVersion));
  bind(api.get_error_name, AOE_CUDA_SYMBOL(cuGetErrorName));
  bind(api.get_error_string, AOE_CUDA_SYMBOL(cuGetErrorString));
  bind(api.device_get_count, AOE_CUDA_SYMBOL(cuDeviceGetCount));
  bind(api.device_get, AOE_CUDA_SYMBOL(cuDeviceGet));
  bind(api.device_get_name, AOE_CUDA_SYMBOL(cuDeviceGetName));
  bind(api.device_get_attribute, AOE_CUDA_SYMBOL(cuDeviceGetAttribute));
  bind(api.device_total_mem, AOE_CUDA_SYMBOL(cuDeviceTotalMem));
  bind(api.device_get_pci_bus_id, AOE_CUDA_SYMBOL(cuDeviceGetPCIBusId));
  bind(api.ctx_create, AOE_CUDA_SYMBOL(cuCtxCreate));
  bind(api.ctx_destroy, AOE_CUDA_SYMBOL(cuCtxDestroy));
  bind(api.ctx_set_current, AOE_CUDA_SYMBOL(cuCtxSetCurrent));
  bind(api.ctx_synchronize, AOE_CUDA_SYMBOL(cuCtxSynchronize));
  bind(api.module_load_data, AOE_CUDA_SYMBOL(cuModuleLoadData));
  bind(api.module_unload, AOE_CUDA_SYMBOL(cuModuleUnload));
  bind(api.module_get_function, AOE_CUDA_SYMBOL(cuModuleGetFunction));
  bind(api.func_get_attribute, AOE_CUDA_SYMBOL(cuFuncGetAttribute));
  bind(api.func_set_attribute, AOE_CUDA_SYMBOL(cuFuncSetAttribute));
  bind(api.launch_kernel, AOE_CUDA_SYMBOL(cuLaunchKernel));
  bind(api.mem_alloc, AOE_CUDA_SYMBOL(cuMemAlloc));
  bind(api.mem_free, AOE_CUDA_SYMBOL(cuMemFree));
  bind(api.memcpy_htod, AOE_CUDA_SYMBOL(cuMemcpyHtoD));
  bind(api.memcpy_dtoh, AOE_CUDA_SYMBOL(cuMemcpyDtoH));
  bind(api.memset_d8_async, AOE_CUDA_SYMBOL(cuMemsetD8Async));
  bind(api.stream_create, AOE_CUDA_SYMBOL(cuStreamCreate));
  bind(api.stream_destroy, AOE_CUDA_SYMBOL(cuStreamDestroy));
  bind(api.stream_synchronize, AOE_CUDA_SYMBOL(cuStreamSynchronize));
  bind(api.event_create, AOE_CUDA_SYMBOL(cuEventCreate));
  bind(api.event_destroy, AOE_CUDA_SYMBOL(cuEventDestroy));
  bind(api.event_record, AOE_CUDA_SYMBOL(cuEventRecord));
  bind(api.event_synchronize, AOE_CUDA_SYMBOL(cuEventSynchronize));
  bind(api.event_elapsed_time, AOE_CUDA_SYMBOL(cuEventElapsedTime));
  if (!missing.empty()) {
    return make_error(Errc::unsupported, "the CUDA driver has no " + missing +
                                             ": it is older than the CUDA 13 toolkit this "
                                             "program was built with (update the driver)");
  }
  return api;
}

}  // namespace detail

/// The installed NVIDIA driver's entry points, loaded once per process (thread-safe) and never
/// unloaded. `not_found` when libcuda.so.1 cannot be loaded (no driver: the message says what
/// the loader said), `unsupported` when an entry point is missing (a driver too old).
[[nodiscard]] inline Result<const DriverApi*> real_driver() {
  static const Result<DriverApi> loaded = []() -> Result<DriverApi> {
    void* library = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      const char* why = ::dlerror();
      return make_error(Errc::not_found,
                        std::string("no CUDA driver: libcuda.so.1 could not be loaded (") +
                            (why != nullptr ? why : "unknown reason") +
                            "); the CUDA runner needs an NVIDIA GPU and its driver");
    }
    return detail::resolve_driver(library);
  }();
  if (!loaded) return loaded.error();
  return &*loaded;
}

}  // namespace aoe::cuda

#endif  // AOE_MEASURE_CUDA_DRIVER_LIBRARY_HPP
