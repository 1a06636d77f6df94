// OpenAOE fake CANN toolkit: libascendcl of a machine without an NPU. aclInit succeeds,
// aclrtGetDeviceCount reports 0 devices, everything that needs a device fails with
// ACL_ERROR_RT_NO_DEVICE, constructors return null. It exists so that an AOE_WITH_ASCEND=ON
// build links and its `npu` tests run (and skip) without CANN; see docs/ascend.md.
#include <acl/acl.h>

namespace {
constexpr aclError no_device = 207004;  // ACL_ERROR_RT_NO_DEVICE
}  // namespace

extern "C" {
// AscendCL's C names, not ours.
// NOLINTBEGIN

aclError aclInit(const char*) { return ACL_SUCCESS; }
aclError aclFinalize(void) { return ACL_SUCCESS; }
const char* aclGetRecentErrMsg(void) {
  return "OpenAOE fake CANN toolkit: this machine has no NPU";
}

aclError aclrtGetDeviceCount(uint32_t* count) {
  if (count == nullptr) return ACL_ERROR_INVALID_PARAM;
  *count = 0;
  return ACL_SUCCESS;
}
aclError aclrtSetDevice(int32_t) { return no_device; }
aclError aclrtResetDevice(int32_t) { return no_device; }
const char* aclrtGetSocName(void) { return nullptr; }
aclError aclGetDeviceCapability(uint32_t, aclDeviceInfo, int64_t*) { return no_device; }
aclError aclrtCreateContext(aclrtContext*, int32_t) { return no_device; }
aclError aclrtDestroyContext(aclrtContext) { return no_device; }
aclError aclrtSetCurrentContext(aclrtContext) { return no_device; }

aclError aclrtCreateStream(aclrtStream*) { return no_device; }
aclError aclrtDestroyStream(aclrtStream) { return no_device; }
aclError aclrtSynchronizeStreamWithTimeout(aclrtStream, int32_t) { return no_device; }
aclError aclrtCreateEvent(aclrtEvent*) { return no_device; }
aclError aclrtDestroyEvent(aclrtEvent) { return no_device; }
aclError aclrtRecordEvent(aclrtEvent, aclrtStream) { return no_device; }
aclError aclrtSynchronizeEventWithTimeout(aclrtEvent, int32_t) { return no_device; }
aclError aclrtEventElapsedTime(float*, aclrtEvent, aclrtEvent) { return no_device; }

aclError aclrtMalloc(void**, size_t, aclrtMemMallocPolicy) { return no_device; }
aclError aclrtFree(void*) { return no_device; }
aclError aclrtMallocHost(void**, size_t) { return no_device; }
aclError aclrtFreeHost(void*) { return no_device; }
aclError aclrtMemcpy(void*, size_t, const void*, size_t, aclrtMemcpyKind) { return no_device; }
aclError aclrtMemset(void*, size_t, int32_t, size_t) { return no_device; }

aclError aclrtBinaryLoadFromFile(const char*, aclrtBinaryLoadOptions*, aclrtBinHandle*) {
  return no_device;
}
aclError aclrtBinaryGetFunction(const aclrtBinHandle, const char*, aclrtFuncHandle*) {
  return no_device;
}
aclError aclrtBinaryUnLoad(aclrtBinHandle) { return no_device; }
aclError aclrtLaunchKernel(aclrtFuncHandle, uint32_t, const void*, size_t, aclrtStream) {
  return no_device;
}

aclDataBuffer* aclCreateDataBuffer(void*, size_t) { return nullptr; }
aclError aclDestroyDataBuffer(const aclDataBuffer*) { return ACL_SUCCESS; }
aclTensorDesc* aclCreateTensorDesc(aclDataType, int, const int64_t*, aclFormat) { return nullptr; }
void aclDestroyTensorDesc(const aclTensorDesc*) {}
aclError aclSetTensorFormat(aclTensorDesc*, aclFormat) { return ACL_ERROR_INVALID_PARAM; }
aclError aclSetTensorShape(aclTensorDesc*, int, const int64_t*) { return ACL_ERROR_INVALID_PARAM; }

aclopAttr* aclopCreateAttr(void) { return nullptr; }
void aclopDestroyAttr(const aclopAttr*) {}
aclError aclopSetAttrBool(aclopAttr*, const char*, uint8_t) { return ACL_ERROR_INVALID_PARAM; }
aclError aclopSetAttrInt(aclopAttr*, const char*, int64_t) { return ACL_ERROR_INVALID_PARAM; }
aclError aclopSetAttrFloat(aclopAttr*, const char*, float) { return ACL_ERROR_INVALID_PARAM; }
aclError aclopSetAttrString(aclopAttr*, const char*, const char*) {
  return ACL_ERROR_INVALID_PARAM;
}
aclError aclopSetAttrListInt(aclopAttr*, const char*, int, const int64_t*) {
  return ACL_ERROR_INVALID_PARAM;
}
aclError aclopExecuteV2(const char*, int, aclTensorDesc*[], aclDataBuffer*[], int, aclTensorDesc*[],
                        aclDataBuffer*[], aclopAttr*, aclrtStream) {
  return no_device;
}

// NOLINTEND
}  // extern "C"
