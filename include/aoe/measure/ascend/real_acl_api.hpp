// The AclApi table of the real AscendCL functions (CANN's libascendcl and libacl_op_compiler).
// Compiles against any declarations of acl/acl.h; links only where those libraries are linked
// (the target aoe::ascend, AOE_WITH_ASCEND=ON). Nothing is emitted unless real_acl_api() is
// called, so CI compiles it against the fake toolkit's declarations without linking it.
#ifndef AOE_MEASURE_ASCEND_REAL_ACL_API_HPP
#define AOE_MEASURE_ASCEND_REAL_ACL_API_HPP

#include "aoe/measure/ascend/acl_api.hpp"

#include <acl/acl.h>
#include <acl/acl_op_compiler.h>

namespace aoe::ascend {

/// The real entry points. Each initialiser is the address of the ACL function: a signature that
/// differs from AclApi's member type is a compile error here.
[[nodiscard]] inline const AclApi& real_acl_api() noexcept {
  static const AclApi api{
      .acl_init = &::aclInit,
      .acl_finalize = &::aclFinalize,
      .acl_get_recent_err_msg = &::aclGetRecentErrMsg,
      .aclrt_get_device_count = &::aclrtGetDeviceCount,
      .aclrt_set_device = &::aclrtSetDevice,
      .aclrt_reset_device = &::aclrtResetDevice,
      .aclrt_get_soc_name = &::aclrtGetSocName,
      .acl_get_device_capability = &::aclGetDeviceCapability,
      .aclrt_create_context = &::aclrtCreateContext,
      .aclrt_destroy_context = &::aclrtDestroyContext,
      .aclrt_set_current_context = &::aclrtSetCurrentContext,
      .aclrt_create_stream = &::aclrtCreateStream,
      .aclrt_destroy_stream = &::aclrtDestroyStream,
      .aclrt_synchronize_stream_with_timeout = &::aclrtSynchronizeStreamWithTimeout,
      .aclrt_create_event = &::aclrtCreateEvent,
      .aclrt_destroy_event = &::aclrtDestroyEvent,
      .aclrt_record_event = &::aclrtRecordEvent,
      .aclrt_synchronize_event_with_timeout = &::aclrtSynchronizeEventWithTimeout,
      .aclrt_event_elapsed_time = &::aclrtEventElapsedTime,
      .aclrt_malloc = &::aclrtMalloc,
      .aclrt_free = &::aclrtFree,
      .aclrt_malloc_host = &::aclrtMallocHost,
      .aclrt_free_host = &::aclrtFreeHost,
      .aclrt_memcpy = &::aclrtMemcpy,
      .aclrt_memset = &::aclrtMemset,
      .acl_create_tensor_desc = &::aclCreateTensorDesc,
      .acl_destroy_tensor_desc = &::aclDestroyTensorDesc,
      .acl_set_tensor_format = &::aclSetTensorFormat,
      .acl_set_tensor_shape = &::aclSetTensorShape,
      .acl_create_data_buffer = &::aclCreateDataBuffer,
      .acl_destroy_data_buffer = &::aclDestroyDataBuffer,
      .aclop_create_attr = &::aclopCreateAttr,
      .aclop_destroy_attr = &::aclopDestroyAttr,
      .aclop_set_attr_bool = &::aclopSetAttrBool,
      .aclop_set_attr_int = &::aclopSetAttrInt,
      .aclop_set_attr_float = &::aclopSetAttrFloat,
      .aclop_set_attr_string = &::aclopSetAttrString,
      .aclop_set_attr_list_int = &::aclopSetAttrListInt,
      .acl_set_compileopt = &::aclSetCompileopt,
      .aclop_compile = &::aclopCompile,
      .aclop_execute_v2 = &::aclopExecuteV2,
      .aclrt_binary_load_from_file = &::aclrtBinaryLoadFromFile,
      .aclrt_binary_get_function = &::aclrtBinaryGetFunction,
      .aclrt_binary_unload = &::aclrtBinaryUnLoad,
      .aclrt_launch_kernel = &::aclrtLaunchKernel,
  };
  return api;
}

}  // namespace aoe::ascend

#endif  // AOE_MEASURE_ASCEND_REAL_ACL_API_HPP
