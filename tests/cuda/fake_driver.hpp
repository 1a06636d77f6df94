// A test double of the CUDA driver API for Runner<device::Cuda>: a GPU whose memory is host
// memory, whose modules accept any image, and whose kernels are C++ functions the test gives
// (FakeGpu::kernel), with a clock that the kernels advance. It records what the runner asked
// for, and a kernel may fail as a real one does, a fault poisoning its context until the
// context is destroyed. One FakeGpu at a time (fake_gpu() points to it).
#ifndef AOE_TESTS_CUDA_FAKE_DRIVER_HPP
#define AOE_TESTS_CUDA_FAKE_DRIVER_HPP

#include <aoe/measure/cuda/cuda_error.hpp>
#include <aoe/measure/cuda/driver_api.hpp>

#include <cuda.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace aoe::test {

/// One launch as the fake driver sees it.
struct FakeLaunch {
  std::string function;  ///< the lowered name the runner asked for
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned shared = 0;
  void** params = nullptr;  ///< as cuLaunchKernel received them

  /// Parameter i as a T (a device pointer is the host pointer of the fake's memory).
  template <class T>
  [[nodiscard]] T arg(std::size_t i) const {
    return *static_cast<T*>(params[i]);
  }
  template <class T>
  [[nodiscard]] T* buffer(std::size_t i) const {
    return reinterpret_cast<T*>(static_cast<std::uintptr_t>(arg<CUdeviceptr>(i)));
  }
};

/// The fake GPU's settings and what it recorded.
struct FakeGpu {
  // ---- settings ----
  std::vector<std::string> names{"Fake NVIDIA H100"};  ///< one device per name
  int compute_major = 9;
  int compute_minor = 0;
  int max_threads_per_block = 1024;
  int function_max_threads = 1024;  ///< CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK of any kernel
  int function_registers = 32;
  int shared_per_block = 48 * 1024;
  int shared_per_block_optin = 227 * 1024;
  int l2_bytes = 50 * 1024 * 1024;
  bool init_fails = false;
  /// Runs a launch: returns its simulated seconds in `seconds` and CUDA_SUCCESS, or the error
  /// the kernel fails with (reported at the next synchronisation, as a real fault is).
  std::function<CUresult(const FakeLaunch&, double& seconds)> kernel;

  // ---- what happened ----
  int contexts_created = 0;
  int contexts_destroyed = 0;
  int modules_loaded = 0;
  int launches = 0;
  int memsets = 0;
  long live_allocations = 0;
  std::vector<std::string> functions_asked;
  double clock = 0;  ///< seconds of simulated GPU time

  // ---- state ----
  struct Context {
    bool poisoned = false;
    CUresult pending = CUDA_SUCCESS;
  };
  std::vector<std::unique_ptr<Context>> contexts;
  Context* current = nullptr;
};

inline FakeGpu*& fake_gpu() {
  static FakeGpu* gpu = nullptr;
  return gpu;
}

namespace fake_detail {

struct Event {
  double time = 0;
};
struct Module {
  std::deque<std::string> functions;  // a deque: the names stay where they are
};

inline FakeGpu& gpu() { return *fake_gpu(); }

// The error every call in a poisoned context fails with (CUDA_SUCCESS: not poisoned).
inline CUresult sticky() {
  FakeGpu& g = gpu();
  if (g.current != nullptr && g.current->poisoned) return CUDA_ERROR_ILLEGAL_ADDRESS;
  return CUDA_SUCCESS;
}

inline CUresult settle() {
  FakeGpu& g = gpu();
  if (g.current == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (g.current->pending != CUDA_SUCCESS) {
    const CUresult r = g.current->pending;
    g.current->pending = CUDA_SUCCESS;
    if (cuda::poisons_context(r)) g.current->poisoned = true;
    return r;
  }
  return sticky();
}

inline CUresult init(unsigned) { return gpu().init_fails ? CUDA_ERROR_NO_DEVICE : CUDA_SUCCESS; }
inline CUresult driver_get_version(int* v) {
  *v = 13000;
  return CUDA_SUCCESS;
}
inline CUresult get_error_name(CUresult r, const char** s) {
  switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS: *s = "CUDA_ERROR_ILLEGAL_ADDRESS"; break;
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: *s = "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"; break;
    case CUDA_ERROR_INVALID_VALUE: *s = "CUDA_ERROR_INVALID_VALUE"; break;
    case CUDA_ERROR_NO_DEVICE: *s = "CUDA_ERROR_NO_DEVICE"; break;
    default: *s = "CUDA_ERROR_FAKE"; break;
  }
  return CUDA_SUCCESS;
}
inline CUresult get_error_string(CUresult, const char** s) {
  *s = "fake driver error";
  return CUDA_SUCCESS;
}
inline CUresult device_get_count(int* n) {
  *n = static_cast<int>(gpu().names.size());
  return CUDA_SUCCESS;
}
inline CUresult device_get(CUdevice* d, int ordinal) {
  if (ordinal < 0 || ordinal >= static_cast<int>(gpu().names.size())) {
    return CUDA_ERROR_INVALID_DEVICE;
  }
  *d = ordinal;
  return CUDA_SUCCESS;
}
inline CUresult device_get_name(char* name, int len, CUdevice d) {
  std::strncpy(name, gpu().names.at(static_cast<std::size_t>(d)).c_str(),
               static_cast<std::size_t>(len) - 1);
  name[len - 1] = '\0';
  return CUDA_SUCCESS;
}
inline CUresult device_get_attribute(int* v, CUdevice_attribute a, CUdevice) {
  const FakeGpu& g = gpu();
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = g.compute_major; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = g.compute_minor; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = g.max_threads_per_block; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *v = 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *v = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *v = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *v = g.shared_per_block; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
      *v = g.shared_per_block_optin;
      break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *v = g.l2_bytes; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; break;
    default: *v = 65536; break;
  }
  return CUDA_SUCCESS;
}
inline CUresult device_total_mem(std::size_t* bytes, CUdevice) {
  *bytes = std::size_t{80} << 30U;
  return CUDA_SUCCESS;
}
inline CUresult device_get_pci_bus_id(char* bus, int len, CUdevice) {
  std::strncpy(bus, "0000:00:00.0", static_cast<std::size_t>(len) - 1);
  return CUDA_SUCCESS;
}
inline CUresult ctx_create(CUcontext* c, CUctxCreateParams*, unsigned, CUdevice) {
  FakeGpu& g = gpu();
  g.contexts.push_back(std::make_unique<FakeGpu::Context>());
  g.current = g.contexts.back().get();
  *c = reinterpret_cast<CUcontext>(g.current);
  ++g.contexts_created;
  return CUDA_SUCCESS;
}
inline CUresult ctx_destroy(CUcontext c) {
  FakeGpu& g = gpu();
  if (g.current == reinterpret_cast<FakeGpu::Context*>(c)) g.current = nullptr;
  ++g.contexts_destroyed;
  return CUDA_SUCCESS;
}
inline CUresult ctx_set_current(CUcontext c) {
  gpu().current = reinterpret_cast<FakeGpu::Context*>(c);
  return CUDA_SUCCESS;
}
inline CUresult ctx_synchronize() { return settle(); }
inline CUresult module_load_data(CUmodule* m, const void* image) {
  if (image == nullptr) return CUDA_ERROR_INVALID_IMAGE;
  if (const CUresult r = sticky(); r != CUDA_SUCCESS) return r;
  *m = reinterpret_cast<CUmodule>(new Module);
  ++gpu().modules_loaded;
  return CUDA_SUCCESS;
}
inline CUresult module_unload(CUmodule m) {
  delete reinterpret_cast<Module*>(m);
  return CUDA_SUCCESS;
}
inline CUresult module_get_function(CUfunction* f, CUmodule m, const char* name) {
  if (const CUresult r = sticky(); r != CUDA_SUCCESS) return r;
  auto* module = reinterpret_cast<Module*>(m);
  module->functions.emplace_back(name);
  gpu().functions_asked.emplace_back(name);
  *f = reinterpret_cast<CUfunction>(&module->functions.back());
  return CUDA_SUCCESS;
}
inline CUresult func_get_attribute(int* v, CUfunction_attribute a, CUfunction) {
  const FakeGpu& g = gpu();
  switch (a) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = g.function_max_threads; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *v = g.function_registers; break;
    default: *v = 0; break;
  }
  return CUDA_SUCCESS;
}
inline CUresult func_set_attribute(CUfunction, CUfunction_attribute, int) { return CUDA_SUCCESS; }
inline CUresult launch_kernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                              unsigned by, unsigned bz, unsigned shared, CUstream, void** params,
                              void**) {
  FakeGpu& g = gpu();
  if (const CUresult r = sticky(); r != CUDA_SUCCESS) return r;
  FakeLaunch launch;
  launch.function = *reinterpret_cast<std::string*>(f);
  launch.grid[0] = gx, launch.grid[1] = gy, launch.grid[2] = gz;
  launch.block[0] = bx, launch.block[1] = by, launch.block[2] = bz;
  launch.shared = shared;
  launch.params = params;
  ++g.launches;
  double seconds = 1e-3;
  const CUresult r = g.kernel ? g.kernel(launch, seconds) : CUDA_SUCCESS;
  g.clock += seconds;
  if (r == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES || r == CUDA_ERROR_INVALID_VALUE) return r;
  if (r != CUDA_SUCCESS) g.current->pending = r;
  return CUDA_SUCCESS;
}
inline CUresult mem_alloc(CUdeviceptr* p, std::size_t bytes) {
  if (const CUresult r = sticky(); r != CUDA_SUCCESS) return r;
  *p = static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(std::calloc(bytes, 1)));
  ++gpu().live_allocations;
  return CUDA_SUCCESS;
}
inline CUresult mem_free(CUdeviceptr p) {
  std::free(reinterpret_cast<void*>(static_cast<std::uintptr_t>(p)));
  --gpu().live_allocations;
  return CUDA_SUCCESS;
}
inline CUresult memcpy_htod(CUdeviceptr dst, const void* src, std::size_t bytes) {
  if (const CUresult r = settle(); r != CUDA_SUCCESS) return r;
  std::memcpy(reinterpret_cast<void*>(static_cast<std::uintptr_t>(dst)), src, bytes);
  return CUDA_SUCCESS;
}
inline CUresult memcpy_dtoh(void* dst, CUdeviceptr src, std::size_t bytes) {
  if (const CUresult r = settle(); r != CUDA_SUCCESS) return r;
  std::memcpy(dst, reinterpret_cast<const void*>(static_cast<std::uintptr_t>(src)), bytes);
  return CUDA_SUCCESS;
}
inline CUresult memset_d8_async(CUdeviceptr p, unsigned char v, std::size_t n, CUstream) {
  if (const CUresult r = sticky(); r != CUDA_SUCCESS) return r;
  std::memset(reinterpret_cast<void*>(static_cast<std::uintptr_t>(p)), v, n);
  ++gpu().memsets;
  return CUDA_SUCCESS;
}
inline CUresult stream_create(CUstream* s, unsigned) {
  *s = reinterpret_cast<CUstream>(new int(0));
  return CUDA_SUCCESS;
}
inline CUresult stream_destroy(CUstream s) {
  delete reinterpret_cast<int*>(s);
  return CUDA_SUCCESS;
}
inline CUresult stream_synchronize(CUstream) { return settle(); }
inline CUresult event_create(CUevent* e, unsigned) {
  *e = reinterpret_cast<CUevent>(new Event);
  return CUDA_SUCCESS;
}
inline CUresult event_destroy(CUevent e) {
  delete reinterpret_cast<Event*>(e);
  return CUDA_SUCCESS;
}
inline CUresult event_record(CUevent e, CUstream) {
  if (const CUresult r = sticky(); r != CUDA_SUCCESS) return r;
  reinterpret_cast<Event*>(e)->time = gpu().clock;
  return CUDA_SUCCESS;
}
inline CUresult event_synchronize(CUevent) { return settle(); }
inline CUresult event_elapsed_time(float* ms, CUevent start, CUevent stop) {
  if (const CUresult r = sticky(); r != CUDA_SUCCESS) return r;
  *ms = static_cast<float>(
      (reinterpret_cast<Event*>(stop)->time - reinterpret_cast<Event*>(start)->time) * 1e3);
  return CUDA_SUCCESS;
}

}  // namespace fake_detail

/// The fake's entry points, as the runner's table.
inline const cuda::DriverApi& fake_driver() {
  static const cuda::DriverApi api = [] {
    namespace f = fake_detail;
    cuda::DriverApi a;
    a.init = f::init;
    a.driver_get_version = f::driver_get_version;
    a.get_error_name = f::get_error_name;
    a.get_error_string = f::get_error_string;
    a.device_get_count = f::device_get_count;
    a.device_get = f::device_get;
    a.device_get_name = f::device_get_name;
    a.device_get_attribute = f::device_get_attribute;
    a.device_total_mem = f::device_total_mem;
    a.device_get_pci_bus_id = f::device_get_pci_bus_id;
    a.ctx_create = f::ctx_create;
    a.ctx_destroy = f::ctx_destroy;
    a.ctx_set_current = f::ctx_set_current;
    a.ctx_synchronize = f::ctx_synchronize;
    a.module_load_data = f::module_load_data;
    a.module_unload = f::module_unload;
    a.module_get_function = f::module_get_function;
    a.func_get_attribute = f::func_get_attribute;
    a.func_set_attribute = f::func_set_attribute;
    a.launch_kernel = f::launch_kernel;
    a.mem_alloc = f::mem_alloc;
    a.mem_free = f::mem_free;
    a.memcpy_htod = f::memcpy_htod;
    a.memcpy_dtoh = f::memcpy_dtoh;
    a.memset_d8_async = f::memset_d8_async;
    a.stream_create = f::stream_create;
    a.stream_destroy = f::stream_destroy;
    a.stream_synchronize = f::stream_synchronize;
    a.event_create = f::event_create;
    a.event_destroy = f::event_destroy;
    a.event_record = f::event_record;
    a.event_synchronize = f::event_synchronize;
    a.event_elapsed_time = f::event_elapsed_time;
    return a;
  }();
  return api;
}

/// Installs `gpu` as the fake driver's GPU for the scope of this object.
class FakeGpuScope {
 public:
  explicit FakeGpuScope(FakeGpu& gpu) { fake_gpu() = &gpu; }
  FakeGpuScope(const FakeGpuScope&) = delete;
  FakeGpuScope& operator=(const FakeGpuScope&) = delete;
  ~FakeGpuScope() { fake_gpu() = nullptr; }
};

}  // namespace aoe::test

#endif  // AOE_TESTS_CUDA_FAKE_DRIVER_HPP
