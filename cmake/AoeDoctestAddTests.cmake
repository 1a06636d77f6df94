# Distributed under the OSI-approved BSD 3-Clause License. See accompanying
# file Copyright.txt or https://cmake.org/licensing for details.
#
# AoeDoctestAddTests.cmake: OpenAOE's replacement for doctest 2.4.9's doctestAddTests.cmake,
# the script that doctest_discover_tests() runs after each build to register one ctest test per
# doctest test case. tests/CMakeLists.txt points doctest_discover_tests() at this file through
# the variable _DOCTEST_DISCOVER_TESTS_SCRIPT; the function and its arguments are doctest's.
#
# Differences from doctest 2.4.9's script:
#   - the executable is asked once, `--list-test-cases --reporters=xml`, which gives each test
#     case's name and test suite (no extra process per test case for ADD_LABELS);
#   - names containing '[', ']', ';' or ',' work (2.4.9 glued the rest of the list onto a name
#     with an unbalanced '[' and split names at ';');
#   - labels: those given in PROPERTIES (LABELS ...) plus, with ADD_LABELS, the test suite;
#     2.4.9 wrote a dangling `LABELS` when there was none;
#   - a name that appears twice (same name in two files) is registered once; doctest's
#     --test-case filter then runs both cases;
#   - test cases marked doctest::skip() are not registered (as with the text listing).
cmake_minimum_required(VERSION 3.21)  # run with cmake -P: policies (IN_LIST) of this century

set(prefix "${TEST_PREFIX}")
set(suffix "${TEST_SUFFIX}")
set(spec ${TEST_SPEC})
set(extra_args ${TEST_EXTRA_ARGS})
set(properties ${TEST_PROPERTIES})
set(add_labels ${TEST_ADD_LABELS})
set(junit_output_dir "${TEST_JUNIT_OUTPUT_DIR}")

if(NOT EXISTS "${TEST_EXECUTABLE}")
  message(FATAL_ERROR "Specified test executable '${TEST_EXECUTABLE}' does not exist")
endif()
if("${spec}" MATCHES .)
  set(spec "--test-case=${spec}")
endif()

execute_process(
  COMMAND ${TEST_EXECUTOR} "${TEST_EXECUTABLE}" ${spec} --list-test-cases --reporters=xml
  OUTPUT_VARIABLE output
  RESULT_VARIABLE result
  WORKING_DIRECTORY "${TEST_WORKING_DIR}")
if(NOT result EQUAL 0)
  message(FATAL_ERROR "Error running test executable '${TEST_EXECUTABLE}':\n"
                      "  Result: ${result}\n  Output: ${output}\n")
endif()

# CMake lists treat ';' as a separator and '[...]' specially: hide them while splitting lines.
string(REPLACE "[" "<AOE_LB>" output "${output}")
string(REPLACE "]" "<AOE_RB>" output "${output}")
string(REPLACE ";" "<AOE_SC>" output "${output}")
string(REPLACE "\r" "" output "${output}")
string(REPLACE "\n" ";" lines "${output}")

function(_aoe_xml_decode in out_var)
  string(REPLACE "<AOE_LB>" "[" in "${in}")
  string(REPLACE "<AOE_RB>" "]" in "${in}")
  string(REPLACE "<AOE_SC>" ";" in "${in}")
  string(REPLACE "&lt;" "<" in "${in}")
  string(REPLACE "&gt;" ">" in "${in}")
  string(REPLACE "&quot;" "\"" in "${in}")
  string(REPLACE "&apos;" "'" in "${in}")
  string(REPLACE "&amp;" "&" in "${in}")
  set(${out_var} "${in}" PARENT_SCOPE)
endfunction()

# Properties given to doctest_discover_tests(... PROPERTIES k v ...): LABELS are merged with
# the suite labels, the others are passed through.
set(base_labels "")
set(other_props "")
list(LENGTH properties _n)
set(_i 0)
while(_i LESS _n)
  list(GET properties ${_i} _key)
  math(EXPR _j "${_i} + 1")
  if(_j LESS _n)
    list(GET properties ${_j} _value)
    if(_key STREQUAL "LABELS")
      list(APPEND base_labels "${_value}")
    else()
      string(APPEND other_props " ${_key} [==[${_value}]==]")
    endif()
  endif()
  math(EXPR _i "${_i} + 2")
endwhile()

set(script "")
set(test_list "")
set(seen "")
set(count 0)
foreach(line IN LISTS lines)
  if(NOT line MATCHES "^[ \t]*<TestCase ")
    continue()
  endif()
  if(line MATCHES " skipped=\"true\"")
    continue()
  endif()
  if(NOT line MATCHES " name=\"([^\"]*)\"")
    continue()
  endif()
  set(escaped_name "${CMAKE_MATCH_1}")
  if(escaped_name IN_LIST seen)  # compared in escaped form: safe with '[' and ';'
    continue()
  endif()
  list(APPEND seen "${escaped_name}")
  _aoe_xml_decode("${escaped_name}" test)

  set(labels ${base_labels})
  if(add_labels AND line MATCHES " testsuite=\"([^\"]*)\"")
    _aoe_xml_decode("${CMAKE_MATCH_1}" suite)
    string(REPLACE ";" "_" suite "${suite}")
    list(APPEND labels "${suite}")
  endif()

  set(ctest_name "${prefix}${test}${suffix}")
  # doctest's --test-case filter separates names with commas: escape them.
  string(REPLACE "," "\\," filter "${test}")
  set(cmd "add_test([==[${ctest_name}]==] ${TEST_EXECUTOR} [==[${TEST_EXECUTABLE}]==]")
  string(APPEND cmd " [==[--test-case=${filter}]==]")
  if(NOT "${junit_output_dir}" STREQUAL "")
    string(REGEX REPLACE "[/\\:\"|<>;*?]" "-" test_filename "${test}")
    string(APPEND cmd " --reporters=junit"
           " [==[--out=${junit_output_dir}/${prefix}${test_filename}${suffix}.xml]==]")
  endif()
  foreach(arg IN LISTS extra_args)
    string(APPEND cmd " [==[${arg}]==]")
  endforeach()
  string(APPEND script "${cmd})\n")
  set(props "set_tests_properties([==[${ctest_name}]==] PROPERTIES")
  string(APPEND props " WORKING_DIRECTORY [==[${TEST_WORKING_DIR}]==]${other_props}")
  if(labels)
    string(APPEND props " LABELS [==[${labels}]==]")
  endif()
  string(APPEND script "${props})\n")
  # Names containing ';' cannot be list elements: they are left out of the list variable.
  if(NOT ctest_name MATCHES ";")
    string(APPEND test_list " [==[${ctest_name}]==]")
  endif()
  math(EXPR count "${count} + 1")
endforeach()

if(count EQUAL 0 AND NOT output MATCHES "<OverallResultsTestCases")
  message(FATAL_ERROR "'${TEST_EXECUTABLE} --list-test-cases --reporters=xml' printed no "
                      "test list:\n${output}")
endif()

# The list of discovered tests, for scripts that set more properties on them.
string(APPEND script "set(${TEST_LIST}${test_list})\n")
file(WRITE "${CTEST_FILE}" "${script}")
