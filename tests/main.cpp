// The doctest main of every test executable, compiled once (target aoe_test_main) and linked
// into each aoe_test_<area>. Test files include <doctest/doctest.h> and define no main.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
