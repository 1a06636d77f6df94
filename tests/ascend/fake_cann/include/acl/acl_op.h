/* OpenAOE fake CANN toolkit: the single-operator subset of AscendCL's acl/acl_op.h that OpenAOE
 * uses (attributes and aclopExecuteV2). Same names, values and signatures as CANN; see
 * acl_base.h for what this directory is. */
#ifndef AOE_FAKE_CANN_ACL_ACL_OP_H
#define AOE_FAKE_CANN_ACL_ACL_OP_H

/* AscendCL's C names and typedefs, not ours: clang-tidy checks nothing here. */
/* NOLINTBEGIN */

#include "acl_base.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aclopAttr aclopAttr;

typedef enum aclEngineType { ACL_ENGINE_SYS, ACL_ENGINE_AICORE, ACL_ENGINE_VECTOR } aclopEngineType;

aclopAttr* aclopCreateAttr(void);
void aclopDestroyAttr(const aclopAttr* attr);
aclError aclopSetAttrBool(aclopAttr* attr, const char* attrName, uint8_t attrValue);
aclError aclopSetAttrInt(aclopAttr* attr, const char* attrName, int64_t attrValue);
aclError aclopSetAttrFloat(aclopAttr* attr, const char* attrName, float attrValue);
aclError aclopSetAttrString(aclopAttr* attr, const char* attrName, const char* attrValue);
aclError aclopSetAttrListInt(aclopAttr* attr, const char* attrName, int numValues,
                             const int64_t* values);

aclError aclopExecuteV2(const char* opType, int numInputs, aclTensorDesc* inputDesc[],
                        aclDataBuffer* inputs[], int numOutputs, aclTensorDesc* outputDesc[],
                        aclDataBuffer* outputs[], aclopAttr* attr, aclrtStream stream);

#ifdef __cplusplus
}
#endif

/* NOLINTEND */

#endif /* AOE_FAKE_CANN_ACL_ACL_OP_H */
