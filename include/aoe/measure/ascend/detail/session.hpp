// Private: one open NPU (lock, AscendCL, device, context, stream, the two timing events) and
// the code that compiles, launches and times candidates on it. Shared by the runners and
// kernels of one device; every call into AscendCL holds its mutex.
#ifndef AOE_MEASURE_ASCEND_DETAIL_SESSION_HPP
#define AOE_MEASURE_ASCEND_DETAIL_SESSION_HPP

#include "aoe/config/environment.hpp"
#include "aoe/core/error.hpp"
#include "aoe/measure/ascend/acl_api.hpp"
#include "aoe/measure/ascend/acl_error.hpp"
#include "aoe/measure/ascend/acl_resources.hpp"
#include "aoe/measure/ascend/ascend_options.hpp"
#include "aoe/measure/ascend/device_lock.hpp"
#include "aoe/measure/ascend/kernel_call.hpp"
#include "aoe/measure/ascend/op_call.hpp"
#include "aoe/measure/statistics.hpp"
#include "aoe/op/tensor.hpp"
#include "aoe/vocab/measurement.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace aoe::ascend::detail {

[[nodiscard]] constexpr aclDataType to_acl(DataType t) noexcept {
  switch (t) {
    case DataType::float16: return ACL_FLOAT16;
    case DataType::bfloat16: return ACL_BF16;
    case DataType::float32: return ACL_FLOAT;
    case DataType::int8: return ACL_INT8;
    case DataType::int32: return ACL_INT32;
    case DataType::int64: return ACL_INT64;
    case DataType::uint8: return ACL_UINT8;
    case DataType::boolean: return ACL_BOOL;
  }
  return ACL_DT_UNDEFINED;
}

[[nodiscard]] constexpr aclFormat to_acl(Format f) noexcept {
  switch (f) {
    case Format::ND: return ACL_FORMAT_ND;
    case Format::NCHW: return ACL_FORMAT_NCHW;
    case Format::NHWC: return ACL_FORMAT_NHWC;
    case Format::HWCN: return ACL_FORMAT_HWCN;
    case Format::NC1HWC0: return ACL_FORMAT_NC1HWC0;
    case Format::FRACTAL_Z: return ACL_FORMAT_FRACTAL_Z;
    case Format::FRACTAL_NZ: return ACL_FORMAT_FRACTAL_NZ;
  }
  return ACL_FORMAT_UNDEFINED;
}

class Session {
 public:
  using Clock = std::chrono::steady_clock;

  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  Session(Session&&) = delete;
  Session& operator=(Session&&) = delete;

  ~Session() {
    if (context_) {
      api_->aclrt_set_current_context(context_.get());
      // A device marked unusable has already been waited for as long as the options allow.
      if (stream_ && broken_.empty()) {
        api_->aclrt_synchronize_stream_with_timeout(stream_.get(), drain_timeout());
      }
    }
    // The members go in reverse order: events, stream, context, device, aclFinalize, lock.
  }

  /// Claims the device, initialises AscendCL and sets up the context, stream and events.
  [[nodiscard]] static Result<std::shared_ptr<Session>> open(const AclApi& api,
                                                             AscendOptions options) {
    int device = 0;
    if (options.device_id) {
      device = *options.device_id;
    } else {
      auto env = read_environment(options.getenv);
      if (!env) return env.error();
      device = env->ascend_device_id;
    }
    const std::string source = !options.device_origin.empty()
                                   ? options.device_origin + " = device " + std::to_string(device)
                               : options.device_id
                                   ? "AscendOptions::device_id=" + std::to_string(device)
                                   : "ASCEND_DEVICE_ID=" + std::to_string(device);
    if (device < 0) {
      return make_error(Errc::invalid_argument, source + ": expected a device id >= 0");
    }
    std::shared_ptr<Session> s(new Session(api, std::move(options)));
    auto lock = DeviceLock::acquire(device, s->options_.lock_directory);
    if (!lock) return lock.error();
    s->lock_ = std::move(*lock);
    auto init = AclInit::acquire(api, s->options_.acl_config);
    if (!init) return init.error();
    s->init_ = std::move(*init);
    std::uint32_t count = 0;
    if (const AclStatus st = api.aclrt_get_device_count(&count); st != acl_success) {
      return acl_error(api, st, "aclrtGetDeviceCount");
    }
    if (count == 0) {
      return make_error(Errc::device_error,
                        "no Ascend device found (aclrtGetDeviceCount reports 0): check the driver "
                        "with npu-smi info, and that this user may open /dev/davinci*");
    }
    if (static_cast<std::uint32_t>(device) >= count) {
      return make_error(Errc::invalid_argument,
                        source + ": this machine has " + std::to_string(count) +
                            " Ascend device(s), numbered 0 to " + std::to_string(count - 1));
    }
    auto bound = DeviceBinding::set(api, device);
    if (!bound) return bound.error();
    s->device_ = std::move(*bound);
    auto context = create_context(api, device);
    if (!context) return context.error();
    s->context_ = std::move(*context);
    if (const AclStatus st = api.aclrt_set_current_context(s->context_.get()); st != acl_success) {
      return acl_error(api, st, "aclrtSetCurrentContext");
    }
    auto stream = create_stream(api);
    if (!stream) return stream.error();
    s->stream_ = std::move(*stream);
    auto start = create_event(api);
    if (!start) return start.error();
    s->start_ = std::move(*start);
    auto stop = create_event(api);
    if (!stop) return stop.error();
    s->stop_ = std::move(*stop);
    const char* soc = api.aclrt_get_soc_name();
    s->soc_name_ = soc != nullptr && *soc != '\0' ? soc : "unknown";
    std::int64_t cores = 0;
    if (const AclStatus st = api.acl_get_device_capability(static_cast<std::uint32_t>(device),
                                                           ACL_DEVICE_INFO_AI_CORE_NUM, &cores);
        st != acl_success) {
      return acl_error(api, st, "aclGetDeviceCapability(AI Core count)");
    }
    s->ai_cores_ = static_cast<int>(cores);
    s->device_id_ = device;
    return s;
  }

  [[nodiscard]] const AclApi& api() const noexcept { return *api_; }
  [[nodiscard]] const AscendOptions& options() const noexcept { return options_; }
  [[nodiscard]] int device_id() const noexcept { return device_id_; }
  [[nodiscard]] const std::string& soc_name() const noexcept { return soc_name_; }
  [[nodiscard]] int ai_cores() const noexcept { return ai_cores_; }
  [[nodiscard]] std::mutex& mutex() const noexcept { return mutex_; }

  /// Makes the context current on the calling thread (a context is per thread in AscendCL).
  /// Precondition: the mutex is held.
  [[nodiscard]] AclStatus make_current() const {
    return api_->aclrt_set_current_context(context_.get());
  }

  /// Loads an Ascend C kernel binary and finds `name` in it.
  [[nodiscard]] Result<std::pair<BinaryHandle, aclrtFuncHandle>> load(
      const std::filesystem::path& binary, const std::string& name) const {
    std::lock_guard lock(mutex_);
    if (const AclStatus st = make_current(); st != acl_success) {
      return acl_error(*api_, st, "aclrtSetCurrentContext");
    }
    std::error_code ec;
    const std::filesystem::path path = std::filesystem::absolute(binary, ec);
    if (ec || !std::filesystem::is_regular_file(path, ec)) {
      return make_error(Errc::not_found,
                        "Ascend C kernel binary " + binary.string() + ": no such file");
    }
    aclrtBinHandle handle = nullptr;
    if (const AclStatus st = api_->aclrt_binary_load_from_file(path.c_str(), nullptr, &handle);
        st != acl_success) {
      return acl_error(*api_, st, "aclrtBinaryLoadFromFile(" + path.string() + ")");
    }
    BinaryHandle owned(*api_, handle,
                       [](const AclApi& a, aclrtBinHandle h) { a.aclrt_binary_unload(h); });
    aclrtFuncHandle function = nullptr;
    if (const AclStatus st = api_->aclrt_binary_get_function(handle, name.c_str(), &function);
        st != acl_success) {
      return acl_error(*api_, st,
                       "aclrtBinaryGetFunction(kernel '" + name + "' in " + path.string() + ")");
    }
    return std::pair{std::move(owned), function};
  }

  /// Compiles `call` (aclopCompile) and times aclopExecuteV2; `limit` is the adaptive timeout
  /// in seconds (infinity: none).
  [[nodiscard]] Measurement run(const OpCall& call, double limit) const {
    const auto begin = Clock::now();
    std::lock_guard lock(mutex_);
    if (!broken_.empty()) return failure(Status::runtime, broken_, begin);
    if (const AclStatus st = make_current(); st != acl_success) {
      return failure(Status::runtime, "aclrtSetCurrentContext failed: " + acl_message(*api_, st),
                     begin);
    }
    const std::string who = "operator " + call.type;
    OpDescriptors descs;
    if (auto fail = describe_op(call, who, begin, descs)) return std::move(*fail);
    auto attr = attributes(call);
    if (!attr) return failure(Status::compile, who + ": " + attr.error().message, begin);
    if (auto fail = set_compile_options(call, who, begin)) return std::move(*fail);
    const int num_in = static_cast<int>(descs.in.size());
    const int num_out = static_cast<int>(descs.out.size());
    if (const AclStatus st = api_->aclop_compile(call.type.c_str(), num_in, descs.in_const.data(),
                                                 num_out, descs.out_const.data(), attr->get(),
                                                 ACL_ENGINE_SYS, ACL_COMPILE_SYS, nullptr);
        st != acl_success) {
      return failure(Status::compile,
                     "aclopCompile(" + call.type + ") failed: " + acl_message(*api_, st), begin);
    }
    OpBuffers buffers;
    if (auto fail = allocate_op_buffers(call, who, begin, buffers)) return std::move(*fail);
    return timed(
        [&] {
          return api_->aclop_execute_v2(call.type.c_str(), num_in, descs.in.data(),
                                        buffers.in.data(), num_out, descs.out.data(),
                                        buffers.out.data(), attr->get(), stream_.get());
        },
        "aclopExecuteV2(" + call.type + ")", limit, begin);
  }

  /// Launches `function` (the kernel `name`) as `call` says and times it.
  [[nodiscard]] Measurement run(const KernelCall& call, aclrtFuncHandle function,
                                const std::string& name, double limit) const {
    const auto begin = Clock::now();
    std::lock_guard lock(mutex_);
    if (!broken_.empty()) return failure(Status::runtime, broken_, begin);
    if (call.block_dim == 0) {
      return failure(Status::compile, "kernel " + name + ": block_dim 0 (needs at least 1 core)",
                     begin);
    }
    if (const AclStatus st = make_current(); st != acl_success) {
      return failure(Status::runtime, "aclrtSetCurrentContext failed: " + acl_message(*api_, st),
                     begin);
    }
    const std::string who = "kernel " + name;
    std::vector<DeviceMemory> memory;
    std::vector<void*> args;
    const auto add = [&](std::size_t bytes,
                         const std::string& which) -> std::optional<Measurement> {
      auto m = zeroed(bytes, who + " " + which, begin);
      if (auto* fail = std::get_if<Measurement>(&m)) return std::move(*fail);
      memory.push_back(std::move(std::get<DeviceMemory>(m)));
      args.push_back(memory.back().get());
      return std::nullopt;
    };
    for (std::size_t i = 0; i < call.inputs.size(); ++i) {
      if (auto f = add(call.inputs[i], "input " + std::to_string(i))) return std::move(*f);
    }
    for (std::size_t i = 0; i < call.outputs.size(); ++i) {
      if (auto f = add(call.outputs[i], "output " + std::to_string(i))) return std::move(*f);
    }
    if (call.workspace_argument) {
      if (auto f = add(call.workspace_bytes, "workspace")) return std::move(*f);
    }
    if (!call.tiling.empty()) {
      auto tiling =
          copy_to_device(call.tiling.data(), call.tiling.size(), who + " tiling data", begin);
      if (auto* fail = std::get_if<Measurement>(&tiling)) return std::move(*fail);
      memory.push_back(std::move(std::get<DeviceMemory>(tiling)));
      args.push_back(memory.back().get());
    }
    const std::size_t args_bytes = args.size() * sizeof(void*);
    auto args_device = copy_to_device(args.data(), args_bytes, who + " arguments", begin);
    if (auto* fail = std::get_if<Measurement>(&args_device)) return std::move(*fail);
    const DeviceMemory args_memory = std::move(std::get<DeviceMemory>(args_device));
    return timed(
        [&] {
          return api_->aclrt_launch_kernel(function, call.block_dim, args_memory.get(), args_bytes,
                                           stream_.get());
        },
        "aclrtLaunchKernel(" + name + ", block_dim " + std::to_string(call.block_dim) + ")", limit,
        begin);
  }

 private:
  Session(const AclApi& api, AscendOptions options) : api_(&api), options_(std::move(options)) {}

  [[nodiscard]] std::int32_t drain_timeout() const noexcept {
    return std::max(options_.sync_timeout_ms, options_.recover_timeout_ms);
  }

  [[nodiscard]] static double seconds_since(Clock::time_point begin) {
    return std::chrono::duration<double>(Clock::now() - begin).count();
  }

  [[nodiscard]] static Measurement failure(Status s, std::string message, Clock::time_point begin,
                                           std::vector<double> samples = {}) {
    Measurement m = Measurement::failure(s, std::move(message), seconds_since(begin));
    m.samples = std::move(samples);
    return m;
  }

  /// A failed ACL call while running: `timeout` for a timeout, `runtime` otherwise (with "out
  /// of device memory" in front when it is one). The stream is drained before returning.
  [[nodiscard]] Measurement device_failure(AclStatus st, const std::string& what,
                                           Clock::time_point begin,
                                           std::vector<double> samples) const {
    std::string message = what + " failed: " + acl_message(*api_, st);
    if (is_out_of_memory(st)) message = "out of device memory: " + message;
    const Status status = is_timeout(st) ? Status::timeout : Status::runtime;
    if (is_timeout(st)) {
      message +=
          " (AscendOptions::sync_timeout_ms = " + std::to_string(options_.sync_timeout_ms) + ")";
    }
    recover();
    return failure(status, std::move(message), begin, std::move(samples));
  }

  /// Waits for what a failed candidate left on the stream. A device that does not drain within
  /// recover_timeout_ms is marked unusable: later measurements fail with the reason.
  void recover() const {
    const AclStatus st =
        api_->aclrt_synchronize_stream_with_timeout(stream_.get(), options_.recover_timeout_ms);
    if (is_timeout(st)) {
      broken_ = "Ascend device " + std::to_string(device_id_) +
                " is unusable: a timed-out candidate was still running after "
                "AscendOptions::recover_timeout_ms = " +
                std::to_string(options_.recover_timeout_ms) + " ms (" + acl_message(*api_, st) +
                "); close the runner (aclrtResetDevice) and open a new one";
    }
  }

  /// Zero-filled device memory of `bytes`, or the failed measurement (out of memory: runtime).
  [[nodiscard]] std::variant<DeviceMemory, Measurement> zeroed(std::size_t bytes,
                                                               const std::string& which,
                                                               Clock::time_point begin) const {
    auto m = DeviceMemory::allocate(*api_, bytes);
    if (!m) {
      const AclStatus st = m.error().code.value();
      std::string message = which + ": " + m.error().message;
      if (is_out_of_memory(st)) message = "out of device memory: " + message;
      return failure(Status::runtime, std::move(message), begin);
    }
    if (bytes > 0) {
      if (const AclStatus st = api_->aclrt_memset(m->get(), bytes, 0, bytes); st != acl_success) {
        return failure(Status::runtime, which + ": aclrtMemset failed: " + acl_message(*api_, st),
                       begin);
      }
    }
    return std::move(*m);
  }

  /// Device memory holding a copy of `bytes` bytes at `data`, staged through page-locked host
  /// memory.
  [[nodiscard]] std::variant<DeviceMemory, Measurement> copy_to_device(
      const void* data, std::size_t bytes, const std::string& which,
      Clock::time_point begin) const {
    auto device = zeroed(bytes, which, begin);
    if (std::holds_alternative<Measurement>(device) || bytes == 0) return device;
    auto host = HostMemory::allocate(*api_, bytes);
    if (!host) return failure(Status::runtime, which + ": " + host.error().message, begin);
    std::memcpy(host->get(), data, bytes);
    const DeviceMemory& d = std::get<DeviceMemory>(device);
    if (const AclStatus st =
            api_->aclrt_memcpy(d.get(), d.size(), host->get(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
        st != acl_success) {
      return failure(Status::runtime,
                     which + ": aclrtMemcpy to the device failed: " + acl_message(*api_, st),
                     begin);
    }
    return device;
  }

  /// The tensor descriptor of `t` (origin view, then the storage view if it differs).
  [[nodiscard]] Result<TensorDescHandle> describe(const OpTensor& t) const {
    aclTensorDesc* d =
        api_->acl_create_tensor_desc(to_acl(t.desc.dtype), static_cast<int>(t.desc.shape.size()),
                                     t.desc.shape.data(), to_acl(t.desc.format));
    if (d == nullptr) {
      return make_error(Errc::invalid_argument, "aclCreateTensorDesc returned null for " +
                                                    std::string(to_string(t.desc.dtype)) + " " +
                                                    std::string(to_string(t.desc.format)));
    }
    TensorDescHandle owned(*api_, d,
                           [](const AclApi& a, aclTensorDesc* h) { a.acl_destroy_tensor_desc(h); });
    if (t.storage_format) {
      if (const AclStatus st = api_->acl_set_tensor_format(d, to_acl(*t.storage_format));
          st != acl_success) {
        return acl_error(*api_, st,
                         "aclSetTensorFormat(" + std::string(to_string(*t.storage_format)) + ")");
      }
      if (const AclStatus st = api_->acl_set_tensor_shape(
              d, static_cast<int>(t.storage_shape.size()), t.storage_shape.data());
          st != acl_success) {
        return acl_error(*api_, st, "aclSetTensorShape(storage shape)");
      }
    }
    return owned;
  }

  /// The tensor descriptors of an operator call, inputs then outputs, and the views of them
  /// that aclopCompile and aclopExecuteV2 take.
  struct OpDescriptors {
    std::vector<TensorDescHandle> owned;
    std::vector<const aclTensorDesc*> in_const, out_const;
    std::vector<aclTensorDesc*> in, out;
  };

  /// The zeroed device memory of an operator call's tensors, inputs then outputs, and their
  /// data buffers (released before the memory).
  struct OpBuffers {
    std::vector<DeviceMemory> memory;
    std::vector<DataBufferHandle> buffers;
    std::vector<aclDataBuffer*> in, out;
  };

  /// Describes the tensors of `call` into `out`; the failed measurement (compile) if one cannot
  /// be described.
  [[nodiscard]] std::optional<Measurement> describe_op(const OpCall& call, const std::string& who,
                                                       Clock::time_point begin,
                                                       OpDescriptors& out) const {
    const std::size_t n_in = call.inputs.size();
    out.owned.reserve(n_in + call.outputs.size());
    for (std::size_t i = 0; i < n_in + call.outputs.size(); ++i) {
      const bool input = i < n_in;
      const OpTensor& t = input ? call.inputs[i] : call.outputs[i - n_in];
      std::string which = input ? "input " : "output ";
      which += std::to_string(input ? i : i - n_in);
      auto d = describe(t);
      if (!d) {
        which.insert(0, who + ": ");
        return failure(Status::compile, which + ": " + d.error().message, begin);
      }
      out.owned.push_back(std::move(*d));
    }
    for (std::size_t i = 0; i < out.owned.size(); ++i) {
      (i < n_in ? out.in_const : out.out_const).push_back(out.owned[i].get());
      (i < n_in ? out.in : out.out).push_back(out.owned[i].get());
    }
    return std::nullopt;
  }

  /// Sets the compile options `call` asks for (implementation and precision modes); the failed
  /// measurement (compile) if one is refused.
  [[nodiscard]] std::optional<Measurement> set_compile_options(const OpCall& call,
                                                               const std::string& who,
                                                               Clock::time_point begin) const {
    if (!call.impl_mode.empty()) {
      if (const AclStatus st =
              api_->acl_set_compileopt(ACL_OP_SELECT_IMPL_MODE, call.impl_mode.c_str());
          st != acl_success) {
        return failure(Status::compile,
                       who + ": aclSetCompileopt(ACL_OP_SELECT_IMPL_MODE, " + call.impl_mode +
                           ") failed: " + acl_message(*api_, st),
                       begin);
      }
    }
    if (!call.precision_mode.empty()) {
      if (const AclStatus st =
              api_->acl_set_compileopt(ACL_PRECISION_MODE, call.precision_mode.c_str());
          st != acl_success) {
        return failure(Status::compile,
                       who + ": aclSetCompileopt(ACL_PRECISION_MODE, " + call.precision_mode +
                           ") failed: " + acl_message(*api_, st),
                       begin);
      }
    }
    return std::nullopt;
  }

  /// Allocates zeroed device memory and a data buffer for each tensor of `call` into `out`; the
  /// failed measurement (runtime) if one cannot be made.
  [[nodiscard]] std::optional<Measurement> allocate_op_buffers(const OpCall& call,
                                                               const std::string& who,
                                                               Clock::time_point begin,
                                                               OpBuffers& out) const {
    const std::size_t n_in = call.inputs.size();
    for (std::size_t i = 0; i < n_in + call.outputs.size(); ++i) {
      const bool input = i < n_in;
      const OpTensor& t = input ? call.inputs[i] : call.outputs[i - n_in];
      const std::string which =
          who + " " + (input ? "input " : "output ") + std::to_string(input ? i : i - n_in);
      auto m = zeroed(static_cast<std::size_t>(std::max<std::int64_t>(0, t.bytes())), which, begin);
      if (auto* fail = std::get_if<Measurement>(&m)) return std::move(*fail);
      out.memory.push_back(std::move(std::get<DeviceMemory>(m)));
      aclDataBuffer* b =
          api_->acl_create_data_buffer(out.memory.back().get(), out.memory.back().size());
      if (b == nullptr) {
        return failure(Status::runtime, which + ": aclCreateDataBuffer returned null", begin);
      }
      out.buffers.emplace_back(
          *api_, b, [](const AclApi& a, aclDataBuffer* h) { a.acl_destroy_data_buffer(h); });
      (input ? out.in : out.out).push_back(b);
    }
    return std::nullopt;
  }

  /// The operator attributes of `call` (aclopCreateAttr + aclopSetAttr*).
  [[nodiscard]] Result<OpAttrHandle> attributes(const OpCall& call) const {
    aclopAttr* a = api_->aclop_create_attr();
    if (a == nullptr) return make_error(Errc::device_error, "aclopCreateAttr returned null");
    OpAttrHandle owned(*api_, a, [](const AclApi& x, aclopAttr* h) { x.aclop_destroy_attr(h); });
    for (const auto& [name, value] : call.attributes) {
      const char* n = name.c_str();
      const AclStatus st = std::visit(
          [&](const auto& v) -> AclStatus {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, bool>) {
              return api_->aclop_set_attr_bool(a, n, v ? 1 : 0);
            } else if constexpr (std::is_same_v<T, std::int64_t>) {
              return api_->aclop_set_attr_int(a, n, v);
            } else if constexpr (std::is_same_v<T, double>) {
              return api_->aclop_set_attr_float(a, n, static_cast<float>(v));
            } else if constexpr (std::is_same_v<T, std::string>) {
              return api_->aclop_set_attr_string(a, n, v.c_str());
            } else {
              return api_->aclop_set_attr_list_int(a, n, static_cast<int>(v.size()), v.data());
            }
          },
          value);
      if (st != acl_success) return acl_error(*api_, st, "aclopSetAttr(" + name + ")");
    }
    return owned;
  }

  /// Warm-up runs, then `repetitions` runs each between the two events; one sample (seconds)
  /// per run from aclrtEventElapsedTime.
  template <class Enqueue>
  [[nodiscard]] Measurement timed(Enqueue&& enqueue, const std::string& what, double limit,
                                  Clock::time_point begin) const {
    std::vector<double> samples;
    for (std::size_t i = 0; i < options_.warmup; ++i) {
      if (const AclStatus st = enqueue(); st != acl_success) {
        return device_failure(st, what + " (warm-up)", begin, {});
      }
    }
    if (options_.warmup > 0) {
      if (const AclStatus st =
              api_->aclrt_synchronize_stream_with_timeout(stream_.get(), options_.sync_timeout_ms);
          st != acl_success) {
        return device_failure(st, what + " (warm-up, aclrtSynchronizeStreamWithTimeout)", begin,
                              {});
      }
    }
    const std::size_t repetitions = std::max<std::size_t>(1, options_.repetitions);
    samples.reserve(repetitions);
    for (std::size_t r = 0; r < repetitions; ++r) {
      if (const AclStatus st = api_->aclrt_record_event(start_.get(), stream_.get());
          st != acl_success) {
        return device_failure(st, "aclrtRecordEvent(start)", begin, std::move(samples));
      }
      if (const AclStatus st = enqueue(); st != acl_success) {
        return device_failure(st, what, begin, std::move(samples));
      }
      if (const AclStatus st = api_->aclrt_record_event(stop_.get(), stream_.get());
          st != acl_success) {
        return device_failure(st, "aclrtRecordEvent(stop)", begin, std::move(samples));
      }
      if (const AclStatus st =
              api_->aclrt_synchronize_event_with_timeout(stop_.get(), options_.sync_timeout_ms);
          st != acl_success) {
        return device_failure(st, what + " (aclrtSynchronizeEventWithTimeout)", begin,
                              std::move(samples));
      }
      float ms = 0;
      if (const AclStatus st = api_->aclrt_event_elapsed_time(&ms, start_.get(), stop_.get());
          st != acl_success) {
        return device_failure(st, "aclrtEventElapsedTime", begin, std::move(samples));
      }
      const double t = static_cast<double>(ms) / 1e3;
      if (t > limit) {
        return failure(Status::timeout,
                       what + ": a run took " + std::to_string(t) + " s, over the timeout of " +
                           std::to_string(limit) + " s (" +
                           std::to_string(options_.timeout_factor) + " x the best so far)",
                       begin, std::move(samples));
      }
      samples.push_back(t);
    }
    const double value = reduce(options_.statistic, samples);
    return Measurement::success(value, std::move(samples), seconds_since(begin));
  }

  const AclApi* api_;
  AscendOptions options_;
  // Released in reverse order (events first, the lock last).
  DeviceLock lock_;
  AclInit init_;
  DeviceBinding device_;
  Context context_;
  Stream stream_;
  Event start_;
  Event stop_;
  std::string soc_name_;
  int ai_cores_ = 0;
  int device_id_ = 0;
  mutable std::mutex mutex_;
  mutable std::string broken_;  ///< why the device is unusable; empty while it works
};

}  // namespace aoe::ascend::detail

#endif  // AOE_MEASURE_ASCEND_DETAIL_SESSION_HPP
