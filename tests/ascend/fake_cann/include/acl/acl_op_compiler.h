/* OpenAOE fake CANN toolkit: the subset of AscendCL's acl/acl_op_compiler.h that OpenAOE uses
 * (aclopCompile and compile options). Same names, values and signatures as CANN; see
 * acl_base.h for what this directory is. */
#ifndef AOE_FAKE_CANN_ACL_ACL_OP_COMPILER_H
#define AOE_FAKE_CANN_ACL_ACL_OP_COMPILER_H

/* AscendCL's C names and typedefs, not ours: clang-tidy checks nothing here. */
/* NOLINTBEGIN */

#include "acl_base.h"
#include "acl_op.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum aclCompileType { ACL_COMPILE_SYS, ACL_COMPILE_UNREGISTERED } aclopCompileType;

typedef enum {
  ACL_PRECISION_MODE,
  ACL_AICORE_NUM,
  ACL_AUTO_TUNE_MODE,
  ACL_OP_SELECT_IMPL_MODE,
  ACL_OPTYPELIST_FOR_IMPLMODE,
  ACL_OP_DEBUG_LEVEL,
  ACL_DEBUG_DIR,
  ACL_OP_COMPILER_CACHE_MODE,
  ACL_OP_COMPILER_CACHE_DIR,
  ACL_OP_PERFORMANCE_MODE
} aclCompileOpt;

aclError aclopCompile(const char* opType, int numInputs, const aclTensorDesc* const inputDesc[],
                      int numOutputs, const aclTensorDesc* const outputDesc[],
                      const aclopAttr* attr, aclopEngineType engineType,
                      aclopCompileType compileFlag, const char* opPath);
aclError aclSetCompileopt(aclCompileOpt opt, const char* value);

#ifdef __cplusplus
}
#endif

/* NOLINTEND */

#endif /* AOE_FAKE_CANN_ACL_ACL_OP_COMPILER_H */
