# AoeXGBoost.cmake: the optional learned cost model (include/aoe/search/xgboost/).
#
#   AOE_WITH_XGBOOST  AUTO (default): aoe::xgboost when XGBoost is found; ON: required; OFF: never
#   aoe::xgboost      INTERFACE target: aoe::aoe + libxgboost and AOE_WITH_XGBOOST=1, which adds
#                     the "xgboost" and "evolutionary-xgboost" policies to make_search
#   AOE_HAVE_XGBOOST  TRUE when aoe::xgboost exists
# Found by header and library, not by XGBoost's CMake package: Debian's (libxgboost-dev 1.7.4)
# names /usr/bin/xgboost, which only the `xgboost` command package installs, and fails without it.
include_guard(GLOBAL)

set(AOE_WITH_XGBOOST AUTO CACHE STRING "Build the XGBoost cost model target aoe::xgboost (AUTO, ON, OFF)")
set_property(CACHE AOE_WITH_XGBOOST PROPERTY STRINGS AUTO ON OFF)
set(AOE_HAVE_XGBOOST FALSE)
if(NOT AOE_WITH_XGBOOST STREQUAL "OFF")
  find_path(AOE_XGBOOST_INCLUDE_DIR xgboost/c_api.h)
  find_library(AOE_XGBOOST_LIBRARY xgboost)
  mark_as_advanced(AOE_XGBOOST_INCLUDE_DIR AOE_XGBOOST_LIBRARY)
  if(AOE_WITH_XGBOOST STREQUAL "ON" AND (NOT AOE_XGBOOST_INCLUDE_DIR OR NOT AOE_XGBOOST_LIBRARY))
    message(FATAL_ERROR "aoe: AOE_WITH_XGBOOST=ON but XGBoost (xgboost/c_api.h, libxgboost) was "
                        "not found (Debian: apt-get install libxgboost-dev)")
  endif()
  if(AOE_XGBOOST_INCLUDE_DIR AND AOE_XGBOOST_LIBRARY)
    add_library(aoe_xgboost INTERFACE)
    add_library(aoe::xgboost ALIAS aoe_xgboost)
    set_target_properties(aoe_xgboost PROPERTIES EXPORT_NAME xgboost)
    target_include_directories(aoe_xgboost SYSTEM INTERFACE "${AOE_XGBOOST_INCLUDE_DIR}")
    target_link_libraries(aoe_xgboost INTERFACE aoe "${AOE_XGBOOST_LIBRARY}")
    target_compile_definitions(aoe_xgboost INTERFACE AOE_WITH_XGBOOST=1)
    set(AOE_HAVE_XGBOOST TRUE)
  elseif(PROJECT_IS_TOP_LEVEL)
    message(STATUS "aoe: XGBoost not found: no aoe::xgboost (Debian: apt-get install libxgboost-dev)")
  endif()
endif()
