# AoeMpi.cmake: the optional distributed measurement (include/aoe/mpi/, <aoe/mpi.hpp>).
#
#   AOE_WITH_MPI   AUTO (default): aoe::mpi when Boost.MPI and an MPI library are found; ON:
#                  required; OFF: never
#   aoe::mpi       INTERFACE target: aoe::aoe + Boost::mpi (Boost.MPI, Boost.Serialization and
#                  MPI::MPI_CXX) and AOE_WITH_MPI=1
#   AOE_HAVE_MPI   TRUE when aoe::mpi exists
# Debian: apt-get install openmpi-bin libopenmpi-dev libboost-mpi1.81-dev.
include_guard(GLOBAL)

set(AOE_WITH_MPI AUTO CACHE STRING "Build the distributed measurement target aoe::mpi (AUTO, ON, OFF)")
set_property(CACHE AOE_WITH_MPI PROPERTY STRINGS AUTO ON OFF)
set(AOE_HAVE_MPI FALSE)
if(NOT AOE_WITH_MPI STREQUAL "OFF")
  find_package(MPI COMPONENTS CXX QUIET)
  if(MPI_CXX_FOUND)
    find_package(boost_mpi 1.81 CONFIG QUIET)
  endif()
  if(MPI_CXX_FOUND AND TARGET Boost::mpi)
    add_library(aoe_mpi INTERFACE)
    add_library(aoe::mpi ALIAS aoe_mpi)
    set_target_properties(aoe_mpi PROPERTIES EXPORT_NAME mpi)
    target_link_libraries(aoe_mpi INTERFACE aoe Boost::mpi MPI::MPI_CXX)
    target_compile_definitions(aoe_mpi INTERFACE AOE_WITH_MPI=1)
    set(AOE_HAVE_MPI TRUE)
    # Open MPI's mpirun needs --oversubscribe to start more ranks than there are cores.
    execute_process(COMMAND "${MPIEXEC_EXECUTABLE}" --version OUTPUT_VARIABLE _aoe_mpiexec_version
                    ERROR_QUIET RESULT_VARIABLE _aoe_mpiexec_result)
    set(AOE_MPIEXEC_IS_OPEN_MPI FALSE)
    if(_aoe_mpiexec_result EQUAL 0 AND _aoe_mpiexec_version MATCHES "Open MPI|OpenRTE")
      set(AOE_MPIEXEC_IS_OPEN_MPI TRUE)
    endif()
  elseif(AOE_WITH_MPI STREQUAL "ON")
    message(FATAL_ERROR "aoe: AOE_WITH_MPI=ON but Boost.MPI or MPI was not found (Debian: "
                        "apt-get install openmpi-bin libopenmpi-dev libboost-mpi1.81-dev)")
  elseif(PROJECT_IS_TOP_LEVEL)
    message(STATUS "aoe: Boost.MPI or MPI not found: no aoe::mpi (Debian: apt-get install "
                   "openmpi-bin libopenmpi-dev libboost-mpi1.81-dev)")
  endif()
endif()

# The mpirun command line of the tests and examples that run on `ranks` ranks: Open MPI needs
# --oversubscribe on a machine with fewer cores.
function(aoe_mpi_command out ranks)
  set(_cmd "${MPIEXEC_EXECUTABLE}" ${MPIEXEC_NUMPROC_FLAG} ${ranks})
  if(AOE_MPIEXEC_IS_OPEN_MPI)
    list(APPEND _cmd --oversubscribe)
  endif()
  list(APPEND _cmd ${MPIEXEC_PREFLAGS})
  set(${out} ${_cmd} PARENT_SCOPE)
endfunction()

# Environment of every test run by mpirun: Open MPI refuses to run as root (CI containers)
# unless told twice.
# Under AddressSanitizer (the asan preset) leak checking is off for the ranks: Open MPI leaves
# allocations of its dlopen()ed plugins at MPI_Finalize (hwloc, opal, the mca_* components), and
# as the plugins are unloaded by then, a suppression file cannot name them. Every other ASan and
# UBSan check stays on; the library's own code is leak-checked by the other areas' tests.
set(AOE_MPI_TEST_ENVIRONMENT
    "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;ASAN_OPTIONS=detect_leaks=0:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:abort_on_error=0")

# tests/mpi -> aoe_test_mpi, built with or without aoe::mpi:
#   mpi.distributed           every MPI case under `mpirun -np 3` (with aoe::mpi)
#   mpi.unavailable           without aoe::mpi: reported skipped
#   mpi.aoe_command           the `aoe` command started as one of several ranks, and its
#                             --measure_latency (no mpirun)
#   mpi.tools, mpi.faults     the tools under mpirun, started by the test cases themselves
#                             ("tools under mpirun:*"): aoe-bench over ranks; aoe's OPAT with
#                             a rank killed and with SIGINT to mpirun; with aoe::mpi
function(aoe_mpi_add_tests tests_dir sources)
  add_executable(aoe_test_mpi ${sources})
  _aoe_setup_test_target(aoe_test_mpi mpi "${tests_dir}")  # cmake/AoeTesting.cmake
  if(TARGET aoe::mpi)
    target_link_libraries(aoe_test_mpi PRIVATE aoe::mpi)
  endif()
  if(TARGET aoe_tool_aoe)
    target_compile_definitions(aoe_test_mpi PRIVATE "AOE_TOOL_AOE_PATH=\"$<TARGET_FILE:aoe_tool_aoe>\"")
    add_dependencies(aoe_test_mpi aoe_tool_aoe)
  endif()
  # Tools under mpirun (#14): the test cases start `mpirun -np N <tool>` themselves.
  if(TARGET aoe_tool_aoe-bench)
    target_compile_definitions(aoe_test_mpi PRIVATE
                               "AOE_TOOL_AOE_BENCH_PATH=\"$<TARGET_FILE:aoe_tool_aoe-bench>\"")
    add_dependencies(aoe_test_mpi aoe_tool_aoe-bench)
  endif()
  if(TARGET aoe::mpi)
    set(_mpiexec "${MPIEXEC_EXECUTABLE}")
    if(AOE_MPIEXEC_IS_OPEN_MPI)
      string(APPEND _mpiexec " --oversubscribe")
    endif()
    target_compile_definitions(aoe_test_mpi PRIVATE "AOE_MPIEXEC=\"${_mpiexec}\""
                                                    "AOE_MPIEXEC_NUMPROC_FLAG=\"${MPIEXEC_NUMPROC_FLAG}\"")
  endif()
  if(TARGET aoe::mpi)  # `mpirun -np 3 aoe ...` against one process (tests/mpi/aoe_jobs_test.cpp)
    aoe_mpi_command(_mpirun_3 3)
    list(JOIN _mpirun_3 " " _mpirun_3)
    target_compile_definitions(aoe_test_mpi PRIVATE "AOE_MPIRUN_3=\"${_mpirun_3}\"")
  endif()
  set(_workdir "${CMAKE_CURRENT_BINARY_DIR}/work/mpi")
  file(MAKE_DIRECTORY "${_workdir}")
  if(TARGET aoe::mpi)
    aoe_mpi_command(_mpirun 3)
    add_test(NAME mpi.distributed
             COMMAND ${_mpirun} $<TARGET_FILE:aoe_test_mpi> --no-version
                     "--test-case-exclude=aoe command:*,tools under mpirun:*"
             WORKING_DIRECTORY "${_workdir}")
    set_tests_properties(mpi.distributed PROPERTIES LABELS mpi TIMEOUT ${AOE_TEST_TIMEOUT}
                         SKIP_RETURN_CODE 77 ENVIRONMENT "${AOE_MPI_TEST_ENVIRONMENT}")
    # Each its own ctest, so that a skipped fault case is reported skipped.
    add_test(NAME mpi.tools COMMAND aoe_test_mpi --no-version
                                    "--test-case=tools under mpirun: aoe-bench*"
             WORKING_DIRECTORY "${_workdir}")
    add_test(NAME mpi.faults COMMAND aoe_test_mpi --no-version
                                     "--test-case=tools under mpirun: aoe ??AT *"
             WORKING_DIRECTORY "${_workdir}")
    set_tests_properties(mpi.tools mpi.faults PROPERTIES LABELS mpi TIMEOUT ${AOE_TEST_TIMEOUT}
                         SKIP_RETURN_CODE 77 ENVIRONMENT "${AOE_MPI_TEST_ENVIRONMENT}")
    # The longest case (four jobs under mpirun, about 30 s, mostly waiting on them): ctest
    # starts it early, so that it does not end the run alone.
    set_tests_properties(mpi.faults PROPERTIES COST 50)
  else()
    add_test(NAME mpi.unavailable COMMAND "${CMAKE_COMMAND}" -E echo
                  "Boost.MPI/MPI (libboost-mpi1.81-dev, libopenmpi-dev) not found at configure time")
    set_tests_properties(mpi.unavailable PROPERTIES LABELS mpi
                         SKIP_REGULAR_EXPRESSION "not found at configure time")
  endif()
  add_test(NAME mpi.aoe_command
           COMMAND aoe_test_mpi --no-version "--test-case=aoe command:*"
           WORKING_DIRECTORY "${_workdir}")
  set_tests_properties(mpi.aoe_command PROPERTIES LABELS mpi TIMEOUT ${AOE_TEST_TIMEOUT}
                       SKIP_RETURN_CODE 77)
endfunction()
