// A test double of AscendCL for the Ascend runner's tests: an AclApi table whose entries run in
// this process. "Device" memory is host memory, so a test can read what the runner copied to
// the device (kernel arguments, tiling data); a simulated device clock advances by a duration
// per launch, so events give known times; any entry can be made to fail; every resource is
// counted from creation to release. Also checks that no two ACL calls overlap in time (the
// runner serialises them), that execution follows compilation and that an event's time is read
// only after it was synchronised.
#ifndef AOE_TESTS_ASCEND_ACL_DOUBLE_HPP
#define AOE_TESTS_ASCEND_ACL_DOUBLE_HPP

#include <aoe/measure/ascend/acl_api.hpp>
#include <aoe/measure/ascend/acl_error.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

// The opaque ACL types, defined here: nothing else defines them in a test executable. Their
// names are AscendCL's.
// NOLINTBEGIN(readability-identifier-naming)
struct aclTensorDesc {
  aclDataType dtype = ACL_DT_UNDEFINED;
  aclFormat format = ACL_FORMAT_UNDEFINED;
  std::vector<std::int64_t> dims;
  aclFormat storage_format = ACL_FORMAT_UNDEFINED;
  std::vector<std::int64_t> storage_dims;
};
struct aclDataBuffer {
  void* data = nullptr;
  std::size_t size = 0;
};
struct aclopAttr {
  std::map<std::string, std::string> values;  // printed: "b:1", "i:3", "f:0.5", "s:x", "l:1,2"
};
// NOLINTEND(readability-identifier-naming)

namespace aoe::test {

class AclDouble {
 public:
  /// One entry per AclApi member.
  enum class Call {
    acl_init,
    acl_finalize,
    set_device,
    reset_device,
    get_device_count,
    create_context,
    destroy_context,
    set_current_context,
    create_stream,
    destroy_stream,
    synchronize_stream,
    create_event,
    destroy_event,
    record_event,
    synchronize_event,
    event_elapsed_time,
    malloc,
    free,
    malloc_host,
    free_host,
    memcpy,
    memset,
    create_tensor_desc,
    destroy_tensor_desc,
    set_tensor_format,
    set_tensor_shape,
    create_data_buffer,
    destroy_data_buffer,
    create_attr,
    destroy_attr,
    set_attr,
    set_compileopt,
    compile,
    execute,
    binary_load,
    binary_get_function,
    binary_unload,
    launch_kernel,
    get_device_capability
  };

  /// What a launch (aclopExecuteV2 or aclrtLaunchKernel) saw.
  struct Launch {
    bool kernel = false;
    std::string name;  ///< op type or kernel name
    std::uint32_t block_dim = 0;
    std::string impl_mode;                   ///< ACL_OP_SELECT_IMPL_MODE when the op was compiled
    std::vector<aclFormat> storage_formats;  ///< op: inputs then outputs
    std::vector<std::vector<std::byte>> arguments;  ///< kernel: each argument's buffer
    std::vector<bool> null_arguments;               ///< kernel: which arguments were null
  };

  // ---- what the double simulates (set before opening a runner) ----
  std::uint32_t device_count = 1;
  std::string soc = "Ascend910B1";
  std::int64_t ai_cores = 24;
  std::size_t device_memory_limit = std::size_t{1} << 30;  ///< bytes; more is out of memory
  /// Milliseconds a launch takes on the simulated device (default 1 ms).
  std::function<double(const Launch&)> duration_ms = [](const Launch&) { return 1.0; };
  std::string recent_error = "EZ9999: the double's last error";

  AclDouble() {
    std::lock_guard lock(instance_mutex());
    current() = this;
  }
  AclDouble(const AclDouble&) = delete;
  AclDouble& operator=(const AclDouble&) = delete;
  ~AclDouble() {
    for (auto& [p, size] : device_) std::free(p);
    for (void* p : host_) std::free(p);
    std::lock_guard lock(instance_mutex());
    current() = nullptr;
  }

  [[nodiscard]] const ascend::AclApi& api() const { return api_; }

  /// Makes `count` calls of `call` return `code` after `skip` successful ones (count < 0: all).
  void fail(Call call, int code, int skip = 0, int count = -1) {
    std::lock_guard lock(mutex_);
    faults_[call] = Fault{code, skip, count};
  }
  void heal(Call call) {
    std::lock_guard lock(mutex_);
    faults_.erase(call);
  }

  [[nodiscard]] int calls(Call c) const {
    std::lock_guard lock(mutex_);
    const auto it = calls_.find(c);
    return it == calls_.end() ? 0 : it->second;
  }
  [[nodiscard]] std::vector<Launch> launches() const {
    std::lock_guard lock(mutex_);
    return launches_;
  }
  [[nodiscard]] std::vector<aclTensorDesc> compiled_descs() const {
    std::lock_guard lock(mutex_);
    return compiled_descs_;
  }
  [[nodiscard]] std::map<std::string, std::string> compiled_attrs() const {
    std::lock_guard lock(mutex_);
    return compiled_attrs_;
  }
  [[nodiscard]] std::vector<std::size_t> allocation_sizes() const {
    std::lock_guard lock(mutex_);
    return allocation_sizes_;
  }
  [[nodiscard]] int device_set() const {
    std::lock_guard lock(mutex_);
    return device_set_;
  }
  [[nodiscard]] bool overlapped() const { return overlapped_.load(); }

  /// Every resource the runner holds right now, by kind ("" when none): after a runner and its
  /// kernels are gone, this must be empty.
  [[nodiscard]] std::string live() const {
    std::lock_guard lock(mutex_);
    std::string out;
    const auto add = [&out](const char* what, std::size_t n) {
      if (n > 0) out += std::string(out.empty() ? "" : ", ") + what + "=" + std::to_string(n);
    };
    add("acl_init", static_cast<std::size_t>(inits_));
    add("devices", static_cast<std::size_t>(devices_));
    add("contexts", contexts_.size());
    add("streams", streams_.size());
    add("events", events_.size());
    add("device_memory", device_.size());
    add("host_memory", host_.size());
    add("tensor_descs", descs_.size());
    add("data_buffers", buffers_.size());
    add("attrs", attrs_.size());
    add("binaries", binaries_.size());
    return out;
  }
  /// Resources of one measurement (buffers, descriptors, attributes, memory).
  [[nodiscard]] std::string live_per_call() const {
    std::lock_guard lock(mutex_);
    std::string out;
    if (!device_.empty()) out += "device_memory=" + std::to_string(device_.size()) + " ";
    if (!host_.empty()) out += "host_memory=" + std::to_string(host_.size()) + " ";
    if (!descs_.empty()) out += "tensor_descs=" + std::to_string(descs_.size()) + " ";
    if (!buffers_.empty()) out += "data_buffers=" + std::to_string(buffers_.size()) + " ";
    if (!attrs_.empty()) out += "attrs=" + std::to_string(attrs_.size()) + " ";
    return out;
  }

 private:
  struct Fault {
    int code = 0;
    int skip = 0;
    int count = -1;
  };
  struct Event {
    double time = -1;       // ms on the device clock when recorded
    std::uint64_t seq = 0;  // its place among all recordings on the stream (0: never recorded)
  };

  static std::mutex& instance_mutex() {
    static std::mutex m;
    return m;
  }
  static AclDouble*& current() {
    static AclDouble* p = nullptr;
    return p;
  }
  static AclDouble& self() { return *current(); }

  /// Entered by every entry: counts it, detects overlapping calls, applies faults.
  class Enter {
   public:
    Enter(AclDouble& d, Call c) : d_(d), lock_(d.mutex_) {
      if (d.busy_.exchange(true)) d.overlapped_ = true;
      ++d.calls_[c];
      const auto it = d.faults_.find(c);
      if (it != d.faults_.end()) {
        Fault& f = it->second;
        if (f.skip > 0) {
          --f.skip;
        } else if (f.count != 0) {
          if (f.count > 0) --f.count;
          code_ = f.code;
        }
      }
    }
    Enter(const Enter&) = delete;
    Enter& operator=(const Enter&) = delete;
    ~Enter() { d_.busy_ = false; }
    [[nodiscard]] int code() const { return code_; }

   private:
    AclDouble& d_;
    std::unique_lock<std::mutex> lock_;
    int code_ = 0;
  };

  // A call that reaches the double while another runs is an overlap; the double's own mutex
  // still serialises them so that the counters stay right.
  aclError pending_sync(double timeout_ms) {
    if (timeout_ms >= 0 && longest_pending_ > timeout_ms)
      return ascend::acl_errc::rt_event_sync_timeout;
    longest_pending_ = 0;
    return ACL_SUCCESS;
  }

  aclError launch(Launch l) {
    const double d = duration_ms(l);
    clock_ms_ += d;
    longest_pending_ = std::max(longest_pending_, d);
    launches_.push_back(std::move(l));
    return ACL_SUCCESS;
  }

  std::vector<std::byte> read(const void* p) const {
    const auto it = device_.find(const_cast<void*>(p));  // NOLINT(*-const-cast): a key
    if (it == device_.end()) return {};
    const auto* b = static_cast<const std::byte*>(p);
    return {b, b + it->second};
  }

  ascend::AclApi make_api() {
    ascend::AclApi a;
    a.acl_init = [](const char*) -> aclError {
      Enter e(self(), Call::acl_init);
      if (e.code()) return e.code();
      if (self().inits_ > 0) return ascend::acl_errc::repeat_initialize;
      ++self().inits_;
      return ACL_SUCCESS;
    };
    a.acl_finalize = []() -> aclError {
      Enter e(self(), Call::acl_finalize);
      --self().inits_;
      return e.code();
    };
    a.acl_get_recent_err_msg = []() -> const char* { return self().recent_error.c_str(); };
    a.aclrt_get_device_count = [](std::uint32_t* n) -> aclError {
      Enter e(self(), Call::get_device_count);
      if (e.code()) return e.code();
      *n = self().device_count;
      return ACL_SUCCESS;
    };
    a.aclrt_set_device = [](std::int32_t id) -> aclError {
      Enter e(self(), Call::set_device);
      if (e.code()) return e.code();
      if (id < 0 || static_cast<std::uint32_t>(id) >= self().device_count) return 107001;
      ++self().devices_;
      self().device_set_ = id;
      return ACL_SUCCESS;
    };
    a.aclrt_reset_device = [](std::int32_t) -> aclError {
      Enter e(self(), Call::reset_device);
      --self().devices_;
      return e.code();
    };
    a.aclrt_get_soc_name = []() -> const char* { return self().soc.c_str(); };
    a.acl_get_device_capability = [](std::uint32_t, aclDeviceInfo info,
                                     std::int64_t* v) -> aclError {
      Enter e(self(), Call::get_device_capability);
      if (e.code()) return e.code();
      *v = info == ACL_DEVICE_INFO_AI_CORE_NUM ? self().ai_cores : 0;
      return ACL_SUCCESS;
    };
    a.aclrt_create_context = [](aclrtContext* c, std::int32_t) -> aclError {
      Enter e(self(), Call::create_context);
      if (e.code()) return e.code();
      *c = new int(1);
      self().contexts_.insert(*c);
      return ACL_SUCCESS;
    };
    a.aclrt_destroy_context = [](aclrtContext c) -> aclError {
      Enter e(self(), Call::destroy_context);
      self().contexts_.erase(c);
      delete static_cast<int*>(c);
      return ACL_SUCCESS;
    };
    a.aclrt_set_current_context = [](aclrtContext c) -> aclError {
      Enter e(self(), Call::set_current_context);
      if (e.code()) return e.code();
      return self().contexts_.count(c) ? ACL_SUCCESS : 107002;
    };
    a.aclrt_create_stream = [](aclrtStream* s) -> aclError {
      Enter e(self(), Call::create_stream);
      if (e.code()) return e.code();
      *s = new int(2);
      self().streams_.insert(*s);
      return ACL_SUCCESS;
    };
    a.aclrt_destroy_stream = [](aclrtStream s) -> aclError {
      Enter e(self(), Call::destroy_stream);
      self().streams_.erase(s);
      delete static_cast<int*>(s);
      return ACL_SUCCESS;
    };
    a.aclrt_synchronize_stream_with_timeout = [](aclrtStream, std::int32_t t) -> aclError {
      Enter e(self(), Call::synchronize_stream);
      if (e.code()) return e.code();
      const aclError r = self().pending_sync(t);
      if (r == ACL_SUCCESS) self().completed_ = self().recorded_;
      return r == ACL_SUCCESS ? r : ascend::acl_errc::rt_stream_sync_timeout;
    };
    a.aclrt_create_event = [](aclrtEvent* ev) -> aclError {
      Enter e(self(), Call::create_event);
      if (e.code()) return e.code();
      auto* p = new Event;
      *ev = p;
      self().events_.insert(p);
      return ACL_SUCCESS;
    };
    a.aclrt_destroy_event = [](aclrtEvent ev) -> aclError {
      Enter e(self(), Call::destroy_event);
      self().events_.erase(ev);
      delete static_cast<Event*>(ev);
      return ACL_SUCCESS;
    };
    a.aclrt_record_event = [](aclrtEvent ev, aclrtStream) -> aclError {
      Enter e(self(), Call::record_event);
      if (e.code()) return e.code();
      static_cast<Event*>(ev)->time = self().clock_ms_;
      static_cast<Event*>(ev)->seq = ++self().recorded_;
      return ACL_SUCCESS;
    };
    a.aclrt_synchronize_event_with_timeout = [](aclrtEvent ev, std::int32_t t) -> aclError {
      Enter e(self(), Call::synchronize_event);
      if (e.code()) return e.code();
      const aclError r = self().pending_sync(t);
      if (r == ACL_SUCCESS) {
        self().completed_ = std::max(self().completed_, static_cast<Event*>(ev)->seq);
      }
      return r;
    };
    a.aclrt_event_elapsed_time = [](float* ms, aclrtEvent s, aclrtEvent t) -> aclError {
      Enter e(self(), Call::event_elapsed_time);
      if (e.code()) return e.code();
      const auto* a0 = static_cast<Event*>(s);
      const auto* a1 = static_cast<Event*>(t);
      if (a0->time < 0 || a1->time < 0) return 107006;  // not recorded
      // AscendCL reads the time only after the end event completed: record the events, wait
      // for the stream (or the end event), then aclrtEventElapsedTime (CANN's page of
      // aclrtEventElapsedTime, "Restrictions"). Refused before: ACL_ERROR_RT_EVENT_NOT_COMPLETE.
      if (a1->seq > self().completed_) return 507006;
      *ms = static_cast<float>(a1->time - a0->time);
      return ACL_SUCCESS;
    };
    a.aclrt_malloc = [](void** p, std::size_t n, aclrtMemMallocPolicy) -> aclError {
      Enter e(self(), Call::malloc);
      if (e.code()) return e.code();
      auto& d = self();
      std::size_t used = 0;
      for (const auto& [q, size] : d.device_) used += size;
      if (used + n > d.device_memory_limit) return ascend::acl_errc::rt_memory_allocation;
      *p = std::calloc(n, 1);
      d.device_[*p] = n;
      d.allocation_sizes_.push_back(n);
      return ACL_SUCCESS;
    };
    a.aclrt_free = [](void* p) -> aclError {
      Enter e(self(), Call::free);
      self().device_.erase(p);
      std::free(p);
      return ACL_SUCCESS;
    };
    a.aclrt_malloc_host = [](void** p, std::size_t n) -> aclError {
      Enter e(self(), Call::malloc_host);
      if (e.code()) return e.code();
      *p = std::calloc(n, 1);
      self().host_.insert(*p);
      return ACL_SUCCESS;
    };
    a.aclrt_free_host = [](void* p) -> aclError {
      Enter e(self(), Call::free_host);
      self().host_.erase(p);
      std::free(p);
      return ACL_SUCCESS;
    };
    a.aclrt_memcpy = [](void* dst, std::size_t max, const void* src, std::size_t n,
                        aclrtMemcpyKind) -> aclError {
      Enter e(self(), Call::memcpy);
      if (e.code()) return e.code();
      if (n > max) return ACL_ERROR_INVALID_PARAM;
      std::memcpy(dst, src, n);
      return ACL_SUCCESS;
    };
    a.aclrt_memset = [](void* p, std::size_t max, std::int32_t v, std::size_t n) -> aclError {
      Enter e(self(), Call::memset);
      if (e.code()) return e.code();
      if (n > max) return ACL_ERROR_INVALID_PARAM;
      std::memset(p, v, n);
      return ACL_SUCCESS;
    };
    a.acl_create_tensor_desc = [](aclDataType t, int n, const std::int64_t* dims,
                                  aclFormat f) -> aclTensorDesc* {
      Enter e(self(), Call::create_tensor_desc);
      if (e.code()) return nullptr;
      auto* d = new aclTensorDesc{t, f, std::vector<std::int64_t>(dims, dims + n), f, {}};
      self().descs_.insert(d);
      return d;
    };
    a.acl_destroy_tensor_desc = [](const aclTensorDesc* d) {
      Enter e(self(), Call::destroy_tensor_desc);
      self().descs_.erase(d);
      delete d;
    };
    a.acl_set_tensor_format = [](aclTensorDesc* d, aclFormat f) -> aclError {
      Enter e(self(), Call::set_tensor_format);
      if (e.code()) return e.code();
      d->storage_format = f;
      return ACL_SUCCESS;
    };
    a.acl_set_tensor_shape = [](aclTensorDesc* d, int n, const std::int64_t* dims) -> aclError {
      Enter e(self(), Call::set_tensor_shape);
      if (e.code()) return e.code();
      d->storage_dims.assign(dims, dims + n);
      return ACL_SUCCESS;
    };
    a.acl_create_data_buffer = [](void* p, std::size_t n) -> aclDataBuffer* {
      Enter e(self(), Call::create_data_buffer);
      if (e.code()) return nullptr;
      auto* b = new aclDataBuffer{p, n};
      self().buffers_.insert(b);
      return b;
    };
    a.acl_destroy_data_buffer = [](const aclDataBuffer* b) -> aclError {
      Enter e(self(), Call::destroy_data_buffer);
      self().buffers_.erase(b);
      delete b;
      return ACL_SUCCESS;
    };
    a.aclop_create_attr = []() -> aclopAttr* {
      Enter e(self(), Call::create_attr);
      if (e.code()) return nullptr;
      auto* p = new aclopAttr;
      self().attrs_.insert(p);
      return p;
    };
    a.aclop_destroy_attr = [](const aclopAttr* p) {
      Enter e(self(), Call::destroy_attr);
      self().attrs_.erase(p);
      delete p;
    };
    a.aclop_set_attr_bool = [](aclopAttr* p, const char* n, std::uint8_t v) -> aclError {
      Enter e(self(), Call::set_attr);
      if (e.code()) return e.code();
      p->values[n] = "b:" + std::to_string(v);
      return ACL_SUCCESS;
    };
    a.aclop_set_attr_int = [](aclopAttr* p, const char* n, std::int64_t v) -> aclError {
      Enter e(self(), Call::set_attr);
      if (e.code()) return e.code();
      p->values[n] = "i:" + std::to_string(v);
      return ACL_SUCCESS;
    };
    a.aclop_set_attr_float = [](aclopAttr* p, const char* n, float v) -> aclError {
      Enter e(self(), Call::set_attr);
      if (e.code()) return e.code();
      p->values[n] = "f:" + std::to_string(v);
      return ACL_SUCCESS;
    };
    a.aclop_set_attr_string = [](aclopAttr* p, const char* n, const char* v) -> aclError {
      Enter e(self(), Call::set_attr);
      if (e.code()) return e.code();
      p->values[n] = std::string("s:") + v;
      return ACL_SUCCESS;
    };
    a.aclop_set_attr_list_int = [](aclopAttr* p, const char* n, int k,
                                   const std::int64_t* v) -> aclError {
      Enter e(self(), Call::set_attr);
      if (e.code()) return e.code();
      std::string s = "l:";
      for (int i = 0; i < k; ++i) s += (i ? "," : "") + std::to_string(v[i]);
      p->values[n] = s;
      return ACL_SUCCESS;
    };
    a.acl_set_compileopt = [](aclCompileOpt opt, const char* v) -> aclError {
      Enter e(self(), Call::set_compileopt);
      if (e.code()) return e.code();
      self().options_[static_cast<int>(opt)] = v;
      return ACL_SUCCESS;
    };
    a.aclop_compile = [](const char* type, int ni, const aclTensorDesc* const in[], int no,
                         const aclTensorDesc* const out[], const aclopAttr* attr, aclopEngineType,
                         aclopCompileType, const char*) -> aclError {
      Enter e(self(), Call::compile);
      if (e.code()) return e.code();
      auto& d = self();
      d.compiled_descs_.clear();
      for (int i = 0; i < ni; ++i) d.compiled_descs_.push_back(*in[i]);
      for (int i = 0; i < no; ++i) d.compiled_descs_.push_back(*out[i]);
      d.compiled_attrs_ = attr != nullptr ? attr->values : std::map<std::string, std::string>{};
      d.compiled_[type] = d.options_[static_cast<int>(ACL_OP_SELECT_IMPL_MODE)];
      return ACL_SUCCESS;
    };
    a.aclop_execute_v2 = [](const char* type, int ni, aclTensorDesc* in[], aclDataBuffer* inb[],
                            int no, aclTensorDesc* out[], aclDataBuffer* outb[], aclopAttr*,
                            aclrtStream) -> aclError {
      Enter e(self(), Call::execute);
      if (e.code()) return e.code();
      auto& d = self();
      const auto it = d.compiled_.find(type);
      if (it == d.compiled_.end()) return ACL_ERROR_OP_NOT_FOUND;  // not compiled
      Launch l;
      l.name = type;
      l.impl_mode = it->second;
      for (int i = 0; i < ni; ++i) {
        if (inb[i] == nullptr) return ACL_ERROR_INVALID_PARAM;
        l.storage_formats.push_back(in[i]->storage_format);
      }
      for (int i = 0; i < no; ++i) {
        if (outb[i] == nullptr) return ACL_ERROR_INVALID_PARAM;
        l.storage_formats.push_back(out[i]->storage_format);
      }
      return d.launch(std::move(l));
    };
    a.aclrt_binary_load_from_file = [](const char* path, aclrtBinaryLoadOptions*,
                                       aclrtBinHandle* h) -> aclError {
      Enter e(self(), Call::binary_load);
      if (e.code()) return e.code();
      *h = new std::string(path);
      self().binaries_.insert(*h);
      return ACL_SUCCESS;
    };
    a.aclrt_binary_get_function = [](const aclrtBinHandle, const char* name,
                                     aclrtFuncHandle* f) -> aclError {
      Enter e(self(), Call::binary_get_function);
      if (e.code()) return e.code();
      auto& names = self().function_names_;
      names.emplace_back(name);
      *f = &names.back();  // a handle: the name's (stable) address
      return ACL_SUCCESS;
    };
    a.aclrt_binary_unload = [](aclrtBinHandle h) -> aclError {
      Enter e(self(), Call::binary_unload);
      self().binaries_.erase(h);
      delete static_cast<std::string*>(h);
      return ACL_SUCCESS;
    };
    a.aclrt_launch_kernel = [](aclrtFuncHandle f, std::uint32_t blocks, const void* args,
                               std::size_t size, aclrtStream) -> aclError {
      Enter e(self(), Call::launch_kernel);
      if (e.code()) return e.code();
      auto& d = self();
      if (d.read(args).size() < size) return ACL_ERROR_INVALID_PARAM;  // not device memory
      Launch l;
      l.kernel = true;
      l.name = *static_cast<const std::string*>(f);
      l.block_dim = blocks;
      std::vector<void*> pointers(size / sizeof(void*));
      std::memcpy(pointers.data(), args, pointers.size() * sizeof(void*));
      for (void* p : pointers) {
        l.arguments.push_back(d.read(p));
        l.null_arguments.push_back(p == nullptr);
      }
      return d.launch(std::move(l));
    };
    return a;
  }

  mutable std::mutex mutex_;
  std::atomic<bool> busy_{false};
  std::atomic<bool> overlapped_{false};
  std::map<Call, Fault> faults_;
  std::map<Call, int> calls_;
  int inits_ = 0;
  int devices_ = 0;
  int device_set_ = -1;
  std::set<void*> contexts_, streams_, events_, host_, binaries_;
  std::uint64_t recorded_ = 0;   // event recordings so far
  std::uint64_t completed_ = 0;  // recordings up to this one have completed (synchronised)
  std::map<void*, std::size_t> device_;
  std::set<const aclTensorDesc*> descs_;
  std::set<const aclDataBuffer*> buffers_;
  std::set<const aclopAttr*> attrs_;
  std::map<int, std::string> options_;
  std::map<std::string, std::string> compiled_;  // op type -> impl mode at compile
  std::vector<aclTensorDesc> compiled_descs_;
  std::map<std::string, std::string> compiled_attrs_;
  std::vector<std::size_t> allocation_sizes_;
  std::deque<std::string> function_names_;  // stable addresses: the function handles
  std::vector<Launch> launches_;
  double clock_ms_ = 0;
  double longest_pending_ = 0;
  ascend::AclApi api_ = make_api();
};

}  // namespace aoe::test

#endif  // AOE_TESTS_ASCEND_ACL_DOUBLE_HPP
