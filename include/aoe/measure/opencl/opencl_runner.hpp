// Runner<device::OpenCL>: builds a kernel per configuration (-D NAME=VALUE) and times it with
// profiling events on any OpenCL device.
#ifndef AOE_MEASURE_OPENCL_OPENCL_RUNNER_HPP
#define AOE_MEASURE_OPENCL_OPENCL_RUNNER_HPP

#include "aoe/config/environment.hpp"
#include "aoe/core/error.hpp"
#include "aoe/measure/kernel/build_queue.hpp"
#include "aoe/measure/kernel/check.hpp"
#include "aoe/measure/kernel/timing.hpp"
#include "aoe/measure/opencl/detail/cl.hpp"
#include "aoe/measure/opencl/device.hpp"
#include "aoe/measure/opencl/kernel.hpp"
#include "aoe/measure/opencl/opencl_error.hpp"
#include "aoe/measure/rapl.hpp"
#include "aoe/measure/runner.hpp"
#include "aoe/measure/statistics.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/concepts.hpp"
#include "aoe/vocab/measurement.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <future>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace aoe {

/// How the OpenCL runner measures. Aggregate: `aoe::OpenCLOptions{.repetitions = 7}`.
struct OpenCLOptions {
  std::size_t warmup = 1;                   ///< untimed runs before the timed ones
  std::size_t repetitions = 5;              ///< timed runs (at least one)
  Statistic statistic = Statistic::median;  ///< how the event times become the value
  /// A run longer than this many times the best value so far ends the configuration with
  /// status `timeout` (0: off). A launched kernel cannot be interrupted: the remaining runs
  /// are skipped.
  double timeout_factor = 10;
  double min_timeout = 0.05;  ///< seconds below which the adaptive timeout never fires
  /// A run longer than this many seconds is a `timeout` whatever the best so far (0: off).
  double time_limit = 0;
  /// Threads building the programs of a batch (the build dominates on a CPU device: 0.1-0.9 s
  /// per program with PoCL). 0: TUNING_PARALLEL_NUM (default 8), at most the batch size.
  /// On a CPU device the batch is built before it is measured, so that builds never share the
  /// cores with a timed kernel; on other devices builds overlap the measurements.
  std::size_t build_threads = 0;
  /// Programs kept for reuse within a run (a configuration whose build options were built
  /// before is not built again).
  std::size_t program_cache = 128;
  /// The objective from the statistic's seconds (empty: the seconds). Minimised: to maximise
  /// GFLOP/s, return its negative or, when the work does not depend on the configuration,
  /// keep the time (the same order).
  std::function<double(double seconds, const opencl::Params&)> objective{};
  std::size_t max_log = 4000;  ///< characters of a build log kept in a failure's message
  /// Energy around the timed runs: each valid measurement then carries the energy of one run
  /// and the average power (Measurement::energy, measured). From `energy_meter` where given;
  /// else, on a CPU device (PoCL, a CPU runtime: the device is the host's packages), from the
  /// packages' RAPL counters under `powercap` where they are readable (root only since Linux
  /// 5.10); else unknown (`energy_unavailable()` says why). Off by default: untimed runs fill
  /// `energy_window` per configuration. docs/energy.md.
  bool energy = false;
  double energy_window = 0.01;  ///< seconds the counter spans per configuration, at least
  std::string powercap = "/sys/class/powercap";  ///< where the RAPL counters are
  /// Joules the device has used so far, from a counter of the user's (a GPU's hwmon
  /// `energy1_input`, an external meter); none when it cannot be read now. Empty: RAPL on a CPU
  /// device.
  std::function<std::optional<double>()> energy_meter{};
};

namespace opencl {

/// Where a configuration's measurement time went (seconds), for Kernel Tuner cache files.
using Timing = kernel::Timing;

}  // namespace opencl

/// Measures an OpenCL kernel (opencl::Kernel) on one device. Per configuration: build with the
/// configuration's `-D` options (reused if built before), upload the buffers, run once and
/// verify (`Kernel::checks`), then warm-up and timed runs timed by profiling events. Every
/// failure is a measurement, never an exception, and the context stays usable:
///   - a build error: `compile`, with the build log;
///   - an enqueue or execution error (CL_INVALID_WORK_GROUP_SIZE, CL_OUT_OF_RESOURCES, ...):
///     `runtime`, with the error's name;
///   - a wrong output: `correctness`; a run past the time limit: `timeout`.
/// Runs the batch's builds on several threads (OpenCLOptions::build_threads); set the tuner's
/// batch size (TunerOptions::batch_size) to let it.
template <>
class Runner<device::OpenCL> {
 public:
  /// Opens the device and uploads the kernel's arguments. Errors: no device (`not_found`),
  /// a check naming a scalar or of the wrong size (`invalid_argument`), a driver failure
  /// (`device_error`); each message says which.
  [[nodiscard]] static Result<Runner> open(
      opencl::Kernel kernel, OpenCLOptions options = {},
      opencl::DeviceSelection selection = default_selection()) {
    auto device = opencl::find_device(selection);
    if (!device) return device.error();
    Runner r(std::move(kernel), std::move(options), *device);
    if (auto err = r.initialise()) return *err;
    return r;
  }

  /// As `open`, throwing `aoe::Error` on failure.
  explicit Runner(opencl::Kernel kernel, OpenCLOptions options = {},
                  const opencl::DeviceSelection& selection = default_selection())
      : Runner(open_or_throw(std::move(kernel), std::move(options), selection)) {}

  Runner(Runner&&) noexcept = default;
  Runner& operator=(Runner&&) noexcept = default;
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;
  ~Runner() = default;

  /// The device given by AOE_OPENCL_PLATFORM / AOE_OPENCL_DEVICE (first device when unset or
  /// when the environment cannot be read).
  [[nodiscard]] static opencl::DeviceSelection default_selection() {
    auto env = read_environment();
    return env ? opencl::DeviceSelection::from(*env) : opencl::DeviceSelection{};
  }

  [[nodiscard]] std::vector<Measurement> measure(SpaceView view,
                                                 std::span<const Configuration> batch) {
    const Space& space = view.space();
    const auto builds = start_builds(space, batch);
    std::vector<Measurement> out;
    out.reserve(batch.size());
    timings_.assign(batch.size(), {});
    for (std::size_t i = 0; i < batch.size(); ++i) {
      out.push_back(measure_one(space, batch[i], builds.slots[i], timings_[i]));
    }
    return out;
  }

  /// The device measured on; its name belongs in the tuning key (TuningKey::device).
  [[nodiscard]] const opencl::DeviceInfo& device() const noexcept { return info_; }
  [[nodiscard]] const OpenCLOptions& options() const noexcept { return options_; }
  [[nodiscard]] const opencl::Kernel& kernel() const noexcept { return kernel_; }
  /// The best value measured so far (the adaptive timeout's reference).
  [[nodiscard]] double best() const noexcept { return best_; }
  /// Where the time of each configuration of the last batch went, in batch order.
  [[nodiscard]] const std::vector<opencl::Timing>& timings() const noexcept { return timings_; }
  /// Programs built so far (a reused program is counted once).
  [[nodiscard]] std::size_t builds() const noexcept { return queue_builds_.builds(); }
  /// Whether measurements carry energy (OpenCLOptions::energy, and a meter was found).
  [[nodiscard]] bool measures_energy() const noexcept { return static_cast<bool>(meter_); }
  /// Why they do not, for a person; empty when they do.
  [[nodiscard]] const std::string& energy_unavailable() const noexcept { return no_energy_; }

  /// Runs `kernel` once on this runner's device (its own buffers; no tunable parameters: its
  /// geometry functions get an empty configuration) and returns buffer `argument` afterwards:
  /// a reference output computed by a reference kernel, for `Check::expected`.
  [[nodiscard]] Result<std::vector<double>> run_reference(const opencl::Kernel& kernel,
                                                          std::size_t argument) {
    auto r = open_on(kernel, options_, device_);
    if (!r) return r.error();
    const Space empty;
    const Configuration none;
    const opencl::Params params(empty, none);
    auto built = build_program(*r->context_, r->device_, kernel.source,
                               opencl::build_options(kernel, empty, none), options_.max_log);
    if (!built.ok) return make_error(Errc::invalid_argument, built.message);
    cl::Kernel k;
    if (auto m = r->prepare(built.program, params, k)) {
      return make_error(Errc::device_error,
                        "reference kernel '" + kernel.name + "': " + m->message);
    }
    if (const cl_int err = r->upload(); err != CL_SUCCESS) {
      return make_error(Errc::device_error, "uploading the arguments of reference kernel '" +
                                                kernel.name + "': " + opencl::error_name(err));
    }
    if (auto m = r->run_and_wait(k, params, nullptr)) {
      return make_error(Errc::device_error,
                        "reference kernel '" + kernel.name + "': " + m->message);
    }
    if (argument >= kernel.arguments.size() || !opencl::is_buffer(kernel.arguments[argument])) {
      return make_error(Errc::invalid_argument, "reference kernel '" + kernel.name +
                                                    "': argument " + std::to_string(argument) +
                                                    " is not a buffer");
    }
    std::vector<double> out;
    if (const cl_int err = r->read_back(argument, out); err != CL_SUCCESS) {
      return make_error(Errc::device_error,
                        "reading the reference output: " + opencl::error_name(err));
    }
    return out;
  }

 private:
  using Clock = std::chrono::steady_clock;

  struct Built {
    bool ok = false;
    cl::Program program;
    std::string message;  // why it failed (with the log)
    double seconds = 0;
  };
  using Builds = kernel::BuildQueue<Built>;
  using Slot = Builds::Slot;

  Runner(opencl::Kernel kernel, OpenCLOptions options, cl::Device device)
      : kernel_(std::move(kernel)),
        options_(std::move(options)),
        device_(std::move(device)),
        queue_builds_(options_.program_cache) {}

  static Runner open_or_throw(opencl::Kernel kernel, OpenCLOptions options,
                              const opencl::DeviceSelection& selection) {
    auto r = open(std::move(kernel), std::move(options), selection);
    if (!r) throw Error(Errc::device_error, r.error().message);
    return std::move(*r);
  }

  static Result<Runner> open_on(const opencl::Kernel& kernel, const OpenCLOptions& options,
                                const cl::Device& device) {
    Runner r(kernel, options, device);
    if (auto err = r.initialise()) return *err;
    return r;
  }

  std::optional<ErrorInfo> initialise() {
    info_ = opencl::describe(device_);
    cl_int err = CL_SUCCESS;
    context_ = std::make_shared<cl::Context>(device_, nullptr, nullptr, nullptr, &err);
    if (err != CL_SUCCESS) {
      return make_error(Errc::device_error, "creating an OpenCL context on " + info_.name + ": " +
                                                opencl::error_name(err));
    }
    if (auto e = make_queue()) return e;
    for (std::size_t i = 0; i < kernel_.arguments.size(); ++i) {
      const auto& a = kernel_.arguments[i];
      if (!opencl::is_buffer(a)) {
        buffers_.emplace_back();
        continue;
      }
      const std::size_t bytes = std::visit(
          [](const auto& v) -> std::size_t {
            if constexpr (requires { v.data(); }) {
              return v.size() * sizeof(typename std::decay_t<decltype(v)>::value_type);
            } else {
              return 0;
            }
          },
          a);
      if (bytes == 0) {
        return make_error(Errc::invalid_argument, "kernel '" + kernel_.name + "': argument " +
                                                      std::to_string(i) +
                                                      " is an empty vector (a buffer needs data)");
      }
      buffers_.emplace_back(*context_, CL_MEM_READ_WRITE, bytes, nullptr, &err);
      if (err != CL_SUCCESS) {
        return make_error(Errc::device_error, "allocating " + std::to_string(bytes) +
                                                  " bytes for argument " + std::to_string(i) +
                                                  ": " + opencl::error_name(err));
      }
    }
    if (auto e = kernel::validate_checks(kernel_.name, kernel_.arguments, kernel_.checks)) {
      return e;
    }
    if (!kernel_.global) {
      return make_error(Errc::invalid_argument,
                        "kernel '" + kernel_.name + "': no global size (Kernel::global)");
    }
    open_energy_meter();
    return std::nullopt;
  }

  // The energy meter OpenCLOptions asks for: the user's, else RAPL on a CPU device.
  void open_energy_meter() {
    if (!options_.energy) {
      no_energy_ = "OpenCLOptions::energy is off";
    } else if (options_.energy_meter) {
      meter_ = options_.energy_meter;
    } else if (!info_.cpu) {
      no_energy_ = info_.name +
                   " is not a CPU device: no portable energy counter (give "
                   "OpenCLOptions::energy_meter)";
    } else if (auto rapl = std::make_shared<const Rapl>(options_.powercap); rapl->available()) {
      meter_ = RaplMeter(std::move(rapl));
    } else {
      no_energy_ = rapl->why();
    }
  }

  /// The energy of one run: the meter from before the timed runs (`joules_before`, at `since`)
  /// to now, after untimed runs that stretch the window to `energy_window`, over the runs made;
  /// none where the meter cannot be read or a run fails.
  std::optional<Energy> energy_since(double joules_before, Clock::time_point since,
                                     std::size_t runs, cl::Kernel& k,
                                     const opencl::Params& params) {
    const auto window = [&] { return std::chrono::duration<double>(Clock::now() - since).count(); };
    while (window() < options_.energy_window) {
      if (run_and_wait(k, params, nullptr)) return std::nullopt;
      ++runs;
    }
    const auto after = meter_();
    const double seconds = window();
    if (!after || *after < joules_before || runs == 0 || seconds <= 0) return std::nullopt;
    const double joules = *after - joules_before;
    return Energy{joules / static_cast<double>(runs), joules / seconds, TimingKind::measured};
  }

  std::optional<ErrorInfo> make_queue() {
    cl_int err = CL_SUCCESS;
    queue_ = cl::CommandQueue(*context_, device_, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) {
      return make_error(Errc::device_error, "creating a profiling command queue on " + info_.name +
                                                ": " + opencl::error_name(err));
    }
    return std::nullopt;
  }

  static Built build_program(cl::Context& context, const cl::Device& device,
                             const std::string& source, const std::string& options,
                             std::size_t max_log) {
    const auto t0 = Clock::now();
    Built b;
    cl_int err = CL_SUCCESS;
    b.program = cl::Program(context, source, false, &err);
    if (err == CL_SUCCESS) err = b.program.build({device}, options.c_str());
    b.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (err == CL_SUCCESS) {
      b.ok = true;
      return b;
    }
    std::string log;
    cl_int log_err = CL_SUCCESS;
    if (b.program()) log = b.program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device, &log_err);
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    if (log.size() > max_log) log = log.substr(0, max_log) + "\n[... build log truncated]";
    b.message = "build failed: " + opencl::error_name(err) + " with options '" + options + "'" +
                (log.empty() ? std::string() : "\n" + log);
    b.program = cl::Program();
    return b;
  }

  // Starts the builds of the batch's configurations that are not in the cache: on a CPU device
  // they finish before anything is timed (they would share its cores), on other devices they
  // overlap the measurements.
  Builds::Batch start_builds(const Space& space, std::span<const Configuration> batch) {
    std::vector<Builds::Request> requests;
    requests.reserve(batch.size());
    for (const auto& c : batch) {
      std::string options = opencl::build_options(kernel_, space, c);
      requests.push_back({options, [this, options]() {
                            return build_program(*context_, device_, kernel_.source, options,
                                                 options_.max_log);
                          }});
    }
    std::size_t threads = options_.build_threads;
    if (threads == 0) {
      auto env = read_environment();
      threads = env ? static_cast<std::size_t>(env->tuning_parallel_num) : 8;
    }
    return queue_builds_.start(std::move(requests), threads, info_.cpu);
  }

  // Sets the arguments of a new kernel object and checks the launch against the kernel's
  // limits; a failure is returned as a measurement.
  std::optional<Measurement> prepare(const cl::Program& program, const opencl::Params& params,
                                     cl::Kernel& k) {
    cl_int err = CL_SUCCESS;
    k = cl::Kernel(program, kernel_.name.c_str(), &err);
    if (err != CL_SUCCESS) {
      return Measurement::failure(
          Status::compile, "creating kernel '" + kernel_.name + "': " + opencl::error_name(err));
    }
    for (std::size_t i = 0; i < kernel_.arguments.size(); ++i) {
      const auto& a = kernel_.arguments[i];
      if (opencl::is_buffer(a)) {
        err = k.setArg(static_cast<cl_uint>(i), buffers_[i]);
      } else {
        err = std::visit(
            [&](const auto& v) -> cl_int {
              if constexpr (requires { v.size(); }) {
                return CL_INVALID_ARG_VALUE;
              } else {
                return k.setArg(static_cast<cl_uint>(i), v);
              }
            },
            a);
      }
      if (err != CL_SUCCESS) {
        return Measurement::failure(Status::runtime, "setting argument " + std::to_string(i) +
                                                         " of '" + kernel_.name +
                                                         "': " + opencl::error_name(err));
      }
    }
    if (kernel_.local) {
      const opencl::Range local = kernel_.local(params);
      const std::size_t limit = k.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device_, &err);
      if (err == CL_SUCCESS && local.items() > limit) {
        return Measurement::failure(
            Status::runtime, opencl::error_name(CL_INVALID_WORK_GROUP_SIZE) + ": a work-group of " +
                                 std::to_string(local.items()) + " work-items; this kernel " +
                                 "allows at most " + std::to_string(limit) + " on " + info_.name);
      }
    }
    return std::nullopt;
  }

  // Uploads every buffer from its host vector.
  cl_int upload() {
    for (std::size_t i = 0; i < kernel_.arguments.size(); ++i) {
      const cl_int err = std::visit(
          [&](const auto& v) -> cl_int {
            if constexpr (requires { v.data(); }) {
              using T = typename std::decay_t<decltype(v)>::value_type;
              return queue_.enqueueWriteBuffer(buffers_[i], CL_TRUE, 0, v.size() * sizeof(T),
                                               v.data());
            } else {
              return CL_SUCCESS;
            }
          },
          kernel_.arguments[i]);
      if (err != CL_SUCCESS) return err;
    }
    return CL_SUCCESS;
  }

  cl_int read_back(std::size_t argument, std::vector<double>& out) {
    return std::visit(
        [&](const auto& v) -> cl_int {
          if constexpr (requires { v.data(); }) {
            using T = typename std::decay_t<decltype(v)>::value_type;
            std::vector<T> host(v.size());
            const cl_int err = queue_.enqueueReadBuffer(buffers_[argument], CL_TRUE, 0,
                                                        host.size() * sizeof(T), host.data());
            out.assign(host.begin(), host.end());
            return err;
          } else {
            return CL_INVALID_ARG_VALUE;
          }
        },
        kernel_.arguments[argument]);
  }

  // One launch, waited for; its event time in `seconds` (if given). A failure is returned.
  std::optional<Measurement> run_and_wait(cl::Kernel& k, const opencl::Params& params,
                                          double* seconds) {
    const opencl::Range g = kernel_.global(params);
    const cl::NDRange global = g.dimensions == 1   ? cl::NDRange(g.size[0])
                               : g.dimensions == 2 ? cl::NDRange(g.size[0], g.size[1])
                                                   : cl::NDRange(g.size[0], g.size[1], g.size[2]);
    cl::NDRange local = cl::NullRange;
    if (kernel_.local) {
      const opencl::Range l = kernel_.local(params);
      if (l.dimensions != g.dimensions) {
        return Measurement::failure(
            Status::runtime, "the local size has " + std::to_string(l.dimensions) +
                                 " dimensions, the global size " + std::to_string(g.dimensions));
      }
      local = l.dimensions == 1   ? cl::NDRange(l.size[0])
              : l.dimensions == 2 ? cl::NDRange(l.size[0], l.size[1])
                                  : cl::NDRange(l.size[0], l.size[1], l.size[2]);
    }
    cl::Event event;
    cl_int err = queue_.enqueueNDRangeKernel(k, cl::NullRange, global, local, nullptr, &event);
    if (err == CL_SUCCESS) err = event.wait();
    if (err == CL_SUCCESS) {
      const auto status = event.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>(&err);
      if (err == CL_SUCCESS && status < 0) err = status;
    }
    if (err != CL_SUCCESS) {
      return Measurement::failure(Status::runtime,
                                  "launching '" + kernel_.name + "': " + opencl::error_name(err));
    }
    if (seconds != nullptr) {
      const auto start = event.getProfilingInfo<CL_PROFILING_COMMAND_START>(&err);
      const auto end = event.getProfilingInfo<CL_PROFILING_COMMAND_END>(&err);
      if (err != CL_SUCCESS) {
        return Measurement::failure(Status::runtime,
                                    "reading the profiling event: " + opencl::error_name(err));
      }
      *seconds = static_cast<double>(end - start) * 1e-9;
    }
    return std::nullopt;
  }

  // Brings the queue back after a failure: a queue some drivers leave in an error state is
  // replaced, so that the next configuration runs normally.
  void recover() {
    if (queue_.finish() != CL_SUCCESS) (void)make_queue();
  }

  [[nodiscard]] double timeout() const noexcept {
    return kernel::time_limit(best_, options_.timeout_factor, options_.min_timeout,
                              options_.time_limit);
  }

  std::optional<Measurement> verify() {
    return kernel::verify_outputs(
        kernel_.checks, [this](std::size_t argument, std::vector<double>& out) -> std::string {
          const cl_int err = read_back(argument, out);
          return err == CL_SUCCESS ? std::string() : opencl::error_name(err);
        });
  }

  Measurement measure_one(const Space& space, const Configuration& c, const Slot& slot,
                          opencl::Timing& timing) {
    const auto begin = Clock::now();
    const auto since = [](Clock::time_point t) {
      return std::chrono::duration<double>(Clock::now() - t).count();
    };
    const opencl::Params params(space, c);
    Built built;
    try {
      built = slot.get();
    } catch (const std::exception& e) {
      built.message = std::string("build failed: ") + e.what();
    }
    timing.compile_seconds = built.seconds;
    const auto fail = [&](Measurement m) {
      recover();
      m.cost = built.seconds + since(begin);
      return m;
    };
    if (!built.ok) return fail(Measurement::failure(Status::compile, built.message));
    std::vector<double> samples;
    try {
      cl::Kernel k;
      if (auto m = prepare(built.program, params, k)) return fail(std::move(*m));
      const auto verify_begin = Clock::now();
      if (const cl_int err = upload(); err != CL_SUCCESS) {
        return fail(Measurement::failure(Status::runtime,
                                         "uploading the arguments: " + opencl::error_name(err)));
      }
      // The first run is checked and counts as warm-up.
      double first = 0;
      if (auto m = run_and_wait(k, params, &first)) return fail(std::move(*m));
      if (auto m = verify()) return fail(std::move(*m));
      timing.verification_seconds = since(verify_begin);
      const double limit = timeout();
      if (first > limit) return fail(kernel::timeout_failure(first, limit));
      const auto bench_begin = Clock::now();
      const auto joules_before = meter_ ? meter_() : std::nullopt;
      std::size_t runs = 0;
      if (auto m = kernel::timed_runs(
              options_.warmup, options_.repetitions, limit,
              [&](double& t) {
                ++runs;
                return run_and_wait(k, params, &t);
              },
              samples)) {
        return fail(std::move(*m));
      }
      std::optional<Energy> energy;
      if (joules_before) energy = energy_since(*joules_before, bench_begin, runs, k, params);
      timing.benchmark_seconds = since(bench_begin);
      const double seconds = reduce(options_.statistic, samples);
      best_ = std::min(best_, seconds);
      const double value = options_.objective ? options_.objective(seconds, params) : seconds;
      auto m = Measurement::success(value, std::move(samples), built.seconds + since(begin));
      m.energy = energy;
      return m;
    } catch (const std::exception& e) {
      Measurement m = Measurement::failure(Status::runtime, e.what());
      m.samples = std::move(samples);
      return fail(std::move(m));
    }
  }

  opencl::Kernel kernel_;
  OpenCLOptions options_;
  cl::Device device_;
  opencl::DeviceInfo info_;
  std::shared_ptr<cl::Context> context_;
  cl::CommandQueue queue_;
  std::vector<cl::Buffer> buffers_;  // one per argument (empty for scalars)
  Builds queue_builds_;              // programs by build options, built on several threads
  std::vector<opencl::Timing> timings_;
  std::function<std::optional<double>()> meter_;  // empty: no energy
  std::string no_energy_;
  double best_ = std::numeric_limits<double>::infinity();
};

using OpenCLRunner = Runner<device::OpenCL>;

static_assert(measure_policy<Runner<device::OpenCL>>);

}  // namespace aoe

#endif  // AOE_MEASURE_OPENCL_OPENCL_RUNNER_HPP
