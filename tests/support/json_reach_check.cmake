# ctest headers.pch_only_where_json_is_included (tests/CMakeLists.txt): the header checks'
# analysis (cmake/AoeTesting.cmake, _aoe_headers_reaching_json) on json_reach_fixture/: a header
# gets the Boost.JSON PCH only when it includes Boost.JSON unconditionally, itself or through
# another header. Fails, naming the difference, when the analysis lists another set.
cmake_minimum_required(VERSION 3.21)
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/AoeTesting.cmake")
set(_dir "${CMAKE_CURRENT_LIST_DIR}/json_reach_fixture")
file(GLOB _headers RELATIVE "${_dir}" "${_dir}/aoe/*.hpp")
list(SORT _headers)
_aoe_headers_reaching_json("${_dir}" "${_headers}" _got)
list(SORT _got)
# a: json itself; b: through a (after d, which has none); e: json at the top level of a header
# without a guard. Not c (json under #ifdef, fwd.hpp only), d (through c), f (a under #if).
set(_want aoe/a.hpp aoe/b.hpp aoe/e.hpp)
if(NOT _got STREQUAL _want)
  message(FATAL_ERROR "headers reaching Boost.JSON: got '${_got}', want '${_want}'")
endif()
message(STATUS "headers reaching Boost.JSON: ${_got}")
