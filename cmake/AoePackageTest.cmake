# AoePackageTest.cmake: run by ctest (cmake -P) to check that aoe can be consumed.
#
#   -DAOE_MODE=install|find_package|build_tree|pkg_config|add_subdirectory
#   -DAOE_SOURCE_DIR -DAOE_BINARY_DIR -DAOE_PACKAGE_DIR (tests/package) -DAOE_WORK_DIR
#   -DAOE_PREFIX (install prefix) -DAOE_VERSION -DAOE_CXX_COMPILER -DAOE_GENERATOR -DAOE_CONFIG
#
# Each consumer is configured, built and run; its output must contain the aoe version.
cmake_minimum_required(VERSION 3.21)

function(_aoe_run)
  string(REPLACE ";" " " _pretty "${ARGN}")
  message(STATUS "+ ${_pretty}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  message("${_out}")
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "command failed (${_rc}): ${_pretty}")
  endif()
  set(_aoe_last_output "${_out}" PARENT_SCOPE)
endfunction()

function(_aoe_check_version output)
  if(NOT output MATCHES "aoe ${AOE_VERSION}")
    message(FATAL_ERROR "consumer output does not contain `aoe ${AOE_VERSION}`:\n${output}")
  endif()
endfunction()

set(_build_type "${AOE_CONFIG}")
if(_build_type STREQUAL "")
  set(_build_type Release)
endif()

# Configure, build and run a CMake consumer project.
function(_aoe_cmake_consumer name source_dir)
  set(_build "${AOE_WORK_DIR}/${name}")
  file(REMOVE_RECURSE "${_build}")
  _aoe_run("${CMAKE_COMMAND}" -S "${source_dir}" -B "${_build}" -G "${AOE_GENERATOR}"
           "-DCMAKE_CXX_COMPILER=${AOE_CXX_COMPILER}" "-DCMAKE_BUILD_TYPE=${_build_type}"
           ${ARGN})
  _aoe_run("${CMAKE_COMMAND}" --build "${_build}" --config "${_build_type}")
  set(_exe "${_build}/aoe_consumer")
  if(NOT EXISTS "${_exe}" AND EXISTS "${_build}/${_build_type}/aoe_consumer.exe")
    set(_exe "${_build}/${_build_type}/aoe_consumer.exe")
  endif()
  _aoe_run("${_exe}")
  _aoe_check_version("${_aoe_last_output}")
endfunction()

if(AOE_MODE STREQUAL "install")
  file(REMOVE_RECURSE "${AOE_PREFIX}")
  _aoe_run("${CMAKE_COMMAND}" --install "${AOE_BINARY_DIR}" --prefix "${AOE_PREFIX}"
           --config "${_build_type}")
  foreach(_f IN ITEMS include/aoe/version.hpp share/cmake/aoe/aoeConfig.cmake
                      share/cmake/aoe/aoeConfigVersion.cmake share/cmake/aoe/aoeTargets.cmake
                      share/pkgconfig/aoe.pc)
    if(NOT EXISTS "${AOE_PREFIX}/${_f}")
      message(FATAL_ERROR "not installed: ${AOE_PREFIX}/${_f}")
    endif()
  endforeach()
  # Nothing of the build's private machinery may leak into the package.
  file(READ "${AOE_PREFIX}/share/cmake/aoe/aoeTargets.cmake" _targets)
  if(_targets MATCHES "aoe_warnings|aoe_test|-Wall")
    message(FATAL_ERROR "aoeTargets.cmake exports private build settings")
  endif()

elseif(AOE_MODE STREQUAL "find_package")
  _aoe_cmake_consumer(find_package "${AOE_PACKAGE_DIR}/find_package"
                      "-DCMAKE_PREFIX_PATH=${AOE_PREFIX}" "-DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON")

elseif(AOE_MODE STREQUAL "build_tree")
  _aoe_cmake_consumer(build_tree "${AOE_PACKAGE_DIR}/find_package"
                      "-Daoe_DIR=${AOE_BINARY_DIR}" "-DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON")

elseif(AOE_MODE STREQUAL "add_subdirectory")
  _aoe_cmake_consumer(add_subdirectory "${AOE_PACKAGE_DIR}/add_subdirectory"
                      "-DAOE_SOURCE_DIR=${AOE_SOURCE_DIR}")

elseif(AOE_MODE STREQUAL "pkg_config")
  find_program(_pkg_config NAMES pkg-config pkgconf REQUIRED)
  set(ENV{PKG_CONFIG_PATH} "${AOE_PREFIX}/share/pkgconfig")
  execute_process(COMMAND "${_pkg_config}" --cflags --libs aoe RESULT_VARIABLE _rc
                  OUTPUT_VARIABLE _flags ERROR_VARIABLE _err OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "pkg-config --cflags --libs aoe failed: ${_err}")
  endif()
  message(STATUS "pkg-config --cflags --libs aoe: ${_flags}")
  if(NOT _flags MATCHES "-std=c\\+\\+20" OR NOT _flags MATCHES "-lboost_json"
     OR NOT _flags MATCHES "-I[^ ]*include")
    message(FATAL_ERROR "aoe.pc lacks -std=c++20, -I<includedir> or -lboost_json: ${_flags}")
  endif()
  separate_arguments(_flag_list UNIX_COMMAND "${_flags}")
  set(_build "${AOE_WORK_DIR}/pkg_config")
  file(REMOVE_RECURSE "${_build}")
  file(MAKE_DIRECTORY "${_build}")
  # Flags after the source, as `c++ main.cpp $(pkg-config --cflags --libs aoe)` would.
  _aoe_run("${AOE_CXX_COMPILER}" "${AOE_PACKAGE_DIR}/find_package/main.cpp" ${_flag_list}
           -o "${_build}/aoe_consumer")
  _aoe_run("${_build}/aoe_consumer")
  _aoe_check_version("${_aoe_last_output}")

else()
  message(FATAL_ERROR "AoePackageTest.cmake: unknown AOE_MODE '${AOE_MODE}'")
endif()
