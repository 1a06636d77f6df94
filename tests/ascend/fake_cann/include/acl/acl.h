/* OpenAOE fake CANN toolkit: acl/acl.h, which (as in CANN) includes the runtime and
 * single-operator headers; see acl_base.h for what this directory is. */
#ifndef AOE_FAKE_CANN_ACL_ACL_H
#define AOE_FAKE_CANN_ACL_ACL_H

/* AscendCL's C names and typedefs, not ours: clang-tidy checks nothing here. */
/* NOLINTBEGIN */

#include "acl_base.h"
#include "acl_op.h"
#include "acl_rt.h"

/* NOLINTEND */

#endif /* AOE_FAKE_CANN_ACL_ACL_H */
