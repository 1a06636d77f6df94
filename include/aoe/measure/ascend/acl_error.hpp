// AscendCL error codes as std::error_code values of the `acl` category, with ACL's names
// (ACL_ERROR_...). Needs no ACL header: aclError is an int.
#ifndef AOE_MEASURE_ASCEND_ACL_ERROR_HPP
#define AOE_MEASURE_ASCEND_ACL_ERROR_HPP

#include <array>
#include <string>
#include <string_view>
#include <system_error>

namespace aoe::ascend {

/// An AscendCL return value (`aclError`, an int; 0 is ACL_SUCCESS).
using AclStatus = int;

inline constexpr AclStatus acl_success = 0;

/// ACL error values the runner branches on (values from CANN's acl_base_rt.h and
/// error_codes/rt_error_codes.h; docs/ascend.md#public-sources).
namespace acl_errc {
inline constexpr AclStatus repeat_initialize = 100002;
inline constexpr AclStatus bad_alloc = 200000;
inline constexpr AclStatus rt_wait_timeout = 107019;
inline constexpr AclStatus rt_task_timeout = 107020;
inline constexpr AclStatus rt_memory_allocation = 207001;
inline constexpr AclStatus rt_no_device = 207004;
inline constexpr AclStatus rt_device_oom = 207018;
inline constexpr AclStatus rt_timeout = 207020;
inline constexpr AclStatus rt_aicore_timeout = 507014;
inline constexpr AclStatus rt_vector_core_timeout = 507034;
inline constexpr AclStatus rt_stream_sync_timeout = 507046;
inline constexpr AclStatus rt_event_sync_timeout = 507047;
}  // namespace acl_errc

namespace detail {

struct AclErrorEntry {
  AclStatus value;
  std::string_view name;
  std::string_view meaning;
};

// The names and values are CANN's; the short meanings are ours.
inline constexpr std::array<AclErrorEntry, 72> acl_error_table{{
    {0, "ACL_SUCCESS", "success"},
    {100000, "ACL_ERROR_INVALID_PARAM", "invalid parameter"},
    {100001, "ACL_ERROR_UNINITIALIZE", "AscendCL is not initialised (aclInit)"},
    {100002, "ACL_ERROR_REPEAT_INITIALIZE", "AscendCL is already initialised"},
    {100003, "ACL_ERROR_INVALID_FILE", "invalid file"},
    {100006, "ACL_ERROR_PARSE_FILE", "cannot parse the file"},
    {100020, "ACL_ERROR_OP_TYPE_NOT_MATCH", "operator type does not match"},
    {100021, "ACL_ERROR_OP_INPUT_NOT_MATCH", "operator inputs do not match"},
    {100022, "ACL_ERROR_OP_OUTPUT_NOT_MATCH", "operator outputs do not match"},
    {100023, "ACL_ERROR_OP_ATTR_NOT_MATCH", "operator attributes do not match"},
    {100024, "ACL_ERROR_OP_NOT_FOUND", "operator not found"},
    {100025, "ACL_ERROR_OP_LOAD_FAILED", "operator failed to load"},
    {100026, "ACL_ERROR_UNSUPPORTED_DATA_TYPE", "unsupported data type"},
    {100027, "ACL_ERROR_FORMAT_NOT_MATCH", "format does not match"},
    {100029, "ACL_ERROR_KERNEL_NOT_FOUND", "kernel not found"},
    {100037, "ACL_ERROR_REPEAT_FINALIZE", "AscendCL is already finalised"},
    {148049, "ACL_ERROR_INVALID_OPP_PATH", "invalid operator package path (ASCEND_OPP_PATH)"},
    {148050, "ACL_ERROR_OP_UNSUPPORTED_DYNAMIC", "operator does not support dynamic shapes"},
    {200000, "ACL_ERROR_BAD_ALLOC", "out of memory"},
    {200001, "ACL_ERROR_API_NOT_SUPPORT", "API not supported"},
    {200002, "ACL_ERROR_INVALID_DEVICE", "invalid device"},
    {200003, "ACL_ERROR_MEMORY_ADDRESS_UNALIGNED", "memory address not aligned"},
    {200004, "ACL_ERROR_RESOURCE_NOT_MATCH", "resources do not match"},
    {200005, "ACL_ERROR_INVALID_RESOURCE_HANDLE", "invalid resource handle"},
    {200006, "ACL_ERROR_FEATURE_UNSUPPORTED", "feature not supported"},
    {300000, "ACL_ERROR_STORAGE_OVER_LIMIT", "storage over limit"},
    {500000, "ACL_ERROR_INTERNAL_ERROR", "internal error"},
    {500001, "ACL_ERROR_FAILURE", "failure"},
    {500002, "ACL_ERROR_GE_FAILURE", "graph engine failure"},
    {500003, "ACL_ERROR_RT_FAILURE", "runtime failure"},
    {500004, "ACL_ERROR_DRV_FAILURE", "driver failure"},
    {500005, "ACL_ERROR_PROFILING_FAILURE", "profiling failure"},
    {107000, "ACL_ERROR_RT_PARAM_INVALID", "invalid runtime parameter"},
    {107001, "ACL_ERROR_RT_INVALID_DEVICEID", "invalid device id"},
    {107002, "ACL_ERROR_RT_CONTEXT_NULL", "no current context"},
    {107003, "ACL_ERROR_RT_STREAM_CONTEXT", "stream not in the current context"},
    {107006, "ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID", "event timestamp invalid"},
    {107007, "ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL", "event timestamps reversed"},
    {107008, "ACL_ERROR_RT_ADDR_UNALIGNED", "memory address not aligned"},
    {107009, "ACL_ERROR_RT_FILE_OPEN", "cannot open the file"},
    {107017, "ACL_ERROR_RT_INVALID_HANDLE", "invalid handle"},
    {107019, "ACL_ERROR_RT_WAIT_TIMEOUT", "wait timed out"},
    {107020, "ACL_ERROR_RT_TASK_TIMEOUT", "task timed out"},
    {207000, "ACL_ERROR_RT_FEATURE_NOT_SUPPORT", "feature not supported by the runtime"},
    {207001, "ACL_ERROR_RT_MEMORY_ALLOCATION", "out of device memory"},
    {207002, "ACL_ERROR_RT_MEMORY_FREE", "cannot free memory"},
    {207003, "ACL_ERROR_RT_AICORE_OVER_FLOW", "AI Core overflow"},
    {207004, "ACL_ERROR_RT_NO_DEVICE", "no device"},
    {207005, "ACL_ERROR_RT_RESOURCE_ALLOC_FAIL", "cannot allocate a runtime resource"},
    {207006, "ACL_ERROR_RT_NO_PERMISSION", "no permission"},
    {207007, "ACL_ERROR_RT_NO_EVENT_RESOURCE", "no event resource left"},
    {207008, "ACL_ERROR_RT_NO_STREAM_RESOURCE", "no stream resource left"},
    {207012, "ACL_ERROR_RT_OVER_LIMIT", "over limit"},
    {207018, "ACL_ERROR_RT_DEVICE_OOM", "device out of memory"},
    {207020, "ACL_ERROR_RT_TIMEOUT", "driver timeout"},
    {507000, "ACL_ERROR_RT_INTERNAL_ERROR", "runtime internal error"},
    {507001, "ACL_ERROR_RT_TS_ERROR", "task scheduler error"},
    {507002, "ACL_ERROR_RT_STREAM_TASK_FULL", "stream task queue full"},
    {507004, "ACL_ERROR_RT_STREAM_NOT_COMPLETE", "stream not complete"},
    {507006, "ACL_ERROR_RT_EVENT_NOT_COMPLETE", "event not complete"},
    {507008, "ACL_ERROR_RT_SOC_VERSION", "SoC version error"},
    {507010, "ACL_ERROR_RT_LOST_HEARTBEAT", "task scheduler lost heartbeat"},
    {507013, "ACL_ERROR_RT_SYS_DMA", "DMA error"},
    {507014, "ACL_ERROR_RT_AICORE_TIMEOUT", "AI Core timeout"},
    {507015, "ACL_ERROR_RT_AICORE_EXCEPTION", "AI Core exception"},
    {507016, "ACL_ERROR_RT_AICORE_TRAP_EXCEPTION", "AI Core trap exception"},
    {507027, "ACL_ERROR_RT_KERNEL_LOOKUP", "kernel lookup error"},
    {507033, "ACL_ERROR_RT_DEV_SETUP_ERROR", "device setup error"},
    {507034, "ACL_ERROR_RT_VECTOR_CORE_TIMEOUT", "vector core timeout"},
    {507035, "ACL_ERROR_RT_VECTOR_CORE_EXCEPTION", "vector core exception"},
    {507046, "ACL_ERROR_RT_STREAM_SYNC_TIMEOUT", "stream synchronisation timed out"},
    {507047, "ACL_ERROR_RT_EVENT_SYNC_TIMEOUT", "event synchronisation timed out"},
}};
static_assert(acl_error_table.back().value != 0, "acl_error_table: fewer entries than its size");

[[nodiscard]] constexpr const AclErrorEntry* find_acl_error(AclStatus value) noexcept {
  for (const auto& e : acl_error_table) {
    if (e.value == value) return &e;
  }
  return nullptr;
}

class AclCategory final : public std::error_category {
 public:
  [[nodiscard]] const char* name() const noexcept override { return "acl"; }
  [[nodiscard]] std::string message(int value) const override {
    if (const auto* e = find_acl_error(value)) {
      return std::string(e->name) + " (" + std::to_string(value) + "): " + std::string(e->meaning);
    }
    return "ACL error " + std::to_string(value);
  }
};

}  // namespace detail

/// The ACL name of a value ("ACL_ERROR_RT_MEMORY_ALLOCATION"), or "" for a value this table
/// does not know (the message then gives the number; aclGetRecentErrMsg says more).
[[nodiscard]] constexpr std::string_view acl_error_name(AclStatus value) noexcept {
  const auto* e = detail::find_acl_error(value);
  return e != nullptr ? e->name : std::string_view{};
}

/// The `acl` error category: message(v) is "ACL_ERROR_NAME (value): meaning".
[[nodiscard]] inline const std::error_category& acl_category() noexcept {
  static const detail::AclCategory category;
  return category;
}

[[nodiscard]] inline std::error_code make_acl_error_code(AclStatus value) noexcept {
  return {value, acl_category()};
}

/// Out of (device or host) memory: the candidate's buffers do not fit.
[[nodiscard]] constexpr bool is_out_of_memory(AclStatus value) noexcept {
  return value == acl_errc::bad_alloc || value == acl_errc::rt_memory_allocation ||
         value == acl_errc::rt_device_oom;
}

/// A synchronisation that gave up waiting or a core the hardware watchdog stopped.
[[nodiscard]] constexpr bool is_timeout(AclStatus value) noexcept {
  return value == acl_errc::rt_stream_sync_timeout || value == acl_errc::rt_event_sync_timeout ||
         value == acl_errc::rt_task_timeout || value == acl_errc::rt_aicore_timeout ||
         value == acl_errc::rt_vector_core_timeout || value == acl_errc::rt_timeout ||
         value == acl_errc::rt_wait_timeout;
}

}  // namespace aoe::ascend

#endif  // AOE_MEASURE_ASCEND_ACL_ERROR_HPP
