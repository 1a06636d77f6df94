// The Khronos C++ bindings (CL/opencl.hpp) with the API level the OpenCL runner uses: OpenCL 1.2,
// which every driver offers; no exceptions (errors are codes, turned into measurements).
#ifndef AOE_MEASURE_OPENCL_DETAIL_CL_HPP
#define AOE_MEASURE_OPENCL_DETAIL_CL_HPP

#ifndef CL_HPP_MINIMUM_OPENCL_VERSION
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#endif
#ifndef CL_HPP_TARGET_OPENCL_VERSION
#define CL_HPP_TARGET_OPENCL_VERSION 120
#endif

#include <CL/opencl.hpp>

#endif  // AOE_MEASURE_OPENCL_DETAIL_CL_HPP
