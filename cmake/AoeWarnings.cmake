# aoe_warnings: an INTERFACE target with the warning flags for OpenAOE's *own* translation
# units (tests, header checks, examples, tools, benchmarks). aoe::aoe never links it and it is
# never installed or exported, so users of the library do not inherit our flags (the
# Taskflow `tf::default_settings` pattern).
#
# Boost, Eigen, doctest, CLI11 and Google Benchmark come in through imported targets, whose
# include directories are SYSTEM, so their headers do not drown our diagnostics.
#
# Chosen set (GCC 12 / Clang 14):
#   -Wall -Wextra -Wpedantic   the baseline
#   -Wshadow                   a local hiding a member or outer variable
#   -Wnon-virtual-dtor         polymorphic base without a virtual destructor
#   -Woverloaded-virtual       an overload hiding a virtual function
#   -Wold-style-cast           C casts hide conversions between numeric types
#   -Wcast-align -Wformat=2 -Wimplicit-fallthrough -Wmisleading-indentation
#   -Wduplicated-cond -Wlogical-op (GCC only)
# Left out on purpose:
#   -Wconversion/-Wsign-conversion  very noisy with size_t/index/double arithmetic in numeric
#                                   code and with Eigen's Index; revisit once the core settles
#   -Wnull-dereference              false positives from GCC 12's optimiser in std:: code
#   -Wuseless-cast                  fires on casts that are only useless on one platform
if(TARGET aoe_warnings)
  return()
endif()

add_library(aoe_warnings INTERFACE)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(
    aoe_warnings
    INTERFACE -Wall
              -Wextra
              -Wpedantic
              -Wshadow
              -Wnon-virtual-dtor
              -Woverloaded-virtual
              -Wold-style-cast
              -Wcast-align
              -Wformat=2
              -Wimplicit-fallthrough
              -Wmisleading-indentation
              $<$<CXX_COMPILER_ID:GNU>:-Wduplicated-cond>
              $<$<CXX_COMPILER_ID:GNU>:-Wlogical-op>
              $<$<BOOL:${AOE_WARNINGS_AS_ERRORS}>:-Werror>)
elseif(MSVC)
  target_compile_options(aoe_warnings INTERFACE /W4 /permissive-
                                                $<$<BOOL:${AOE_WARNINGS_AS_ERRORS}>:/WX>)
endif()
