// OpenAOE fake CANN toolkit: libacl_op_compiler of a machine without CANN's operator
// compiler; every compile fails with ACL_ERROR_OP_NOT_FOUND. See ascendcl.cpp.
#include <acl/acl_op_compiler.h>

extern "C" {
// AscendCL's C names, not ours.
// NOLINTBEGIN

aclError aclopCompile(const char*, int, const aclTensorDesc* const[], int,
                      const aclTensorDesc* const[], const aclopAttr*, aclopEngineType,
                      aclopCompileType, const char*) {
  return ACL_ERROR_OP_NOT_FOUND;
}
aclError aclSetCompileopt(aclCompileOpt, const char*) { return ACL_SUCCESS; }

// NOLINTEND
}  // extern "C"
