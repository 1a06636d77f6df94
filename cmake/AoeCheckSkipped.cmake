# AoeCheckSkipped.cmake: run by ctest (cmake -P). Runs the tests labelled AOE_LABEL through
# ctest itself and passes only if ctest reports every one of them skipped: at least one test,
# none passed, none failed. So a test that cannot run (the npu tests without CANN) can never
# be counted as passed unnoticed.
#
#   -DAOE_CTEST=<ctest> -DAOE_BUILD_DIR=<build tree> -DAOE_LABEL=<label regex>
#   [-DAOE_CONFIG=<config>]
cmake_minimum_required(VERSION 3.21)

foreach(_var IN ITEMS AOE_CTEST AOE_BUILD_DIR AOE_LABEL)
  if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
    message(FATAL_ERROR "AoeCheckSkipped.cmake: ${_var} is not set")
  endif()
endforeach()

set(_config_args "")
if(NOT "${AOE_CONFIG}" STREQUAL "")
  set(_config_args -C "${AOE_CONFIG}")
endif()
execute_process(
  COMMAND "${AOE_CTEST}" --test-dir "${AOE_BUILD_DIR}" -L "${AOE_LABEL}" ${_config_args}
  RESULT_VARIABLE _result
  OUTPUT_VARIABLE _output
  ERROR_VARIABLE _output)

# One line per test: "1/2 Test #41: <name> ....***Skipped   0.01 sec" (or Passed, ***Failed,
# Not Run, ...).
string(REGEX MATCHALL "Test +#[0-9]+: [^\n]*" _tests "${_output}")
list(LENGTH _tests _count)
if(_count EQUAL 0)
  message(FATAL_ERROR "no test labelled '${AOE_LABEL}' in ${AOE_BUILD_DIR} (they must be "
                      "registered and reported skipped, never silently absent):\n${_output}")
endif()
set(_not_skipped "")
foreach(_test IN LISTS _tests)
  if(NOT _test MATCHES "\\*\\*\\*Skipped")
    string(APPEND _not_skipped "\n  ${_test}")
  endif()
endforeach()
if(NOT _not_skipped STREQUAL "")
  message(FATAL_ERROR "tests labelled '${AOE_LABEL}' that ctest did not report skipped:"
                      "${_not_skipped}\n${_output}")
endif()
message(STATUS "${_count} test(s) labelled '${AOE_LABEL}', all reported skipped")
