# AoeCheckCompileFail.cmake: run by ctest (cmake -P) for one tests/compile_fail/<name>.cpp.
#
#   -DAOE_BUILD_DIR=<build tree> -DAOE_TARGET=<object library> -DAOE_SOURCE=<file.cpp>
#   -DAOE_CONFIG=<config> -DAOE_MODE=fail|control
#
# fail:    builds AOE_TARGET (compiled with AOE_SHOULD_FAIL=1); passes only if the build FAILS
#          and one of the compiler's diagnostics (the text after `<file>:<line>:<col>: `) matches
#          the regex on the source's first line, `// EXPECT: <regex>`.
#          A file that compiles can never pass, whatever it prints.
# control: builds AOE_TARGET (same file without AOE_SHOULD_FAIL); passes only if it compiles.
cmake_minimum_required(VERSION 3.21)

foreach(_var IN ITEMS AOE_BUILD_DIR AOE_TARGET AOE_SOURCE AOE_MODE)
  if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
    message(FATAL_ERROR "AoeCheckCompileFail.cmake: ${_var} is not set")
  endif()
endforeach()

file(STRINGS "${AOE_SOURCE}" _first LIMIT_COUNT 1)
if(NOT _first MATCHES "^[ \t]*//[ \t]*EXPECT:[ \t]*(.*[^ \t\r])[ \t\r]*$")
  message(FATAL_ERROR "${AOE_SOURCE}:1: the first line must be `// EXPECT: <regex>`, "
                      "found: ${_first}")
endif()
set(_regex "${CMAKE_MATCH_1}")

set(_config_args "")
if(NOT "${AOE_CONFIG}" STREQUAL "")
  set(_config_args --config "${AOE_CONFIG}")
endif()
# LC_ALL=C: GCC and Clang quote names with plain '...' rather than locale-dependent quotes.
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env LC_ALL=C LANG=C LANGUAGE=
          "${CMAKE_COMMAND}" --build "${AOE_BUILD_DIR}" --target "${AOE_TARGET}" ${_config_args}
  RESULT_VARIABLE _result
  OUTPUT_VARIABLE _output
  ERROR_VARIABLE _output)

if(AOE_MODE STREQUAL "control")
  if(NOT _result EQUAL 0)
    message(FATAL_ERROR "${AOE_SOURCE}: without AOE_SHOULD_FAIL the file must compile, "
                        "but the build failed:\n${_output}")
  endif()
  message(STATUS "OK: ${AOE_SOURCE} compiles without AOE_SHOULD_FAIL")
  return()
endif()

if(_result EQUAL 0)
  message(FATAL_ERROR "${AOE_SOURCE}: compiled successfully, but it must FAIL to compile "
                      "with a diagnostic matching: ${_regex}\n${_output}")
endif()
# The regex is tried on the compiler's diagnostics only: the text after `<file>:<line>:<col>: `
# (GCC, Clang) or `<file>(<line>): ` (MSVC). The rest of the build output (the command line, the
# target's name, the source path, the quoted source lines) names whatever the test is about, so a
# regex matched against all of it would pass on any error.
set(_diagnostics "")
set(_rest "${_output}\n")
while(NOT _rest STREQUAL "")
  string(FIND "${_rest}" "\n" _eol)
  string(SUBSTRING "${_rest}" 0 ${_eol} _line)
  math(EXPR _next "${_eol} + 1")
  string(SUBSTRING "${_rest}" ${_next} -1 _rest)
  if(_line MATCHES "^[^: ]+:[0-9]+:[0-9]+: (.*)$")
    string(APPEND _diagnostics "${CMAKE_MATCH_1}\n")
  elseif(_line MATCHES "^[^(]+\\([0-9,]+\\): (.*)$")
    string(APPEND _diagnostics "${CMAKE_MATCH_1}\n")
  endif()
endwhile()
if(NOT _diagnostics MATCHES "${_regex}")
  message(FATAL_ERROR "${AOE_SOURCE}: failed to compile as expected, but no diagnostic "
                      "matches the EXPECT regex: ${_regex}\nDiagnostics:\n${_diagnostics}"
                      "Build output:\n${_output}")
endif()
message(STATUS "OK: ${AOE_SOURCE} fails to compile; a diagnostic matched `${CMAKE_MATCH_0}`")
