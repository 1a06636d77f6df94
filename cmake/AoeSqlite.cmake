# AoeSqlite.cmake: the optional SQLite tuning database (include/aoe/repo/sqlite/).
#
#   AOE_WITH_SQLITE  AUTO (default): aoe::sqlite when SQLite 3 is found; ON: required; OFF: never
#   aoe::sqlite      INTERFACE target: aoe::aoe + SQLite::SQLite3 (exported and installed)
#   AOE_HAVE_SQLITE  TRUE when aoe::sqlite exists
include_guard(GLOBAL)

set(AOE_WITH_SQLITE AUTO CACHE STRING "Build the SQLite tuning database target aoe::sqlite (AUTO, ON, OFF)")
set_property(CACHE AOE_WITH_SQLITE PROPERTY STRINGS AUTO ON OFF)
set(AOE_HAVE_SQLITE FALSE)
if(NOT AOE_WITH_SQLITE STREQUAL "OFF")
  if(AOE_WITH_SQLITE STREQUAL "ON")
    find_package(SQLite3 REQUIRED)
  else()
    find_package(SQLite3 QUIET)
  endif()
  if(SQLite3_FOUND)
    add_library(aoe_sqlite INTERFACE)
    add_library(aoe::sqlite ALIAS aoe_sqlite)
    set_target_properties(aoe_sqlite PROPERTIES EXPORT_NAME sqlite)
    target_link_libraries(aoe_sqlite INTERFACE aoe SQLite::SQLite3)
    set(AOE_HAVE_SQLITE TRUE)
  elseif(PROJECT_IS_TOP_LEVEL)
    message(STATUS "aoe: SQLite 3 not found: no aoe::sqlite (Debian: apt-get install libsqlite3-dev)")
  endif()
endif()

# tests/sqlite/resume_child.cpp as the program aoe_test_sqlite_resume_child (once; the sqlite
# area's tests and the fault-injection test of the database run it).
function(aoe_sqlite_resume_child tests_dir)
  set(_child "${tests_dir}/sqlite/resume_child.cpp")
  if(EXISTS "${_child}" AND NOT TARGET aoe_test_sqlite_resume_child)
    add_executable(aoe_test_sqlite_resume_child "${_child}")
    target_link_libraries(aoe_test_sqlite_resume_child PRIVATE aoe::sqlite aoe_warnings)
    target_include_directories(aoe_test_sqlite_resume_child PRIVATE "${tests_dir}")
  endif()
endfunction()

# tests/sqlite (area "sqlite", built only with aoe::sqlite): links aoe::sqlite and gets
#   AOE_SQLITE_RESUME_CHILD_PATH  tests/sqlite/resume_child.cpp built as a program (the kill -9
#                                 resume test runs it and kills it at random points)
#   AOE_TOOL_AOE_DB_PATH          the aoe-db command, when tools are built
function(aoe_sqlite_setup_tests target tests_dir)
  target_link_libraries(${target} PRIVATE aoe::sqlite)
  aoe_sqlite_resume_child("${tests_dir}")
  if(TARGET aoe_test_sqlite_resume_child)
    target_compile_definitions(
      ${target} PRIVATE "AOE_SQLITE_RESUME_CHILD_PATH=\"$<TARGET_FILE:aoe_test_sqlite_resume_child>\"")
    add_dependencies(${target} aoe_test_sqlite_resume_child)
  endif()
  if(TARGET aoe_tool_aoe-db)
    target_compile_definitions(${target} PRIVATE "AOE_TOOL_AOE_DB_PATH=\"$<TARGET_FILE:aoe_tool_aoe-db>\"")
    add_dependencies(${target} aoe_tool_aoe-db)
  endif()
endfunction()
