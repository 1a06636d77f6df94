/* OpenAOE fake CANN toolkit: the subset of AscendCL's public declarations that OpenAOE uses,
 * written from CANN's public headers (docs/ascend.md, "Public sources"). Types,
 * names, values and signatures match CANN's acl/acl_base.h (with acl_base_rt.h and
 * acl_base_mdl.h); nothing else is declared. It lets CI compile the Ascend runner and its real
 * entry-point table without CANN (docs/ascend.md, "The test double"). Not for production use. */
#ifndef AOE_FAKE_CANN_ACL_ACL_BASE_H
#define AOE_FAKE_CANN_ACL_ACL_BASE_H

/* AscendCL's C names and typedefs, not ours: clang-tidy checks nothing here. */
/* NOLINTBEGIN */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int aclError;
typedef void* aclrtStream;
typedef void* aclrtEvent;
typedef void* aclrtContext;
typedef struct aclDataBuffer aclDataBuffer;
typedef struct aclTensorDesc aclTensorDesc;

static const int ACL_SUCCESS = 0;
static const int ACL_ERROR_NONE = 0;
static const int ACL_ERROR_INVALID_PARAM = 100000;
static const int ACL_ERROR_UNINITIALIZE = 100001;
static const int ACL_ERROR_REPEAT_INITIALIZE = 100002;
static const int ACL_ERROR_OP_NOT_FOUND = 100024;
static const int ACL_ERROR_OP_LOAD_FAILED = 100025;
static const int ACL_ERROR_UNSUPPORTED_DATA_TYPE = 100026;
static const int ACL_ERROR_FORMAT_NOT_MATCH = 100027;
static const int ACL_ERROR_KERNEL_NOT_FOUND = 100029;
static const int ACL_ERROR_BAD_ALLOC = 200000;
static const int ACL_ERROR_INVALID_DEVICE = 200002;
static const int ACL_ERROR_FAILURE = 500001;
static const int ACL_ERROR_GE_FAILURE = 500002;
static const int ACL_ERROR_RT_FAILURE = 500003;

typedef enum {
  ACL_DT_UNDEFINED = -1,
  ACL_FLOAT = 0,
  ACL_FLOAT16 = 1,
  ACL_INT8 = 2,
  ACL_INT32 = 3,
  ACL_UINT8 = 4,
  ACL_INT16 = 6,
  ACL_UINT16 = 7,
  ACL_UINT32 = 8,
  ACL_INT64 = 9,
  ACL_UINT64 = 10,
  ACL_DOUBLE = 11,
  ACL_BOOL = 12,
  ACL_BF16 = 27
} aclDataType;

typedef enum {
  ACL_FORMAT_UNDEFINED = -1,
  ACL_FORMAT_NCHW = 0,
  ACL_FORMAT_NHWC = 1,
  ACL_FORMAT_ND = 2,
  ACL_FORMAT_NC1HWC0 = 3,
  ACL_FORMAT_FRACTAL_Z = 4,
  ACL_FORMAT_HWCN = 16,
  ACL_FORMAT_FRACTAL_NZ = 29
} aclFormat;

typedef enum {
  ACL_DEVICE_INFO_UNDEFINED = -1,
  ACL_DEVICE_INFO_AI_CORE_NUM = 0,
  ACL_DEVICE_INFO_VECTOR_CORE_NUM = 1,
  ACL_DEVICE_INFO_L2_SIZE = 2
} aclDeviceInfo;

aclDataBuffer* aclCreateDataBuffer(void* data, size_t size);
aclError aclDestroyDataBuffer(const aclDataBuffer* dataBuffer);

aclTensorDesc* aclCreateTensorDesc(aclDataType dataType, int numDims, const int64_t* dims,
                                   aclFormat format);
void aclDestroyTensorDesc(const aclTensorDesc* desc);
aclError aclSetTensorFormat(aclTensorDesc* desc, aclFormat format);
aclError aclSetTensorShape(aclTensorDesc* desc, int numDims, const int64_t* dims);

const char* aclrtGetSocName(void);
aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t* value);

#ifdef __cplusplus
}
#endif

/* NOLINTEND */

#endif /* AOE_FAKE_CANN_ACL_ACL_BASE_H */
