# AoeOpenCL.cmake: the OpenCL dependency of the OpenCL runner (include/aoe/measure/opencl/).
# Included by the top-level CMakeLists.txt unless AOE_WITH_OPENCL=OFF.
#
# AOE_WITH_OPENCL: AUTO (default) enables the component when the ICD loader (libOpenCL) and the
# Khronos C++ bindings (CL/opencl.hpp) are found; ON requires them (configuring stops with the
# Debian package names otherwise); OFF never looks.
#
# Defines the INTERFACE target aoe_opencl (alias aoe::opencl, exported as aoe::opencl): aoe::aoe
# plus OpenCL::OpenCL and the bindings' settings (OpenCL 1.2 API, so that every driver works),
# and sets AOE_OPENCL_FOUND. docs/opencl.md.
include_guard(GLOBAL)

set(AOE_OPENCL_FOUND FALSE)
find_package(OpenCL QUIET)
find_path(AOE_OPENCL_HPP_INCLUDE_DIR NAMES CL/opencl.hpp HINTS ${OpenCL_INCLUDE_DIRS})
mark_as_advanced(AOE_OPENCL_HPP_INCLUDE_DIR)

if(NOT OpenCL_FOUND OR NOT AOE_OPENCL_HPP_INCLUDE_DIR)
  if(AOE_WITH_OPENCL STREQUAL "ON")
    message(FATAL_ERROR
      "AOE_WITH_OPENCL=ON but OpenCL was not found.\n"
      "  ICD loader (libOpenCL): ${OpenCL_LIBRARIES}\n"
      "  C++ bindings (CL/opencl.hpp): ${AOE_OPENCL_HPP_INCLUDE_DIR}\n"
      "On Debian 12: apt-get install ocl-icd-opencl-dev opencl-clhpp-headers (and a driver, "
      "e.g. pocl-opencl-icd for the CPU), or configure with -DAOE_WITH_OPENCL=OFF.")
  endif()
  message(STATUS "aoe: OpenCL not found (ocl-icd-opencl-dev, opencl-clhpp-headers): "
                 "the OpenCL runner is off")
  return()
endif()

add_library(aoe_opencl INTERFACE)
add_library(aoe::opencl ALIAS aoe_opencl)
set_target_properties(aoe_opencl PROPERTIES EXPORT_NAME opencl)  # aoe::opencl when installed
target_include_directories(aoe_opencl SYSTEM INTERFACE "${AOE_OPENCL_HPP_INCLUDE_DIR}")
target_link_libraries(aoe_opencl INTERFACE aoe OpenCL::OpenCL)
target_compile_definitions(aoe_opencl INTERFACE AOE_WITH_OPENCL=1 CL_HPP_MINIMUM_OPENCL_VERSION=120
                                                CL_HPP_TARGET_OPENCL_VERSION=120)
set(AOE_OPENCL_FOUND TRUE)
message(STATUS "aoe: OpenCL ${OpenCL_VERSION_STRING} (${OpenCL_LIBRARIES}), "
               "C++ bindings in ${AOE_OPENCL_HPP_INCLUDE_DIR}")
