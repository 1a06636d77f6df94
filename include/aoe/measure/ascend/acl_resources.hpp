// RAII for AscendCL resources: initialisation, the device, context, stream, events, device and
// host memory, tensor descriptors, data buffers, operator attributes and kernel binaries. Each
// owner releases through the AclApi table it was created with, on every path.
#ifndef AOE_MEASURE_ASCEND_ACL_RESOURCES_HPP
#define AOE_MEASURE_ASCEND_ACL_RESOURCES_HPP

#include "aoe/core/error.hpp"
#include "aoe/measure/ascend/acl_api.hpp"
#include "aoe/measure/ascend/acl_error.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace aoe::ascend {

/// "ACL_ERROR_X (value): meaning", plus aclGetRecentErrMsg's text when it has one.
[[nodiscard]] inline std::string acl_message(const AclApi& api, AclStatus status) {
  std::string out = acl_category().message(status);
  if (api.acl_get_recent_err_msg != nullptr) {
    const char* recent = api.acl_get_recent_err_msg();
    if (recent != nullptr && *recent != '\0') out += "; " + std::string(recent);
  }
  return out;
}

/// An environment error carrying the ACL code: "<what> failed: ACL_ERROR_X (...)".
[[nodiscard]] inline ErrorInfo acl_error(const AclApi& api, AclStatus status,
                                         const std::string& what) {
  return ErrorInfo(make_acl_error_code(status), what + " failed: " + acl_message(api, status));
}

/// Owns one ACL handle (a stream, an event, a pointer ...) and gives it back through `release`
/// when destroyed. Move-only.
template <class Handle>
class AclHandle {
 public:
  using Release = void (*)(const AclApi&, Handle);

  AclHandle() = default;
  AclHandle(const AclApi& api, Handle handle, Release release) noexcept
      : api_(&api), handle_(handle), release_(release) {}
  AclHandle(const AclHandle&) = delete;
  AclHandle& operator=(const AclHandle&) = delete;
  AclHandle(AclHandle&& o) noexcept
      : api_(o.api_), handle_(std::exchange(o.handle_, Handle{})), release_(o.release_) {}
  AclHandle& operator=(AclHandle&& o) noexcept {
    if (this != &o) {
      reset();
      api_ = o.api_;
      handle_ = std::exchange(o.handle_, Handle{});
      release_ = o.release_;
    }
    return *this;
  }
  ~AclHandle() { reset(); }

  [[nodiscard]] Handle get() const noexcept { return handle_; }
  explicit operator bool() const noexcept { return handle_ != Handle{}; }

  void reset() noexcept {
    if (handle_ != Handle{} && release_ != nullptr) release_(*api_, handle_);
    handle_ = Handle{};
  }

 private:
  const AclApi* api_ = nullptr;
  Handle handle_{};
  Release release_ = nullptr;
};

using Context = AclHandle<aclrtContext>;
using Stream = AclHandle<aclrtStream>;
using Event = AclHandle<aclrtEvent>;
using TensorDescHandle = AclHandle<aclTensorDesc*>;
using DataBufferHandle = AclHandle<aclDataBuffer*>;
using OpAttrHandle = AclHandle<aclopAttr*>;
using BinaryHandle = AclHandle<aclrtBinHandle>;

/// Device memory (aclrtMalloc / aclrtFree) and its size.
class DeviceMemory {
 public:
  DeviceMemory() = default;
  [[nodiscard]] void* get() const noexcept { return memory_.get(); }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

  /// `bytes` of device memory (huge pages first, as AscendCL's samples allocate); 0 bytes is
  /// an empty owner. Out of memory is an error whose code is the ACL one (see
  /// is_out_of_memory).
  [[nodiscard]] static Result<DeviceMemory> allocate(const AclApi& api, std::size_t bytes) {
    DeviceMemory m;
    if (bytes == 0) return m;
    void* p = nullptr;
    if (const AclStatus s = api.aclrt_malloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
        s != acl_success) {
      return acl_error(api, s, "aclrtMalloc(" + std::to_string(bytes) + " bytes)");
    }
    m.memory_ = AclHandle<void*>(api, p, [](const AclApi& a, void* q) { a.aclrt_free(q); });
    m.size_ = bytes;
    return m;
  }

 private:
  AclHandle<void*> memory_;
  std::size_t size_ = 0;
};

/// Page-locked host memory (aclrtMallocHost / aclrtFreeHost): the staging area of copies to
/// the device.
class HostMemory {
 public:
  HostMemory() = default;
  [[nodiscard]] void* get() const noexcept { return memory_.get(); }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

  [[nodiscard]] static Result<HostMemory> allocate(const AclApi& api, std::size_t bytes) {
    HostMemory m;
    if (bytes == 0) return m;
    void* p = nullptr;
    if (const AclStatus s = api.aclrt_malloc_host(&p, bytes); s != acl_success) {
      return acl_error(api, s, "aclrtMallocHost(" + std::to_string(bytes) + " bytes)");
    }
    m.memory_ = AclHandle<void*>(api, p, [](const AclApi& a, void* q) { a.aclrt_free_host(q); });
    m.size_ = bytes;
    return m;
  }

 private:
  AclHandle<void*> memory_;
  std::size_t size_ = 0;
};

[[nodiscard]] inline Result<Context> create_context(const AclApi& api, std::int32_t device) {
  aclrtContext c = nullptr;
  if (const AclStatus s = api.aclrt_create_context(&c, device); s != acl_success) {
    return acl_error(api, s, "aclrtCreateContext(device " + std::to_string(device) + ")");
  }
  return Context(api, c, [](const AclApi& a, aclrtContext h) { a.aclrt_destroy_context(h); });
}

[[nodiscard]] inline Result<Stream> create_stream(const AclApi& api) {
  aclrtStream st = nullptr;
  if (const AclStatus s = api.aclrt_create_stream(&st); s != acl_success) {
    return acl_error(api, s, "aclrtCreateStream");
  }
  return Stream(api, st, [](const AclApi& a, aclrtStream h) { a.aclrt_destroy_stream(h); });
}

[[nodiscard]] inline Result<Event> create_event(const AclApi& api) {
  aclrtEvent e = nullptr;
  if (const AclStatus s = api.aclrt_create_event(&e); s != acl_success) {
    return acl_error(api, s, "aclrtCreateEvent");
  }
  return Event(api, e, [](const AclApi& a, aclrtEvent h) { a.aclrt_destroy_event(h); });
}

/// aclInit once per process and table, shared by every user; aclFinalize when the last user
/// goes, and only if this code made the aclInit (an application that initialised AscendCL
/// itself, ACL_ERROR_REPEAT_INITIALIZE, keeps it).
class AclInit {
 public:
  AclInit() = default;
  AclInit(const AclInit&) = delete;
  AclInit& operator=(const AclInit&) = delete;
  AclInit(AclInit&& o) noexcept : api_(std::exchange(o.api_, nullptr)) {}
  AclInit& operator=(AclInit&& o) noexcept {
    if (this != &o) {
      release();
      api_ = std::exchange(o.api_, nullptr);
    }
    return *this;
  }
  ~AclInit() { release(); }

  /// `config`: an AscendCL JSON configuration file, or empty.
  [[nodiscard]] static Result<AclInit> acquire(const AclApi& api, const std::string& config) {
    std::lock_guard lock(mutex());
    State& st = states()[&api];
    if (st.users == 0) {
      const AclStatus s = api.acl_init(config.empty() ? nullptr : config.c_str());
      if (s != acl_success && s != acl_errc::repeat_initialize) {
        return acl_error(
            api, s, "aclInit(" + (config.empty() ? std::string("no configuration") : config) + ")");
      }
      st.owned = s == acl_success;
    }
    ++st.users;
    AclInit a;
    a.api_ = &api;
    return a;
  }

 private:
  struct State {
    int users = 0;
    bool owned = false;
  };
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::map<const AclApi*, State>& states() {
    static std::map<const AclApi*, State> s;
    return s;
  }
  void release() noexcept {
    if (api_ == nullptr) return;
    std::lock_guard lock(mutex());
    State& st = states()[api_];
    if (--st.users == 0 && st.owned) {
      api_->acl_finalize();
      st.owned = false;
    }
    api_ = nullptr;
  }

  const AclApi* api_ = nullptr;
};

/// aclrtSetDevice on creation, aclrtResetDevice on destruction.
class DeviceBinding {
 public:
  DeviceBinding() = default;
  DeviceBinding(const DeviceBinding&) = delete;
  DeviceBinding& operator=(const DeviceBinding&) = delete;
  DeviceBinding(DeviceBinding&& o) noexcept
      : api_(std::exchange(o.api_, nullptr)), device_(o.device_) {}
  DeviceBinding& operator=(DeviceBinding&& o) noexcept {
    if (this != &o) {
      release();
      api_ = std::exchange(o.api_, nullptr);
      device_ = o.device_;
    }
    return *this;
  }
  ~DeviceBinding() { release(); }

  [[nodiscard]] static Result<DeviceBinding> set(const AclApi& api, std::int32_t device) {
    if (const AclStatus s = api.aclrt_set_device(device); s != acl_success) {
      return acl_error(api, s, "aclrtSetDevice(" + std::to_string(device) + ")");
    }
    DeviceBinding b;
    b.api_ = &api;
    b.device_ = device;
    return b;
  }
  [[nodiscard]] std::int32_t device() const noexcept { return device_; }

 private:
  void release() noexcept {
    if (api_ != nullptr) api_->aclrt_reset_device(device_);
    api_ = nullptr;
  }
  const AclApi* api_ = nullptr;
  std::int32_t device_ = 0;
};

}  // namespace aoe::ascend

#endif  // AOE_MEASURE_ASCEND_ACL_RESOURCES_HPP
