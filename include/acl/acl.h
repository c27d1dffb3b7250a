//===- acl.h - Host stand-in for AscendCL (the subset HCCL programs use) -===//
//
// NOT Huawei's ACL: see acl_base.h and acl_rt.h. HCCL's hccl.h includes
// <acl/acl.h>; this one carries the calls HCCL samples and hccl_test make,
// implemented by libascendcl.so on the host runtime.
//
//===----------------------------------------------------------------------===//
#ifndef INC_EXTERNAL_ACL_ACL_H_
#define INC_EXTERNAL_ACL_ACL_H_

#include "acl_rt.h"

#endif // INC_EXTERNAL_ACL_ACL_H_
