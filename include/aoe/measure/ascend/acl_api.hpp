// The AscendCL entry points the Ascend runner calls, as one table of function pointers: the real
// functions (real_acl_api.hpp, with CANN) or a test double (tests/ascend/). Every member has
// exactly the type of the ACL function it stands for, so assigning the real function compiles
// only if the signatures agree (docs/ascend.md#public-sources).
#ifndef AOE_MEASURE_ASCEND_ACL_API_HPP
#define AOE_MEASURE_ASCEND_ACL_API_HPP

#include <acl/acl.h>
#include <acl/acl_op_compiler.h>

#include <cstddef>
#include <cstdint>

namespace aoe::ascend {

/// AscendCL's entry points, one member per function, named as the function in snake_case
/// (`aclrtSetDevice` -> `aclrt_set_device`). A table must set every member: the runner calls
/// them without checking for null. Headers: acl/acl.h, acl/acl_op_compiler.h; libraries:
/// libascendcl (runtime) and libacl_op_compiler (aclopCompile, aclSetCompileopt).
struct AclApi {
  // ---- initialisation and errors ----
  aclError (*acl_init)(const char* config_path) = nullptr;
  aclError (*acl_finalize)() = nullptr;
  const char* (*acl_get_recent_err_msg)() = nullptr;

  // ---- device and context ----
  aclError (*aclrt_get_device_count)(std::uint32_t* count) = nullptr;
  aclError (*aclrt_set_device)(std::int32_t device_id) = nullptr;
  aclError (*aclrt_reset_device)(std::int32_t device_id) = nullptr;
  const char* (*aclrt_get_soc_name)() = nullptr;
  aclError (*acl_get_device_capability)(std::uint32_t device_id, aclDeviceInfo info,
                                        std::int64_t* value) = nullptr;
  aclError (*aclrt_create_context)(aclrtContext* context, std::int32_t device_id) = nullptr;
  aclError (*aclrt_destroy_context)(aclrtContext context) = nullptr;
  aclError (*aclrt_set_current_context)(aclrtContext context) = nullptr;

  // ---- stream and events ----
  aclError (*aclrt_create_stream)(aclrtStream* stream) = nullptr;
  aclError (*aclrt_destroy_stream)(aclrtStream stream) = nullptr;
  aclError (*aclrt_synchronize_stream_with_timeout)(aclrtStream stream,
                                                    std::int32_t timeout) = nullptr;
  aclError (*aclrt_create_event)(aclrtEvent* event) = nullptr;
  aclError (*aclrt_destroy_event)(aclrtEvent event) = nullptr;
  aclError (*aclrt_record_event)(aclrtEvent event, aclrtStream stream) = nullptr;
  aclError (*aclrt_synchronize_event_with_timeout)(aclrtEvent event,
                                                   std::int32_t timeout) = nullptr;
  aclError (*aclrt_event_elapsed_time)(float* ms, aclrtEvent start, aclrtEvent end) = nullptr;

  // ---- memory ----
  aclError (*aclrt_malloc)(void** dev_ptr, std::size_t size, aclrtMemMallocPolicy policy) = nullptr;
  aclError (*aclrt_free)(void* dev_ptr) = nullptr;
  aclError (*aclrt_malloc_host)(void** host_ptr, std::size_t size) = nullptr;
  aclError (*aclrt_free_host)(void* host_ptr) = nullptr;
  aclError (*aclrt_memcpy)(void* dst, std::size_t dest_max, const void* src, std::size_t count,
                           aclrtMemcpyKind kind) = nullptr;
  aclError (*aclrt_memset)(void* dev_ptr, std::size_t max_count, std::int32_t value,
                           std::size_t count) = nullptr;

  // ---- single operators (aclop) ----
  aclTensorDesc* (*acl_create_tensor_desc)(aclDataType data_type, int num_dims,
                                           const std::int64_t* dims, aclFormat format) = nullptr;
  void (*acl_destroy_tensor_desc)(const aclTensorDesc* desc) = nullptr;
  aclError (*acl_set_tensor_format)(aclTensorDesc* desc, aclFormat format) = nullptr;
  aclError (*acl_set_tensor_shape)(aclTensorDesc* desc, int num_dims,
                                   const std::int64_t* dims) = nullptr;
  aclDataBuffer* (*acl_create_data_buffer)(void* data, std::size_t size) = nullptr;
  aclError (*acl_destroy_data_buffer)(const aclDataBuffer* buffer) = nullptr;
  aclopAttr* (*aclop_create_attr)() = nullptr;
  void (*aclop_destroy_attr)(const aclopAttr* attr) = nullptr;
  aclError (*aclop_set_attr_bool)(aclopAttr* attr, const char* name, std::uint8_t value) = nullptr;
  aclError (*aclop_set_attr_int)(aclopAttr* attr, const char* name, std::int64_t value) = nullptr;
  aclError (*aclop_set_attr_float)(aclopAttr* attr, const char* name, float value) = nullptr;
  aclError (*aclop_set_attr_string)(aclopAttr* attr, const char* name, const char* value) = nullptr;
  aclError (*aclop_set_attr_list_int)(aclopAttr* attr, const char* name, int num_values,
                                      const std::int64_t* values) = nullptr;
  aclError (*acl_set_compileopt)(aclCompileOpt opt, const char* value) = nullptr;
  aclError (*aclop_compile)(const char* op_type, int num_inputs,
                            const aclTensorDesc* const input_desc[], int num_outputs,
                            const aclTensorDesc* const output_desc[], const aclopAttr* attr,
                            aclopEngineType engine_type, aclopCompileType compile_flag,
                            const char* op_path) = nullptr;
  aclError (*aclop_execute_v2)(const char* op_type, int num_inputs, aclTensorDesc* input_desc[],
                               aclDataBuffer* inputs[], int num_outputs,
                               aclTensorDesc* output_desc[], aclDataBuffer* outputs[],
                               aclopAttr* attr, aclrtStream stream) = nullptr;

  // ---- Ascend C kernels ----
  aclError (*aclrt_binary_load_from_file)(const char* bin_path, aclrtBinaryLoadOptions* options,
                                          aclrtBinHandle* bin_handle) = nullptr;
  aclError (*aclrt_binary_get_function)(const aclrtBinHandle bin_handle, const char* kernel_name,
                                        aclrtFuncHandle* func_handle) = nullptr;
  aclError (*aclrt_binary_unload)(aclrtBinHandle bin_handle) = nullptr;
  aclError (*aclrt_launch_kernel)(aclrtFuncHandle func_handle, std::uint32_t num_blocks,
                                  const void* args_data, std::size_t args_size,
                                  aclrtStream stream) = nullptr;
};

}  // namespace aoe::ascend

#endif  // AOE_MEASURE_ASCEND_ACL_API_HPP
