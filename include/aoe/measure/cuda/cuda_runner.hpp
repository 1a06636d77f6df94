// Runner<device::Cuda>: compiles a CUDA kernel per configuration with NVRTC (-D macros and
// template arguments), loads it through the driver API and times it with CUDA events on one
// NVIDIA GPU. docs/cuda.md.
#ifndef AOE_MEASURE_CUDA_CUDA_RUNNER_HPP
#define AOE_MEASURE_CUDA_CUDA_RUNNER_HPP

#include "aoe/config/environment.hpp"
#include "aoe/core/error.hpp"
#include "aoe/measure/cuda/cuda_error.hpp"
#include "aoe/measure/cuda/device.hpp"
#include "aoe/measure/cuda/driver_api.hpp"
#include "aoe/measure/cuda/driver_library.hpp"
#include "aoe/measure/cuda/gpu_settings.hpp"
#include "aoe/measure/cuda/kernel.hpp"
#include "aoe/measure/cuda/nvml.hpp"
#include "aoe/measure/cuda/nvrtc_compiler.hpp"
#include "aoe/measure/kernel/build_queue.hpp"
#include "aoe/measure/kernel/check.hpp"
#include "aoe/measure/kernel/timing.hpp"
#include "aoe/measure/runner.hpp"
#include "aoe/measure/statistics.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/concepts.hpp"
#include "aoe/vocab/measurement.hpp"

#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace aoe {

/// How the CUDA runner measures. Aggregate: `aoe::CudaOptions{.repetitions = 7}`.
struct CudaOptions {
  std::size_t warmup = 1;                   ///< untimed runs before the timed ones
  std::size_t repetitions = 7;              ///< timed runs (at least one), as Kernel Tuner's
  Statistic statistic = Statistic::median;  ///< how the event times become the value
  /// A run longer than this many times the best value so far ends the configuration with
  /// status `timeout` (0: off). A launched kernel cannot be interrupted: the remaining runs
  /// are skipped.
  double timeout_factor = 10;
  double min_timeout = 0.05;  ///< seconds below which the adaptive timeout never fires
  /// A run longer than this many seconds is a `timeout` whatever the best so far (0: off).
  double time_limit = 0;
  /// Write a buffer of twice the L2 cache before each timed run, so that no run finds its
  /// inputs in L2 from the run before (Kernel Tuner's `flush_l2`; off: warm-cache timing).
  bool flush_l2 = false;
  /// Threads compiling the batch's kernels with NVRTC while the stream measures.
  /// 0: TUNING_PARALLEL_NUM (default 8), at most the batch size.
  std::size_t compile_threads = 0;
  /// Compiled kernels kept for reuse within a run (a configuration whose options and template
  /// arguments were compiled before is not compiled again).
  std::size_t module_cache = 128;
  /// The objective from the statistic's seconds (empty: the seconds). Minimised: to maximise
  /// GFLOP/s return its negative or, when the work does not depend on the configuration, keep
  /// the time (the same order).
  std::function<double(double seconds, const cuda::Params&)> objective{};
  std::size_t max_log = 4000;  ///< characters of NVRTC's log kept in a failure's message
  /// Energy from NVML's energy counter (read only) around the timed runs: each measurement
  /// then carries the energy per run and the average power. Off by default: the counter moves
  /// in steps of tens of milliseconds, so untimed runs fill `energy_window` per configuration.
  bool energy = false;
  double energy_window = 0.2;  ///< seconds the counter spans per configuration, at least
  /// Let the space's clock and power-limit parameters (`nvml_gr_clock` and `nvml_mem_clock` in
  /// MHz, locked; `nvml_pwr_limit` in W: cuda/gpu_settings.hpp) set the GPU through NVML before
  /// each configuration's runs, and put back what was found when the runner is destroyed. Off
  /// by default, and then a space with such a parameter is refused (each configuration fails
  /// saying so): a shared GPU is left as it was found. Setting needs root. docs/cuda.md.
  bool gpu_settings = false;
};

namespace cuda {

/// The NVML entry points a runner uses; each null: the installed NVML's (loaded at run time;
/// the setters only when a space has a clock or power-limit parameter and
/// CudaOptions::gpu_settings is on). Test doubles stand in for them in tests/cuda.
struct NvmlApis {
  const NvmlReadApi* read = nullptr;
  const NvmlControlApi* control = nullptr;
};

/// Where a configuration's measurement time went, and what the GPU was doing (NVML; unknown
/// without it) and what the compiled kernel used.
struct Timing : kernel::Timing {
  GpuState state{};       ///< read right after the timed runs
  int registers = 0;      ///< registers per thread of the compiled kernel (0: not loaded)
  int static_shared = 0;  ///< bytes of static shared memory per block
};

}  // namespace cuda

/// Measures a CUDA kernel (cuda::Kernel) on one GPU. Per configuration: compile with NVRTC for
/// the device's architecture (with the configuration's -D options and template arguments,
/// reused if compiled before), load the module, upload the buffers, run once and verify
/// (`Kernel::checks`), then warm-up and timed runs, each timed by a pair of CUDA events. Every
/// failure is a measurement, never an exception:
///   - NVRTC's error, or a module the driver cannot load: `compile`, with the log;
///   - more threads, shared memory or registers than the compiled kernel can launch with, or a
///     grid or block over the device's limits: `runtime` ("too many resources requested for
///     launch"), without launching;
///   - a launch or execution error: `runtime`, with the driver's error name. A fault that
///     poisons the context (an illegal address, ...) makes the runner replace the context, and
///     the next configuration runs normally;
///   - a wrong output: `correctness`; a run past the time limit: `timeout`.
/// Compiles the batch's kernels on several threads (CudaOptions::compile_threads) while the
/// stream measures; set the tuner's batch size (TunerOptions::batch_size) to let it.
template <>
class Runner<device::Cuda> {
 public:
  /// The device given by AOE_CUDA_DEVICE (device 0 when unset or when the environment cannot
  /// be read).
  [[nodiscard]] static cuda::DeviceSelection default_selection() {
    auto env = read_environment();
    return env ? cuda::DeviceSelection::from(*env) : cuda::DeviceSelection{};
  }

  /// The device `selection` names on the installed driver. Errors: no driver or no such device
  /// (`not_found`), a driver too old (`unsupported`), a driver failure (`device_error`).
  [[nodiscard]] static Result<cuda::DeviceInfo> probe(
      const cuda::DeviceSelection& selection = default_selection()) {
    auto api = cuda::real_driver();
    if (!api) return api.error();
    return cuda::find_device(**api, selection);
  }

  /// Opens the device on the installed driver and allocates the kernel's buffers. Errors: as
  /// `probe`, and a check naming a scalar or of the wrong size (`invalid_argument`); each
  /// message says which.
  [[nodiscard]] static Result<Runner> open(
      cuda::Kernel kernel, CudaOptions options = {},
      const cuda::DeviceSelection& selection = default_selection()) {
    auto api = cuda::real_driver();
    if (!api) return api.error();
    return open_with(**api, std::move(kernel), std::move(options), selection);
  }

  /// As `open`, on the driver entry points `api` and the NVML entry points `nvml` (test
  /// doubles; they must outlive the runner; a null NVML table: the installed NVML's).
  [[nodiscard]] static Result<Runner> open_with(const cuda::DriverApi& api, cuda::Kernel kernel,
                                                CudaOptions options = {},
                                                const cuda::DeviceSelection& selection = {},
                                                const cuda::NvmlApis& nvml = {}) {
    auto info = cuda::find_device(api, selection);
    if (!info) return info.error();
    Runner r(api, std::move(kernel), std::move(options), std::move(*info), nvml);
    if (auto err = r.initialise()) return *err;
    return r;
  }

  /// As `open`, throwing `aoe::Error` on failure.
  explicit Runner(cuda::Kernel kernel, CudaOptions options = {},
                  const cuda::DeviceSelection& selection = default_selection())
      : Runner(open_or_throw(std::move(kernel), std::move(options), selection)) {}

  Runner(Runner&&) noexcept = default;
  Runner& operator=(Runner&&) noexcept = default;
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;
  ~Runner() = default;

  [[nodiscard]] std::vector<Measurement> measure(SpaceView view,
                                                 std::span<const Configuration> batch) {
    const Space& space = view.space();
    std::vector<Measurement> out;
    out.reserve(batch.size());
    timings_.assign(batch.size(), {});
    if (auto refused = gpu_settings_refusal(space)) {
      out.assign(batch.size(), Measurement::failure(Status::runtime, *refused));
      return out;
    }
    (void)state_->api->ctx_set_current(state_->context);  // this thread measures
    const auto compiles = start_compiles(space, batch);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      out.push_back(measure_one(space, batch[i], compiles.slots[i], timings_[i]));
    }
    return out;
  }

  /// The device measured on; its `key()` belongs in the tuning key (TuningKey::device).
  [[nodiscard]] const cuda::DeviceInfo& device() const noexcept { return info_; }
  /// NVRTC's target: "sm_90" (a CUBIN), or "compute_XY" (PTX) for a device NVRTC does not know.
  [[nodiscard]] const std::string& architecture() const noexcept { return architecture_; }
  [[nodiscard]] const CudaOptions& options() const noexcept { return options_; }
  [[nodiscard]] const cuda::Kernel& kernel() const noexcept { return kernel_; }
  /// The best time measured so far, in seconds (the adaptive timeout's reference).
  [[nodiscard]] double best() const noexcept { return best_; }
  /// Where the time of each configuration of the last batch went, in batch order.
  [[nodiscard]] const std::vector<cuda::Timing>& timings() const noexcept { return timings_; }
  /// Kernels compiled so far (a reused one is counted once).
  [[nodiscard]] std::size_t compiles() const noexcept { return state_->compiled.builds(); }
  /// Contexts created so far: 1, plus one per context a fault poisoned.
  [[nodiscard]] std::size_t contexts() const noexcept { return state_->contexts; }
  /// Whether NVML reads this device's clocks, temperature and power.
  [[nodiscard]] bool has_gpu_state() const noexcept { return state_->nvml.available(); }
  /// The device's state now (unknown values without NVML).
  [[nodiscard]] cuda::GpuState gpu_state() const { return state_->nvml.read(); }
  /// With CudaOptions::gpu_settings, once a space with a clock or power-limit parameter was
  /// measured: the GPU's settings in force and what will be put back; else null.
  [[nodiscard]] const cuda::GpuSettings* gpu_settings() const noexcept {
    return state_->settings ? &*state_->settings : nullptr;
  }

 private:
  using Clock = std::chrono::steady_clock;
  using Compiles = kernel::BuildQueue<cuda::Compiled>;
  using Slot = Compiles::Slot;

  // What the driver holds for this runner: one context, one stream, the events, the buffers and
  // the modules loaded in it. Replaced whole when a fault poisons the context. Held by pointer,
  // so that a moved runner keeps its context.
  struct State {
    const cuda::DriverApi* api = nullptr;
    CUdevice device = 0;
    CUcontext context = nullptr;
    CUstream stream = nullptr;
    CUevent start = nullptr;
    CUevent stop = nullptr;
    std::vector<CUdeviceptr> buffers;  // one per argument (0 for scalars)
    CUdeviceptr flush = 0;             // CudaOptions::flush_l2's buffer
    std::size_t flush_bytes = 0;
    std::unordered_map<std::string, CUmodule> modules;  // by compile key, in this context
    Compiles compiled;  // compiled images by key: they outlive a context
    std::size_t contexts = 0;
    cuda::Nvml nvml;
    const cuda::NvmlControlApi* control_api = nullptr;  // null: the installed NVML's setters
    std::optional<cuda::GpuSettings> settings;          // opened by the first space that asks

    State(const cuda::DriverApi& a, std::size_t cache, const std::string& bus,
          const cuda::NvmlApis& apis)
        : api(&a),
          compiled(cache),
          nvml(apis.read != nullptr ? apis.read : cuda::real_nvml_read(), bus),
          control_api(apis.control) {}
    State(const State&) = delete;
    State& operator=(const State&) = delete;
    ~State() { release(); }

    // Frees everything in the context and destroys it; errors are ignored (a poisoned context
    // fails them all).
    void release() noexcept {
      if (context == nullptr) return;
      (void)api->ctx_set_current(context);
      for (auto& [key, module] : modules) (void)api->module_unload(module);
      modules.clear();
      for (const CUdeviceptr b : buffers) {
        if (b != 0) (void)api->mem_free(b);
      }
      buffers.clear();
      if (flush != 0) (void)api->mem_free(flush);
      flush = 0;
      if (start != nullptr) (void)api->event_destroy(start);
      if (stop != nullptr) (void)api->event_destroy(stop);
      if (stream != nullptr) (void)api->stream_destroy(stream);
      start = stop = nullptr;
      stream = nullptr;
      (void)api->ctx_destroy(context);
      context = nullptr;
    }
  };

  Runner(const cuda::DriverApi& api, cuda::Kernel kernel, CudaOptions options,
         cuda::DeviceInfo info, const cuda::NvmlApis& nvml)
      : kernel_(std::move(kernel)),
        options_(std::move(options)),
        info_(std::move(info)),
        architecture_(cuda::target_architecture(info_.compute_major, info_.compute_minor)),
        state_(std::make_unique<State>(api, options_.module_cache, info_.pci_bus_id, nvml)) {}

  static Runner open_or_throw(cuda::Kernel kernel, CudaOptions options,
                              const cuda::DeviceSelection& selection) {
    auto r = open(std::move(kernel), std::move(options), selection);
    if (!r) throw Error(r.error());
    return std::move(*r);
  }

  [[nodiscard]] std::string driver_error(CUresult r) const {
    return cuda::error_name(*state_->api, r);
  }

  std::optional<ErrorInfo> initialise() {
    if (auto e = kernel::validate_checks(kernel_.name, kernel_.arguments, kernel_.checks)) {
      return e;
    }
    for (std::size_t i = 0; i < kernel_.arguments.size(); ++i) {
      if (kernel::is_buffer(kernel_.arguments[i]) &&
          kernel::element_count(kernel_.arguments[i]) == 0) {
        return make_error(Errc::invalid_argument, "kernel '" + kernel_.name + "': argument " +
                                                      std::to_string(i) +
                                                      " is an empty vector (a buffer needs data)");
      }
    }
    if (!kernel_.grid || !kernel_.block) {
      return make_error(Errc::invalid_argument,
                        "kernel '" + kernel_.name + "': no " +
                            (!kernel_.grid ? "grid (Kernel::grid)" : "block (Kernel::block)"));
    }
    if (const CUresult r = state_->api->device_get(&state_->device, info_.ordinal);
        r != CUDA_SUCCESS) {
      return make_error(Errc::device_error,
                        "CUDA device " + std::to_string(info_.ordinal) + ": " + driver_error(r));
    }
    return new_context();
  }

  // Creates the context, the stream, the events and the buffers (after a fault: again).
  std::optional<ErrorInfo> new_context() {
    State& s = *state_;
    s.release();
    const cuda::DriverApi& api = *s.api;
    const auto fail = [&](const std::string& what, CUresult r) {
      return make_error(Errc::device_error, what + " on " + info_.key() + ": " + driver_error(r));
    };
    if (const CUresult r = api.ctx_create(&s.context, nullptr, 0, s.device); r != CUDA_SUCCESS) {
      s.context = nullptr;
      return fail("creating a CUDA context", r);
    }
    ++s.contexts;
    (void)api.ctx_set_current(s.context);
    if (const CUresult r = api.stream_create(&s.stream, CU_STREAM_NON_BLOCKING);
        r != CUDA_SUCCESS) {
      return fail("creating a stream", r);
    }
    for (CUevent* e : {&s.start, &s.stop}) {
      if (const CUresult r = api.event_create(e, CU_EVENT_DEFAULT); r != CUDA_SUCCESS) {
        return fail("creating an event", r);
      }
    }
    s.buffers.assign(kernel_.arguments.size(), 0);
    for (std::size_t i = 0; i < kernel_.arguments.size(); ++i) {
      if (!kernel::is_buffer(kernel_.arguments[i])) continue;
      const std::size_t bytes = kernel::byte_size(kernel_.arguments[i]);
      if (const CUresult r = api.mem_alloc(&s.buffers[i], bytes); r != CUDA_SUCCESS) {
        s.buffers[i] = 0;
        return fail(
            "allocating " + std::to_string(bytes) + " bytes for argument " + std::to_string(i), r);
      }
    }
    if (options_.flush_l2 && info_.l2_bytes > 0) {
      s.flush_bytes = 2 * info_.l2_bytes;
      if (const CUresult r = api.mem_alloc(&s.flush, s.flush_bytes); r != CUDA_SUCCESS) {
        s.flush = 0;
        return fail("allocating the L2 flush buffer", r);
      }
    }
    return std::nullopt;
  }

  // Why the configurations of `space` cannot be measured, when it has a parameter that sets the
  // GPU: the opt-in is off, or NVML's setters cannot be opened (then each batch tries again).
  std::optional<std::string> gpu_settings_refusal(const Space& space) {
    const auto parameter = cuda::gpu_setting_parameter(space);
    if (!parameter || state_->settings) return std::nullopt;
    if (!options_.gpu_settings) {
      return "parameter '" + *parameter +
             "' sets the GPU's clocks or power limit, and CudaOptions::gpu_settings is off: a "
             "shared GPU is left as it was found (opt in only on a GPU that is yours to change; "
             "docs/cuda.md, \"Clocks and power limits\")";
    }
    const cuda::NvmlControlApi* api = state_->control_api;
    if (api == nullptr) {
      auto real = cuda::real_nvml_control();
      if (!real) return "parameter '" + *parameter + "': " + real.error().message;
      api = *real;
    }
    auto opened = cuda::GpuSettings::open(*api, info_.pci_bus_id);
    if (!opened) return "parameter '" + *parameter + "': " + opened.error().message;
    state_->settings.emplace(std::move(*opened));
    return std::nullopt;
  }

  // Sets what configuration `c` asks of the GPU (CudaOptions::gpu_settings); a value NVML
  // refuses fails the configuration, as a launch the device refuses does.
  std::optional<Measurement> apply_gpu_settings(const Space& space, const Configuration& c) {
    if (!state_->settings) return std::nullopt;
    const auto request = cuda::gpu_settings_of(space, c);
    if (!request) return Measurement::failure(Status::runtime, request.error().message);
    if (auto err = state_->settings->apply(*request)) {
      return Measurement::failure(Status::runtime, *err);
    }
    return std::nullopt;
  }

  // Starts the NVRTC compiles of the batch's configurations that are not cached; they overlap
  // the measurements (the GPU, not the CPU, runs the timed kernels).
  Compiles::Batch start_compiles(const Space& space, std::span<const Configuration> batch) {
    std::vector<Compiles::Request> requests;
    requests.reserve(batch.size());
    for (const auto& c : batch) {
      std::string expression = cuda::name_expression(kernel_, space, c);
      std::vector<std::string> options = cuda::compile_options(kernel_, space, c);
      std::string key = expression;
      for (const auto& o : options) key += '\n' + o;
      requests.push_back({std::move(key), [this, expression, options]() {
                            return cuda::compile(kernel_.source, expression, options, architecture_,
                                                 options_.max_log);
                          }});
    }
    std::size_t threads = options_.compile_threads;
    if (threads == 0) {
      auto env = read_environment();
      threads = env ? static_cast<std::size_t>(env->tuning_parallel_num) : 8;
    }
    return state_->compiled.start(std::move(requests), threads, false);
  }

  // The kernel's function in the current context: its module loaded once per context. A module
  // the driver refuses is a `compile` failure.
  std::optional<Measurement> function(const std::string& key, const cuda::Compiled& compiled,
                                      CUfunction& f) {
    State& s = *state_;
    auto it = s.modules.find(key);
    if (it == s.modules.end()) {
      CUmodule module = nullptr;
      if (const CUresult r = s.api->module_load_data(&module, compiled.image.data());
          r != CUDA_SUCCESS) {
        return Measurement::failure(Status::compile,
                                    "loading the compiled module: " + driver_error(r));
      }
      it = s.modules.emplace(key, module).first;
    }
    if (const CUresult r =
            s.api->module_get_function(&f, it->second, compiled.lowered_name.c_str());
        r != CUDA_SUCCESS) {
      return Measurement::failure(Status::compile, "no function '" + compiled.lowered_name +
                                                       "' in the module: " + driver_error(r));
    }
    return std::nullopt;
  }

  // The launch a configuration asks for, checked against the device's and the compiled
  // kernel's limits before anything runs.
  struct Launch {
    CUfunction function = nullptr;
    kernel::Range grid, block;
    std::size_t shared = 0;
  };

  std::optional<Measurement> prepare(Launch& launch, const cuda::Params& params,
                                     cuda::Timing& timing) {
    const cuda::DriverApi& api = *state_->api;
    launch.grid = kernel_.grid(params);
    launch.block = kernel_.block(params);
    launch.shared = kernel_.shared_memory_bytes ? kernel_.shared_memory_bytes(params) : 0;
    const auto refuse = [&](const std::string& why) {
      return Measurement::failure(Status::runtime,
                                  "too many resources requested for launch: " + why + " on " +
                                      info_.key() + " (not launched)");
    };
    for (std::size_t d = 0; d < 3; ++d) {
      const auto max_block = static_cast<std::size_t>(info_.max_block_dims[d]);
      const auto max_grid = static_cast<std::size_t>(info_.max_grid_dims[d]);
      if (launch.block.size[d] == 0 || launch.grid.size[d] == 0) {
        return Measurement::failure(Status::runtime,
                                    "an empty grid or block (dimension " + std::to_string(d) + ")");
      }
      if (launch.block.size[d] > max_block) {
        return refuse("block dimension " + std::to_string(d) + " of " +
                      std::to_string(launch.block.size[d]) + " threads, at most " +
                      std::to_string(max_block));
      }
      if (launch.grid.size[d] > max_grid) {
        return refuse("grid dimension " + std::to_string(d) + " of " +
                      std::to_string(launch.grid.size[d]) + " blocks, at most " +
                      std::to_string(max_grid));
      }
    }
    int max_threads = 0;
    int static_shared = 0;
    (void)api.func_get_attribute(&timing.registers, CU_FUNC_ATTRIBUTE_NUM_REGS, launch.function);
    (void)api.func_get_attribute(&static_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                 launch.function);
    timing.static_shared = static_shared;
    if (api.func_get_attribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                               launch.function) != CUDA_SUCCESS) {
      max_threads = info_.max_threads_per_block;
    }
    const std::size_t threads = launch.block.items();
    if (threads > static_cast<std::size_t>(max_threads)) {
      return refuse("a block of " + std::to_string(threads) + " threads; this kernel (" +
                    std::to_string(timing.registers) + " registers per thread) allows at most " +
                    std::to_string(max_threads));
    }
    const std::size_t shared = launch.shared + static_cast<std::size_t>(static_shared);
    if (shared > info_.shared_memory_per_block_optin) {
      return refuse(std::to_string(shared) + " bytes of shared memory per block, at most " +
                    std::to_string(info_.shared_memory_per_block_optin));
    }
    if (launch.shared > 0 && shared > info_.shared_memory_per_block) {
      if (const CUresult r = api.func_set_attribute(launch.function,
                                                    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                    static_cast<int>(launch.shared));
          r != CUDA_SUCCESS) {
        return refuse("opting in to " + std::to_string(launch.shared) +
                      " bytes of dynamic shared memory: " + driver_error(r));
      }
    }
    return std::nullopt;
  }

  // Uploads every buffer from its host vector.
  CUresult upload() {
    const State& s = *state_;
    for (std::size_t i = 0; i < kernel_.arguments.size(); ++i) {
      const auto& a = kernel_.arguments[i];
      if (!kernel::is_buffer(a)) continue;
      if (const CUresult r =
              s.api->memcpy_htod(s.buffers[i], kernel::data(a), kernel::byte_size(a));
          r != CUDA_SUCCESS) {
        return r;
      }
    }
    return CUDA_SUCCESS;
  }

  // One launch between two events (after writing the L2 flush buffer when `flush`), waited
  // for; its event time in `seconds`. A failure is returned (recover() then finds out whether
  // it left the context unusable).
  /// The energy of one run: NVML's counter from before the timed runs (`joules_before`, at
  /// `since`) to now, after untimed runs (not flushed) that stretch the window to
  /// `energy_window`, over the runs made; none where the counter cannot be read or a run fails.
  std::optional<Energy> energy_since(double joules_before, Clock::time_point since,
                                     std::size_t runs, const Launch& launch) {
    const auto window = [&] { return std::chrono::duration<double>(Clock::now() - since).count(); };
    while (window() < options_.energy_window) {
      double t = 0;
      if (run(launch, t, false)) return std::nullopt;
      ++runs;
    }
    const auto after = state_->nvml.energy_joules();
    const double seconds = window();
    if (!after || *after < joules_before || runs == 0) return std::nullopt;
    const double joules = *after - joules_before;
    return Energy{joules / static_cast<double>(runs), joules / seconds, TimingKind::measured};
  }

  std::optional<Measurement> run(const Launch& launch, double& seconds, bool flush) {
    const State& s = *state_;
    const cuda::DriverApi& api = *s.api;
    std::vector<void*> args(kernel_.arguments.size());
    for (std::size_t i = 0; i < kernel_.arguments.size(); ++i) {
      const auto& a = kernel_.arguments[i];
      args[i] = kernel::is_buffer(a) ? static_cast<void*>(const_cast<CUdeviceptr*>(&s.buffers[i]))
                                     : const_cast<void*>(kernel::data(a));
    }
    CUresult r = CUDA_SUCCESS;
    if (flush && s.flush != 0) r = api.memset_d8_async(s.flush, 0, s.flush_bytes, s.stream);
    if (r == CUDA_SUCCESS) r = api.event_record(s.start, s.stream);
    if (r == CUDA_SUCCESS) {
      r = api.launch_kernel(
          launch.function, static_cast<unsigned>(launch.grid.size[0]),
          static_cast<unsigned>(launch.grid.size[1]), static_cast<unsigned>(launch.grid.size[2]),
          static_cast<unsigned>(launch.block.size[0]), static_cast<unsigned>(launch.block.size[1]),
          static_cast<unsigned>(launch.block.size[2]), static_cast<unsigned>(launch.shared),
          s.stream, args.data(), nullptr);
      if (r != CUDA_SUCCESS) return launch_failure("launching", r);
    }
    if (r == CUDA_SUCCESS) r = api.event_record(s.stop, s.stream);
    if (r == CUDA_SUCCESS) r = api.event_synchronize(s.stop);
    float ms = 0;
    if (r == CUDA_SUCCESS) r = api.event_elapsed_time(&ms, s.start, s.stop);
    if (r != CUDA_SUCCESS) return launch_failure("running", r);
    seconds = static_cast<double>(ms) * 1e-3;
    return std::nullopt;
  }

  Measurement launch_failure(const std::string& what, CUresult r) {
    return Measurement::failure(Status::runtime,
                                what + " '" + kernel_.name + "': " + driver_error(r));
  }

  CUresult read_back(std::size_t argument, std::vector<double>& out) {
    const State& s = *state_;
    const auto& a = kernel_.arguments[argument];
    std::vector<unsigned char> bytes(kernel::byte_size(a));
    const CUresult r = s.api->memcpy_dtoh(bytes.data(), s.buffers[argument], bytes.size());
    if (r == CUDA_SUCCESS) out = kernel::to_doubles(a, bytes.data());
    return r;
  }

  // After a failure: when the context no longer works (a fault poisoned it), a new one
  // replaces it, so that the next configuration runs normally. Says what happened.
  std::string recover() {
    const CUresult r = state_->api->ctx_synchronize();
    if (r == CUDA_SUCCESS) return {};
    if (auto err = new_context()) {
      return "; the context was lost (" + driver_error(r) +
             ") and could not be replaced: " + err->message;
    }
    return "; the context was replaced after " + driver_error(r);
  }

  [[nodiscard]] double timeout() const noexcept {
    return kernel::time_limit(best_, options_.timeout_factor, options_.min_timeout,
                              options_.time_limit);
  }

  std::optional<Measurement> verify() {
    return kernel::verify_outputs(
        kernel_.checks, [this](std::size_t argument, std::vector<double>& out) -> std::string {
          const CUresult r = read_back(argument, out);
          return r == CUDA_SUCCESS ? std::string() : driver_error(r);
        });
  }

  Measurement measure_one(const Space& space, const Configuration& c, const Slot& slot,
                          cuda::Timing& timing) {
    const auto begin = Clock::now();
    const auto since = [](Clock::time_point t) {
      return std::chrono::duration<double>(Clock::now() - t).count();
    };
    const cuda::Params params(space, c);
    cuda::Compiled compiled;
    try {
      compiled = slot.get();
    } catch (const std::exception& e) {
      compiled.message = std::string("compile failed: ") + e.what();
    }
    timing.compile_seconds = compiled.seconds;
    const auto fail = [&](Measurement m) {
      m.message += recover();
      m.cost = compiled.seconds + since(begin);
      return m;
    };
    if (!compiled.ok) return fail(Measurement::failure(Status::compile, compiled.message));
    std::vector<double> samples;
    try {
      std::string key = cuda::name_expression(kernel_, space, c);
      for (const auto& o : cuda::compile_options(kernel_, space, c)) key += '\n' + o;
      Launch launch;
      if (auto m = function(key, compiled, launch.function)) return fail(std::move(*m));
      if (auto m = prepare(launch, params, timing)) return fail(std::move(*m));
      if (auto m = apply_gpu_settings(space, c)) return fail(std::move(*m));
      const auto verify_begin = Clock::now();
      if (const CUresult r = upload(); r != CUDA_SUCCESS) {
        return fail(
            Measurement::failure(Status::runtime, "uploading the arguments: " + driver_error(r)));
      }
      // The first run is checked and counts as warm-up.
      double first = 0;
      if (auto m = run(launch, first, false)) return fail(std::move(*m));
      if (auto m = verify()) return fail(std::move(*m));
      timing.verification_seconds = since(verify_begin);
      const double limit = timeout();
      if (first > limit) return fail(kernel::timeout_failure(first, limit));
      const auto bench_begin = Clock::now();
      const auto joules_before = options_.energy ? state_->nvml.energy_joules() : std::nullopt;
      std::size_t runs = 0;
      if (auto m = kernel::timed_runs(
              options_.warmup, options_.repetitions, limit,
              [&](double& t) {
                ++runs;
                return run(launch, t, options_.flush_l2);
              },
              samples)) {
        return fail(std::move(*m));
      }
      std::optional<Energy> energy;
      if (joules_before) energy = energy_since(*joules_before, bench_begin, runs, launch);
      timing.benchmark_seconds = since(bench_begin);
      timing.state = state_->nvml.read();
      const double seconds = reduce(options_.statistic, samples);
      best_ = std::min(best_, seconds);
      const double value = options_.objective ? options_.objective(seconds, params) : seconds;
      auto m = Measurement::success(value, std::move(samples), compiled.seconds + since(begin));
      m.energy = energy;
      return m;
    } catch (const std::exception& e) {
      Measurement m = Measurement::failure(Status::runtime, e.what());
      m.samples = std::move(samples);
      return fail(std::move(m));
    }
  }

  cuda::Kernel kernel_;
  CudaOptions options_;
  cuda::DeviceInfo info_;
  std::string architecture_;
  std::unique_ptr<State> state_;
  std::vector<cuda::Timing> timings_;
  double best_ = std::numeric_limits<double>::infinity();
};

using CudaRunner = Runner<device::Cuda>;

static_assert(measure_policy<Runner<device::Cuda>>);

}  // namespace aoe

#endif  // AOE_MEASURE_CUDA_CUDA_RUNNER_HPP
