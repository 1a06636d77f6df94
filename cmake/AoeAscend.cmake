# AoeAscend.cmake: the AscendCL (CANN toolkit) dependency of the Ascend runner.
# Included by the top-level CMakeLists.txt only when AOE_WITH_ASCEND=ON.
#
# Defines the INTERFACE target aoe_ascend (alias aoe::ascend): aoe::aoe plus the AscendCL
# headers, libascendcl and libacl_op_compiler, and AOE_WITH_ASCEND=1. Code that includes
# <aoe/measure/ascend/...> links aoe::ascend.
#
# The toolkit is located from, in this order: the cache variable AOE_ASCEND_TOOLKIT_ROOT, the
# environment variables ASCEND_TOOLKIT_HOME and ASCEND_HOME_PATH (both set by CANN's
# set_env.sh), and the default install location /usr/local/Ascend/ascend-toolkit/latest.
#
# TODO(ascend): this is the minimal version; a later issue adds runtime checks (SoC version,
# driver), the optional acl_op_compiler dependency and a fake toolkit for CI.
set(AOE_ASCEND_TOOLKIT_ROOT "" CACHE PATH "Root of the CANN toolkit (contains include/acl/acl.h)")

set(_aoe_ascend_roots "")
foreach(_root IN ITEMS "${AOE_ASCEND_TOOLKIT_ROOT}" "$ENV{ASCEND_TOOLKIT_HOME}"
                       "$ENV{ASCEND_HOME_PATH}" "/usr/local/Ascend/ascend-toolkit/latest")
  if(NOT _root STREQUAL "")
    list(APPEND _aoe_ascend_roots "${_root}")
  endif()
endforeach()

find_path(AOE_ASCEND_INCLUDE_DIR NAMES acl/acl.h HINTS ${_aoe_ascend_roots}
          PATH_SUFFIXES include NO_DEFAULT_PATH)
find_library(AOE_ASCENDCL_LIBRARY NAMES ascendcl HINTS ${_aoe_ascend_roots}
             PATH_SUFFIXES lib64 lib NO_DEFAULT_PATH)
find_library(AOE_ACL_OP_COMPILER_LIBRARY NAMES acl_op_compiler HINTS ${_aoe_ascend_roots}
             PATH_SUFFIXES lib64 lib NO_DEFAULT_PATH)
mark_as_advanced(AOE_ASCEND_INCLUDE_DIR AOE_ASCENDCL_LIBRARY AOE_ACL_OP_COMPILER_LIBRARY)

if(NOT AOE_ASCEND_INCLUDE_DIR OR NOT AOE_ASCENDCL_LIBRARY OR NOT AOE_ACL_OP_COMPILER_LIBRARY)
  list(JOIN _aoe_ascend_roots "\n    " _searched)
  message(FATAL_ERROR
    "AOE_WITH_ASCEND=ON but the CANN toolkit (AscendCL) was not found.\n"
    "  acl/acl.h:              ${AOE_ASCEND_INCLUDE_DIR}\n"
    "  libascendcl:            ${AOE_ASCENDCL_LIBRARY}\n"
    "  libacl_op_compiler:     ${AOE_ACL_OP_COMPILER_LIBRARY}\n"
    "Searched (include/, lib64/, lib/ below):\n    ${_searched}\n"
    "Set ASCEND_TOOLKIT_HOME or ASCEND_HOME_PATH (source <cann>/set_env.sh), or pass "
    "-DAOE_ASCEND_TOOLKIT_ROOT=<path>, or configure with -DAOE_WITH_ASCEND=OFF.")
endif()
message(STATUS "aoe: AscendCL from ${AOE_ASCEND_INCLUDE_DIR} (${AOE_ASCENDCL_LIBRARY})")

add_library(aoe_ascend INTERFACE)
add_library(aoe::ascend ALIAS aoe_ascend)
set_target_properties(aoe_ascend PROPERTIES EXPORT_NAME ascend)  # aoe::ascend when installed
target_include_directories(aoe_ascend SYSTEM INTERFACE "${AOE_ASCEND_INCLUDE_DIR}")
target_link_libraries(aoe_ascend INTERFACE aoe "${AOE_ASCENDCL_LIBRARY}"
                                           "${AOE_ACL_OP_COMPILER_LIBRARY}")
target_compile_definitions(aoe_ascend INTERFACE AOE_WITH_ASCEND=1)
