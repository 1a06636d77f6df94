// The CUDA driver API entry points the CUDA runner calls, as one table of function pointers: the
// real driver (driver_library.hpp, loaded at run time) or a test double (tests/cuda/). Every
// member has exactly the type of the function it stands for in <cuda.h>, so a table of the
// real functions compiles only if the signatures agree.
#ifndef AOE_MEASURE_CUDA_DRIVER_API_HPP
#define AOE_MEASURE_CUDA_DRIVER_API_HPP

#include <cuda.h>

namespace aoe::cuda {

/// The driver API's entry points, one member per function, named as the function without its
/// `cu` prefix in snake_case (`cuMemAlloc` -> `mem_alloc`). A table must set every member: the
/// runner calls them without checking for null. Versioned names (`cuMemAlloc_v2`) are those
/// <cuda.h> maps the plain names to.
struct DriverApi {
  // ---- initialisation, errors, devices ----
  decltype(&::cuInit) init = nullptr;
  decltype(&::cuDriverGetVersion) driver_get_version = nullptr;
  decltype(&::cuGetErrorName) get_error_name = nullptr;
  decltype(&::cuGetErrorString) get_error_string = nullptr;
  decltype(&::cuDeviceGetCount) device_get_count = nullptr;
  decltype(&::cuDeviceGet) device_get = nullptr;
  decltype(&::cuDeviceGetName) device_get_name = nullptr;
  decltype(&::cuDeviceGetAttribute) device_get_attribute = nullptr;
  decltype(&::cuDeviceTotalMem) device_total_mem = nullptr;
  decltype(&::cuDeviceGetPCIBusId) device_get_pci_bus_id = nullptr;

  // ---- context ----
  decltype(&::cuCtxCreate) ctx_create = nullptr;
  decltype(&::cuCtxDestroy) ctx_destroy = nullptr;
  decltype(&::cuCtxSetCurrent) ctx_set_current = nullptr;
  decltype(&::cuCtxSynchronize) ctx_synchronize = nullptr;

  // ---- modules and functions ----
  decltype(&::cuModuleLoadData) module_load_data = nullptr;
  decltype(&::cuModuleUnload) module_unload = nullptr;
  decltype(&::cuModuleGetFunction) module_get_function = nullptr;
  decltype(&::cuFuncGetAttribute) func_get_attribute = nullptr;
  decltype(&::cuFuncSetAttribute) func_set_attribute = nullptr;
  decltype(&::cuLaunchKernel) launch_kernel = nullptr;

  // ---- memory ----
  decltype(&::cuMemAlloc) mem_alloc = nullptr;
  decltype(&::cuMemFree) mem_free = nullptr;
  decltype(&::cuMemcpyHtoD) memcpy_htod = nullptr;
  decltype(&::cuMemcpyDtoH) memcpy_dtoh = nullptr;
  decltype(&::cuMemsetD8Async) memset_d8_async = nullptr;

  // ---- streams and events ----
  decltype(&::cuStreamCreate) stream_create = nullptr;
  decltype(&::cuStreamDestroy) stream_destroy = nullptr;
  decltype(&::cuStreamSynchronize) stream_synchronize = nullptr;
  decltype(&::cuEventCreate) event_create = nullptr;
  decltype(&::cuEventDestroy) event_destroy = nullptr;
  decltype(&::cuEventRecord) event_record = nullptr;
  decltype(&::cuEventSynchronize) event_synchronize = nullptr;
  decltype(&::cuEventElapsedTime) event_elapsed_time = nullptr;
};

}  // namespace aoe::cuda

#endif  // AOE_MEASURE_CUDA_DRIVER_API_HPP
