# AoeTesting.cmake: how OpenAOE's tests are found, built and registered with ctest.
#
# Nothing here needs editing when someone adds a test file, a test area, a header or a
# compile-fail case: sources are discovered with file(GLOB ... CONFIGURE_DEPENDS), so the next
# build re-runs CMake when files appear or disappear.
#
#   aoe_add_test_main(<source>)          the doctest main, compiled once: aoe_test_main
#   aoe_add_test_areas(<tests-dir>)      tests/<area>/**/*_test.cpp -> aoe_test_<area>,
#                                        one ctest test per doctest test case
#   aoe_add_header_tests()               one TU per public header -> aoe_header_tests
#   aoe_add_compile_fail_tests(<dir> <tests-dir>)  <dir>/*.cpp must fail to compile (README there)
#   aoe_add_package_tests(<dir>)         install + find_package / pkg-config / add_subdirectory
#
# Conventions are documented in docs/building.md ("Tests").

include_guard(GLOBAL)

set(AOE_COMPILE_FAIL_TIMEOUT 300 CACHE STRING "Timeout in seconds of each compile-fail test")

# Directories below tests/ that are not test areas.
set(AOE_TEST_NON_AREAS support compile_fail package)

set(_aoe_testing_dir "${CMAKE_CURRENT_LIST_DIR}")

# Declarations that mirror AscendCL's public headers (tests/ascend/fake_cann/): the Ascend
# headers and tests compile against them when AOE_WITH_ASCEND is OFF.
set(AOE_ASCEND_FAKE_CANN_INCLUDE_DIR "${PROJECT_SOURCE_DIR}/tests/ascend/fake_cann/include")

# ---------------------------------------------------------------------------------------------
# The doctest main, built once and linked into every test executable.
function(aoe_add_test_main source)
  add_library(aoe_test_main OBJECT "${source}")
  target_link_libraries(aoe_test_main PUBLIC doctest::doctest PRIVATE aoe_warnings)
  # CHECK_THROWS*(expr) casts expr to void: a [[nodiscard]] call that is expected to throw is
  # no warning (clang 16, the asan preset's compiler, warns where g++ 12 does not).
  target_compile_definitions(aoe_test_main PUBLIC DOCTEST_CONFIG_VOID_CAST_EXPRESSIONS)
  target_compile_features(aoe_test_main PUBLIC cxx_std_20)
endfunction()

# ---------------------------------------------------------------------------------------------
# Common settings of a test executable of area <area>.
function(_aoe_setup_test_target target area tests_dir)
  target_link_libraries(${target} PRIVATE aoe::aoe aoe_warnings aoe_test_main)
  # #include "support/landscapes.hpp" works from every test; data files next to the tests are
  # found through AOE_TESTS_SOURCE_DIR (the absolute path of tests/, no trailing slash).
  target_include_directories(${target} PRIVATE "${tests_dir}")
  target_compile_definitions(${target} PRIVATE "AOE_TESTS_SOURCE_DIR=\"${tests_dir}\"")
  # The ci preset compiles the tests' own code at -Og (the jobs area's unit 78 s against 115 s
  # at -O1, its tests 3.5 s against about 3; docs/building.md, CI).
  if(AOE_TEST_OPTIMIZATION)
    target_compile_options(${target} PRIVATE ${AOE_TEST_OPTIMIZATION})
  endif()
  if(area STREQUAL "tools")
    # Tests of the command-line tools link the tools' sources except main.cpp (with their
    # include directories and CLI11) and may run the built binaries, whose paths are given as
    # AOE_TOOL_<NAME>_PATH (e.g. AOE_TOOL_AOE_PATH for tools/aoe/).
    get_property(_objects GLOBAL PROPERTY AOE_TOOL_OBJECT_LIBRARIES)
    target_link_libraries(${target} PRIVATE ${_objects})
    if(TARGET CLI11::CLI11)
      target_link_libraries(${target} PRIVATE CLI11::CLI11)
    endif()
    get_property(_tools GLOBAL PROPERTY AOE_TOOL_TARGETS)
    foreach(_tool IN LISTS _tools)
      get_target_property(_tool_name ${_tool} OUTPUT_NAME)
      string(TOUPPER "${_tool_name}" _upper)
      string(MAKE_C_IDENTIFIER "${_upper}" _upper)
      target_compile_definitions(${target} PRIVATE
                                 "AOE_TOOL_${_upper}_PATH=\"$<TARGET_FILE:${_tool}>\"")
      add_dependencies(${target} ${_tool})
    endforeach()
  endif()
  if(AOE_WITH_ASCEND AND TARGET aoe::ascend)
    target_link_libraries(${target} PRIVATE aoe::ascend)
  endif()
  if(area STREQUAL "sqlite")
    aoe_sqlite_setup_tests(${target} "${tests_dir}")  # cmake/AoeSqlite.cmake
  endif()
  if(area STREQUAL "xgboost" OR (area STREQUAL "tools" AND TARGET aoe::xgboost))
    target_link_libraries(${target} PRIVATE aoe::xgboost)  # cmake/AoeXGBoost.cmake
  endif()
  if(area STREQUAL "onnx" AND TARGET aoe::onnx)
    # Without the component the area builds too: its cases report themselves skipped.
    target_link_libraries(${target} PRIVATE aoe::onnx)
endif()
  if(area STREQUAL "opencl" OR (area STREQUAL "tools" AND TARGET aoe::opencl))
    target_link_libraries(${target} PRIVATE aoe::opencl)
  endif()
  if(area STREQUAL "cuda" OR (area STREQUAL "tools" AND TARGET aoe::cuda))
    target_link_libraries(${target} PRIVATE aoe::cuda)
  endif()
  if(area STREQUAL "ascend")
    # The Ascend runner's tests: with AOE_WITH_ASCEND=ON against CANN, otherwise against the
    # fake toolkit's declarations of AscendCL (they then run on the test double only).
    target_compile_definitions(${target} PRIVATE AOE_ASCEND_TESTS_REQUIRE_ACL=1)
    if(NOT AOE_WITH_ASCEND)
      target_include_directories(${target} SYSTEM PRIVATE "${AOE_ASCEND_FAKE_CANN_INCLUDE_DIR}")
    endif()
  endif()
endfunction()

# ---------------------------------------------------------------------------------------------
# Every directory tests/<area>/ (except AOE_TEST_NON_AREAS) holding *_test.cpp files, at any
# depth, becomes one executable aoe_test_<area>. Each doctest test case becomes one ctest test
# named "<area>.<test case name>", labelled <area> and with its doctest test suite, if any.
function(aoe_add_test_areas tests_dir)
  file(GLOB _children LIST_DIRECTORIES true CONFIGURE_DEPENDS "${tests_dir}/*")
  set(_areas "")
  set(_left_out "")
  set(_dirs "")
  foreach(_child IN LISTS _children)
    if(NOT IS_DIRECTORY "${_child}")
      continue()
    endif()
    get_filename_component(_area "${_child}" NAME)
    if(_area IN_LIST AOE_TEST_NON_AREAS)
      continue()
    endif()
    list(APPEND _dirs ${_area})
    # AOE_ONLY_TEST_AREAS: this build's areas, when set (the ci preset builds those that the
    # asan preset does not run; scripts/test.sh runs both).
    if(AOE_ONLY_TEST_AREAS AND NOT _area IN_LIST AOE_ONLY_TEST_AREAS)
      list(APPEND _left_out ${_area})
      continue()
    endif()
    file(GLOB_RECURSE _sources CONFIGURE_DEPENDS "${_child}/*_test.cpp")
    if(NOT _sources)
      continue()
    endif()
    # An area whose component is not built: one test, <area>.unavailable, that ctest reports
    # as skipped (never passed, never silently absent).
    set(_unavailable "")
    if(_area STREQUAL "opencl" AND NOT AOE_OPENCL_FOUND)
      set(_unavailable "OpenCL (ocl-icd-opencl-dev, opencl-clhpp-headers) not found at configure time")
    elseif(_area STREQUAL "cuda" AND NOT AOE_CUDA_FOUND)
      set(_unavailable "the CUDA toolkit (NVRTC, cuda.h) not found at configure time")
    elseif(_area STREQUAL "tools" AND NOT AOE_BUILD_TOOLS)
      set(_unavailable "the tools are not built (AOE_BUILD_TOOLS=OFF) at configure time")
    elseif(_area STREQUAL "xgboost" AND NOT TARGET aoe::xgboost)
      set(_unavailable "aoe::xgboost (AOE_WITH_XGBOOST, libxgboost-dev) not found at configure time")
    elseif(_area STREQUAL "sqlite" AND NOT TARGET aoe::sqlite)
      set(_unavailable "aoe::sqlite (AOE_WITH_SQLITE, libsqlite3-dev) not found at configure time")
    endif()
    if(_unavailable)
      message(STATUS "aoe: tests/${_area} not built: ${_unavailable}")
      add_test(NAME ${_area}.unavailable COMMAND "${CMAKE_COMMAND}" -E echo "${_unavailable}")
      set_tests_properties(${_area}.unavailable PROPERTIES LABELS ${_area}
                           SKIP_REGULAR_EXPRESSION "not found at configure time|not built")
      continue()
    endif()
    if(_area STREQUAL "mpi")
      # Runs under mpirun, built with or without aoe::mpi (cmake/AoeMpi.cmake).
      aoe_mpi_add_tests("${tests_dir}" "${_sources}")
      list(APPEND _areas mpi)
      continue()
    endif()
    if(NOT _area MATCHES "^[A-Za-z0-9_]+$")
      message(FATAL_ERROR "aoe: test area directory '${_area}' must be a C identifier")
    endif()
    list(SORT _sources)
    set(_target aoe_test_${_area})
    add_executable(${_target} ${_sources})
    _aoe_setup_test_target(${_target} ${_area} "${tests_dir}")
    aoe_unity_build(${_target})
    # A per-area working directory, so tests that write files never collide across areas.
    set(_workdir "${CMAKE_CURRENT_BINARY_DIR}/work/${_area}")
    file(MAKE_DIRECTORY "${_workdir}")
    # Runs `aoe_test_<area> --list-test-cases` after each build and registers one ctest test
    # per case (see AoeDoctestAddTests.cmake, set up in tests/CMakeLists.txt).
    doctest_discover_tests(
      ${_target}
      TEST_PREFIX "${_area}."
      WORKING_DIRECTORY "${_workdir}"
      EXTRA_ARGS --no-version
      # Labels: the area, plus the doctest test suite if any (TEST_SUITE("slow") or
      # `* doctest::test_suite("slow")` gives the label "slow", which the asan preset skips).
      ADD_LABELS 1
      # A case that calls aoe::test::skip() exits 77 (tests/main.cpp): ctest reports it skipped.
      PROPERTIES TIMEOUT ${AOE_TEST_TIMEOUT} LABELS ${_area} SKIP_RETURN_CODE 77)
    list(APPEND _areas ${_area})
  endforeach()
  # A name in AOE_ONLY_TEST_AREAS that is no area is a typo, not an empty build.
  foreach(_only IN LISTS AOE_ONLY_TEST_AREAS)
    if(NOT _only IN_LIST _dirs)
      list(JOIN _dirs ", " _known)
      message(FATAL_ERROR "aoe: AOE_ONLY_TEST_AREAS: no test area '${_only}' below ${tests_dir} "
                          "(there are: ${_known})")
    endif()
  endforeach()
  if(PROJECT_IS_TOP_LEVEL)
    message(STATUS "aoe: test areas: ${_areas}")
    if(_left_out)
      message(STATUS "aoe: test areas not in this build (AOE_ONLY_TEST_AREAS): ${_left_out}")
    endif()
  endif()
  set(AOE_TEST_AREAS ${_areas} PARENT_SCOPE)
endfunction()

# ---------------------------------------------------------------------------------------------
# The headers (of <headers>, paths below <include_dir>) that include Boost.JSON's value type
# unconditionally, themselves or through other aoe headers: sets <out>. Includes inside an #if
# block (other than the include guard) are not followed, so a header is listed only when every
# build of it includes boost/json/value.hpp. (All of Boost.JSON's headers but fwd.hpp include it.)
function(_aoe_headers_reaching_json include_dir headers out)
  set(_reach "")
  foreach(_h IN LISTS headers)
    file(STRINGS "${include_dir}/${_h}" _lines REGEX "^[ \t]*#[ \t]*(if|endif|include)")
    # Unconditional: inside the include guard only, or at the top level of a header without one.
    set(_top 0)
    set(_line0 "")
    if(_lines)
      list(GET _lines 0 _line0)
    endif()
    if(_line0 MATCHES "^[ \t]*#[ \t]*ifndef")
      set(_top 1)
    endif()
    set(_depth 0)
    set(_deps_${_h} "")
    foreach(_line IN LISTS _lines)
      if(_line MATCHES "^[ \t]*#[ \t]*if")
        math(EXPR _depth "${_depth} + 1")
      elseif(_line MATCHES "^[ \t]*#[ \t]*endif")
        math(EXPR _depth "${_depth} - 1")
      elseif(_depth EQUAL _top AND _line MATCHES "^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"]")
        set(_inc "${CMAKE_MATCH_1}")
        if(_inc MATCHES "^boost/json/(value|object|array|serialize|parse|stream_parser|serializer)\\.hpp$")
          list(APPEND _reach "${_h}")
        elseif(_inc MATCHES "^aoe")
          list(APPEND _deps_${_h} "${_inc}")
        endif()
      endif()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES _reach)
  set(_changed TRUE)
  while(_changed)
    set(_changed FALSE)
    foreach(_h IN LISTS headers)
      if(_h IN_LIST _reach)
        continue()
      endif()
      foreach(_d IN LISTS _deps_${_h})
        if(_d IN_LIST _reach)
          list(APPEND _reach "${_h}")
          set(_changed TRUE)
          break()
        endif()
      endforeach()
    endforeach()
  endwhile()
  set(${out} "${_reach}" PARENT_SCOPE)
endfunction()

# ---------------------------------------------------------------------------------------------
# Header self-containment: every header below include/aoe/ plus include/aoe.hpp gets a
# generated TU that includes it twice (include guards) and nothing else. All TUs are compiled
# and linked into the executable aoe_header_tests, which is part of ALL: a header that does not
# compile on its own breaks the build, and linking the TUs together catches non-inline
# definitions in headers (multiple-definition errors). Headers under measure/ascend/ are
# compiled against CANN with AOE_WITH_ASCEND=ON, otherwise against the fake toolkit's
# declarations (nothing of AscendCL is linked: no header calls it by itself).
function(aoe_add_header_tests)
  set(_include_dir "${PROJECT_SOURCE_DIR}/include")
  file(GLOB_RECURSE _headers CONFIGURE_DEPENDS RELATIVE "${_include_dir}"
       "${_include_dir}/aoe/*.hpp")
  if(EXISTS "${_include_dir}/aoe.hpp")
    list(APPEND _headers aoe.hpp)
  endif()
  if(NOT TARGET aoe::sqlite)  # the database's headers need SQLite 3
    list(FILTER _headers EXCLUDE REGEX "^aoe/(repo/sqlite/|sqlite\\.hpp$)")
  endif()
  if(NOT TARGET aoe::xgboost)  # the cost model's headers need XGBoost
    list(FILTER _headers EXCLUDE REGEX "^aoe/search/xgboost/")
  endif()
  if(NOT TARGET aoe::mpi)  # the distributed measurement's headers need Boost.MPI
    list(FILTER _headers EXCLUDE REGEX "^aoe/(mpi/|mpi\\.hpp$)")
  endif()
  # ONNX headers need the aoe::onnx component, OpenCL's CL/opencl.hpp, CUDA's cuda.h and
  # nvrtc.h: checked when found, left out otherwise.
  if(NOT TARGET aoe::onnx)
    list(FILTER _headers EXCLUDE REGEX "^aoe/(graph/onnx/|onnx\\.hpp)")
  endif()
  if(NOT AOE_OPENCL_FOUND)
    list(FILTER _headers EXCLUDE REGEX "^aoe/(measure/opencl/|opencl\\.hpp$)")
  endif()
  if(NOT AOE_CUDA_FOUND)
    list(FILTER _headers EXCLUDE REGEX "^aoe/(measure/cuda/|cuda\\.hpp$)")
  endif()
  list(SORT _headers)
  # AOE_HEADER_CHECKS_PCH: Boost.JSON's value.hpp with the standard headers it includes takes
  # 1.9 s to compile alone (g++ 12, -Og), a median header unit 2.2 s (-O0; 2026-12-06). It is precompiled once, and the unit
  # of a header that includes it anyway, unconditionally (itself or through aoe headers),
  # starts from the precompiled state. The check stays the same: the header's own code follows
  # all its includes, so it sees nothing it would not see on its own, and each aoe header it
  # includes is checked in a unit of its own kind (with the PCH only if it includes json too;
  # the chains below never mix the two kinds). Every other unit compiles without it.
  set(_reaching_json "")
  if(AOE_HEADER_CHECKS_PCH)
    _aoe_headers_reaching_json("${_include_dir}" "${_headers}" _reaching_json)
  endif()
  # A header X that is the very first directive after another checked header H's include guard
  # (`#include "aoe/X.hpp"`, clang-format's sorted first line) is compiled on its own already,
  # at the top of H's TU: X gets no TU of its own, and H's TU includes X once more after H, so
  # that X's include guard is still tested. (About a fifth of the headers, a fifth of the
  # header checks' compile time.)
  set(_covered "")
  foreach(_header IN LISTS _headers)
    file(STRINGS "${_include_dir}/${_header}" _directives REGEX "^[ \t]*#")
    list(FILTER _directives EXCLUDE REGEX "^[ \t]*#[ \t]*pragma[ \t]+once")
    set(_first "")
    list(LENGTH _directives _n)
    if(_n GREATER 2)
      list(GET _directives 0 _d0)
      list(GET _directives 1 _d1)
      list(GET _directives 2 _d2)
      if(_d0 MATCHES "^#ifndef ([A-Z0-9_]+)$")
        set(_guard "${CMAKE_MATCH_1}")  # (if() expands its arguments before it matches)
        if(_d1 STREQUAL "#define ${_guard}"
           AND _d2 MATCHES "^#include [<\"](aoe/[^>\"]+\\.hpp)[>\"]")
          set(_first "${CMAKE_MATCH_1}")
        endif()
      endif()
    endif()
    set(_same_kind TRUE)  # both, or neither, start from the PCH
    if(_header IN_LIST _reaching_json AND NOT _first IN_LIST _reaching_json)
      set(_same_kind FALSE)
    endif()
    if(_first AND _first IN_LIST _headers AND _same_kind)
      set(_first_of_${_header} "${_first}")
      list(APPEND _covered "${_first}")
    endif()
  endforeach()
  set(_gen_dir "${CMAKE_CURRENT_BINARY_DIR}/header_tests")
  set(_sources "")
  set(_ascend_sources "")
  set(_no_pch_sources "")
  foreach(_header IN LISTS _headers)
    if(_header IN_LIST _covered)
      continue()
    endif()
    string(REGEX REPLACE "\\.hpp$" "" _stem "${_header}")
    string(REPLACE "/" "__" _stem "${_stem}")
    set(_tu "${_gen_dir}/${_stem}.cpp")
    # The chain of first includes below this header (each compiled first, on its own), each
    # included once more for its guard.
    set(_also "")
    set(_link "${_header}")
    set(_chain "${_header}")
    while(DEFINED _first_of_${_link})
      set(_link "${_first_of_${_link}}")
      list(APPEND _chain "${_link}")
      string(APPEND _also "#include <${_link}>  // first in ${_header}'s chain: on its own too\n")
    endwhile()
    # file(CONFIGURE) rewrites the file only when its content changes: no needless rebuilds.
    file(CONFIGURE OUTPUT "${_tu}" CONTENT [[
// Generated by cmake/AoeTesting.cmake: <@_header@> must compile on its own.
#include <@_header@>
#include <@_header@>  // twice: the include guard must work
@_also@]] @ONLY)
    list(APPEND _sources "${_tu}")
    if(NOT _header IN_LIST _reaching_json)
      list(APPEND _no_pch_sources "${_tu}")
    endif()
    list(FILTER _chain INCLUDE REGEX "^aoe/measure/ascend/")
    if(_chain)
      list(APPEND _ascend_sources "${_tu}")
    endif()
  endforeach()
  list(LENGTH _headers _count)
  list(LENGTH _sources _tu_count)
  file(CONFIGURE OUTPUT "${_gen_dir}/main.cpp" CONTENT [[
// Generated by cmake/AoeTesting.cmake: links every header's TU into one program.
#include <cstdio>
int main() {
  std::printf("aoe_header_tests: @_count@ headers compile on their own (@_tu_count@ translation "
              "units) and link together\n");
  return 0;
}
]] @ONLY)
  add_executable(aoe_header_tests "${_gen_dir}/main.cpp" ${_sources})
  target_link_libraries(aoe_header_tests PRIVATE aoe::aoe aoe_warnings)
  if(TARGET aoe::sqlite)
    target_link_libraries(aoe_header_tests PRIVATE aoe::sqlite)
  endif()
  if(TARGET aoe::xgboost)
    target_link_libraries(aoe_header_tests PRIVATE aoe::xgboost)
  endif()
  if(TARGET aoe::mpi)
    target_link_libraries(aoe_header_tests PRIVATE aoe::mpi)
  endif()
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    # Nothing here runs: skip optimisation and debug info (about 15% of the time per TU).
    target_compile_options(aoe_header_tests PRIVATE -O0 -g0)
  endif()
  if(AOE_HEADER_CHECKS_PCH)
    target_precompile_headers(aoe_header_tests PRIVATE <boost/json/value.hpp>)
    # The Ascend headers' units have include directories of their own (below): no PCH there.
    set_source_files_properties("${_gen_dir}/main.cpp" ${_no_pch_sources} ${_ascend_sources}
                                PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
  endif()
  list(LENGTH _no_pch_sources _no_pch_count)
  message(STATUS "aoe: header checks: ${_tu_count} units, ${_no_pch_count} without Boost.JSON")
  if(AOE_OPENCL_FOUND)
    target_link_libraries(aoe_header_tests PRIVATE aoe::opencl)
  endif()
  if(AOE_CUDA_FOUND)
    target_link_libraries(aoe_header_tests PRIVATE aoe::cuda)
  endif()
  if(TARGET aoe::onnx)
    target_link_libraries(aoe_header_tests PRIVATE aoe::onnx)
  endif()
  if(AOE_WITH_ASCEND)
    target_link_libraries(aoe_header_tests PRIVATE aoe::ascend)
  elseif(_ascend_sources)
    set_source_files_properties(${_ascend_sources} PROPERTIES INCLUDE_DIRECTORIES
                                                              "${AOE_ASCEND_FAKE_CANN_INCLUDE_DIR}")
  endif()
  add_test(NAME headers.self_contained COMMAND aoe_header_tests)
  set_tests_properties(headers.self_contained PROPERTIES LABELS headers TIMEOUT 30)
endfunction()

# ---------------------------------------------------------------------------------------------
# Compile-fail tests: every <dir>/*.cpp starts with `// EXPECT: <regex>` and must NOT compile;
# its ctest test compile_fail.<name> builds the EXCLUDE_FROM_ALL object library
# aoe_compile_fail_<name> (same flags and include directories as aoe::aoe, plus tests/) and
# passes only if the build fails AND the output matches <regex> (CMake regex syntax; the build
# runs with LC_ALL=C, so GCC quotes names with plain '...').
#
# The failing file is compiled with AOE_SHOULD_FAIL defined. If the file mentions
# AOE_SHOULD_FAIL, a second test compile_fail.<name>.control compiles it without the macro and
# must succeed: this proves the failure comes from the guarded line, not from a typo.
function(aoe_add_compile_fail_tests dir tests_dir)
  file(GLOB _sources CONFIGURE_DEPENDS "${dir}/*.cpp")
  list(SORT _sources)
  foreach(_source IN LISTS _sources)
    get_filename_component(_name "${_source}" NAME_WE)
    string(MAKE_C_IDENTIFIER "${_name}" _id)
    file(STRINGS "${_source}" _first LIMIT_COUNT 1)
    if(NOT _first MATCHES "^[ \t]*//[ \t]*EXPECT:")
      message(FATAL_ERROR "aoe: ${_source}: the first line must be `// EXPECT: <regex>`")
    endif()
    file(READ "${_source}" _text)
    set(_variants fail)
    if(_text MATCHES "AOE_SHOULD_FAIL")
      list(APPEND _variants control)
    endif()
    foreach(_variant IN LISTS _variants)
      if(_variant STREQUAL "fail")
        set(_target aoe_compile_fail_${_id})
        set(_test compile_fail.${_name})
      else()
        set(_target aoe_compile_fail_${_id}_control)
        set(_test compile_fail.${_name}.control)
      endif()
      add_library(${_target} OBJECT EXCLUDE_FROM_ALL "${_source}")
      target_link_libraries(${_target} PRIVATE aoe::aoe)
      target_include_directories(${_target} PRIVATE "${tests_dir}")
      if(_variant STREQUAL "fail")
        target_compile_definitions(${_target} PRIVATE AOE_SHOULD_FAIL=1)
      endif()
      if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
        target_compile_options(${_target} PRIVATE -fdiagnostics-color=never)
      endif()
      add_test(
        NAME ${_test}
        COMMAND
          "${CMAKE_COMMAND}" "-DAOE_BUILD_DIR=${PROJECT_BINARY_DIR}" "-DAOE_TARGET=${_target}"
          "-DAOE_SOURCE=${_source}" "-DAOE_CONFIG=$<CONFIG>" "-DAOE_MODE=${_variant}" -P
          "${_aoe_testing_dir}/AoeCheckCompileFail.cmake")
      # The tests drive the build tool in this build tree: never two at the same time. So the
      # chain of them (about 100 s in the ci preset) runs beside the others from the start
      # instead of alone at the end, their COST makes ctest start them first.
      set_tests_properties(
        ${_test} PROPERTIES LABELS compile_fail TIMEOUT ${AOE_COMPILE_FAIL_TIMEOUT}
                            RESOURCE_LOCK aoe_build_tree COST 50)
    endforeach()
  endforeach()
endfunction()

# ---------------------------------------------------------------------------------------------
# Packaging tests (label "package"), run as ctest fixtures:
#   package.install          cmake --install <build> --prefix <build>/package/prefix
#   package.find_package     <dir>/find_package against the install tree
#   package.build_tree       <dir>/find_package against this build tree (aoe_DIR=<build>)
#   package.pkg_config       <dir>/find_package/main.cpp built with `pkg-config --cflags --libs aoe`
#   package.add_subdirectory <dir>/add_subdirectory with -DAOE_SOURCE_DIR=<source>
function(aoe_add_package_tests dir)
  set(_work "${PROJECT_BINARY_DIR}/package")
  set(_prefix "${_work}/prefix")
  set(_script "${_aoe_testing_dir}/AoePackageTest.cmake")
  set(_common
      "-DAOE_SOURCE_DIR=${PROJECT_SOURCE_DIR}" "-DAOE_BINARY_DIR=${PROJECT_BINARY_DIR}"
      "-DAOE_PACKAGE_DIR=${dir}" "-DAOE_WORK_DIR=${_work}" "-DAOE_PREFIX=${_prefix}"
      "-DAOE_VERSION=${PROJECT_VERSION}" "-DAOE_CXX_COMPILER=${CMAKE_CXX_COMPILER}"
      "-DAOE_GENERATOR=${CMAKE_GENERATOR}" "-DAOE_CONFIG=$<CONFIG>")
  foreach(_mode IN ITEMS install find_package build_tree pkg_config add_subdirectory)
    add_test(NAME package.${_mode} COMMAND "${CMAKE_COMMAND}" ${_common} "-DAOE_MODE=${_mode}"
                                           -P "${_script}")
    # COST: started early (they configure and build consumer projects, 15-20 s each), not last.
    set_tests_properties(package.${_mode} PROPERTIES LABELS package TIMEOUT 300 COST 40)
  endforeach()
  set_tests_properties(package.install PROPERTIES FIXTURES_SETUP aoe_installed)
  set_tests_properties(package.find_package package.pkg_config
                       PROPERTIES FIXTURES_REQUIRED aoe_installed)
endfunction()
