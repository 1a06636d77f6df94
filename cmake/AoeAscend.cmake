# AoeAscend.cmake: the AscendCL (CANN toolkit) dependency of the Ascend runner.
# Included by the top-level CMakeLists.txt only when AOE_WITH_ASCEND=ON.
#
# Defines the INTERFACE target aoe_ascend (alias aoe::ascend, exported as aoe::ascend): aoe::aoe
# plus AscendCL's headers (SYSTEM), libascendcl (runtime: device, stream, events, memory,
# kernels, aclopExecuteV2) and libacl_op_compiler (aclopCompile, aclSetCompileopt), and the
# compile definition AOE_WITH_ASCEND=1. Code that includes <aoe/measure/ascend/...> and calls
# the real AscendCL (aoe::ascend::real_acl_api()) links aoe::ascend. docs/ascend.md.
#
# The toolkit root is the first of these that is set: the cache variable
# AOE_ASCEND_TOOLKIT_ROOT, then the environment variables ASCEND_HOME_PATH and
# ASCEND_TOOLKIT_HOME (both set by CANN's set_env.sh), ASCEND_CANN_PACKAGE_PATH (Ascend C
# projects), then the default install locations /usr/local/Ascend/ascend-toolkit/latest,
# $HOME/Ascend/ascend-toolkit/latest (non-root install) and /usr/local/Ascend/cann (CANN 9).
# Below a root, headers are looked for in include/ and <arch>-linux/include/, libraries in
# lib64/, lib/ and <arch>-linux/lib64/ - never in lib64/stub/, whose link-only stubs cannot run.
#
# Without a toolkit, configuring stops with a message saying what was searched and how to
# proceed. To build without CANN (CI), tests/ascend/fake_cann/ installs a fake toolkit.
include_guard(GLOBAL)

set(AOE_ASCEND_TOOLKIT_ROOT "" CACHE PATH
    "Root of the CANN toolkit (contains include/acl/acl.h and lib64/libascendcl.so)")

set(_aoe_ascend_roots "")
set(_aoe_ascend_from "")
foreach(_pair IN ITEMS "AOE_ASCEND_TOOLKIT_ROOT|${AOE_ASCEND_TOOLKIT_ROOT}"
                       "ASCEND_HOME_PATH|$ENV{ASCEND_HOME_PATH}"
                       "ASCEND_TOOLKIT_HOME|$ENV{ASCEND_TOOLKIT_HOME}"
                       "ASCEND_CANN_PACKAGE_PATH|$ENV{ASCEND_CANN_PACKAGE_PATH}"
                       "default|/usr/local/Ascend/ascend-toolkit/latest"
                       "default|$ENV{HOME}/Ascend/ascend-toolkit/latest"
                       "default|/usr/local/Ascend/cann")
  string(FIND "${_pair}" "|" _bar)
  string(SUBSTRING "${_pair}" 0 ${_bar} _name)
  math(EXPR _bar "${_bar} + 1")
  string(SUBSTRING "${_pair}" ${_bar} -1 _root)
  if(NOT _root STREQUAL "" AND NOT _root STREQUAL "/Ascend/ascend-toolkit/latest")
    list(APPEND _aoe_ascend_roots "${_root}")
    if(_name STREQUAL "default")
      list(APPEND _aoe_ascend_from "${_root} (default location)")
    else()
      list(APPEND _aoe_ascend_from "${_root} (from ${_name})")
    endif()
  endif()
endforeach()

set(_aoe_ascend_arch "${CMAKE_SYSTEM_PROCESSOR}-linux")
find_path(AOE_ASCEND_INCLUDE_DIR NAMES acl/acl.h acl/acl_op_compiler.h
          HINTS ${_aoe_ascend_roots} PATH_SUFFIXES include "${_aoe_ascend_arch}/include"
          NO_DEFAULT_PATH)
find_library(AOE_ASCENDCL_LIBRARY NAMES ascendcl HINTS ${_aoe_ascend_roots}
             PATH_SUFFIXES lib64 lib "${_aoe_ascend_arch}/lib64" NO_DEFAULT_PATH)
find_library(AOE_ACL_OP_COMPILER_LIBRARY NAMES acl_op_compiler HINTS ${_aoe_ascend_roots}
             PATH_SUFFIXES lib64 lib "${_aoe_ascend_arch}/lib64" NO_DEFAULT_PATH)
mark_as_advanced(AOE_ASCEND_INCLUDE_DIR AOE_ASCENDCL_LIBRARY AOE_ACL_OP_COMPILER_LIBRARY)

if(NOT AOE_ASCEND_INCLUDE_DIR OR NOT EXISTS "${AOE_ASCEND_INCLUDE_DIR}/acl/acl_op_compiler.h"
   OR NOT AOE_ASCENDCL_LIBRARY OR NOT AOE_ACL_OP_COMPILER_LIBRARY)
  list(JOIN _aoe_ascend_from "\n    " _searched)
  message(FATAL_ERROR
    "AOE_WITH_ASCEND=ON but the CANN toolkit (AscendCL) was not found.\n"
    "  acl/acl.h, acl/acl_op_compiler.h: ${AOE_ASCEND_INCLUDE_DIR}\n"
    "  libascendcl:                      ${AOE_ASCENDCL_LIBRARY}\n"
    "  libacl_op_compiler:               ${AOE_ACL_OP_COMPILER_LIBRARY}\n"
    "Searched these roots (include/, lib64/, lib/, ${_aoe_ascend_arch}/ below each):\n"
    "    ${_searched}\n"
    "On an Atlas machine: source <CANN>/set_env.sh (e.g. "
    "/usr/local/Ascend/ascend-toolkit/set_env.sh), which sets ASCEND_HOME_PATH, and configure "
    "again; or pass -DAOE_ASCEND_TOOLKIT_ROOT=<toolkit root>. "
    "Without CANN configure with -DAOE_WITH_ASCEND=OFF (the simulator needs nothing), or build "
    "the fake toolkit of tests/ascend/fake_cann/ (docs/ascend.md).")
endif()
get_filename_component(_aoe_ascend_libdir "${AOE_ASCENDCL_LIBRARY}" DIRECTORY)
if(_aoe_ascend_libdir MATCHES "/stub$")
  message(FATAL_ERROR "aoe: ${AOE_ASCENDCL_LIBRARY} is CANN's link-only stub; point "
                      "AOE_ASCEND_TOOLKIT_ROOT at the toolkit root, not at lib64/stub")
endif()
message(STATUS "aoe: AscendCL from ${AOE_ASCEND_INCLUDE_DIR} (${AOE_ASCENDCL_LIBRARY}, "
               "${AOE_ACL_OP_COMPILER_LIBRARY})")

add_library(aoe_ascend INTERFACE)
add_library(aoe::ascend ALIAS aoe_ascend)
set_target_properties(aoe_ascend PROPERTIES EXPORT_NAME ascend)  # aoe::ascend when installed
target_include_directories(aoe_ascend SYSTEM INTERFACE "${AOE_ASCEND_INCLUDE_DIR}")
target_link_libraries(aoe_ascend INTERFACE aoe "${AOE_ASCENDCL_LIBRARY}"
                                           "${AOE_ACL_OP_COMPILER_LIBRARY}")
target_compile_definitions(aoe_ascend INTERFACE AOE_WITH_ASCEND=1)
