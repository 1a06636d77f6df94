// Skipping a test case whose prerequisite is missing (no NPU, no OpenCL device, an optional
// component not built, running as root ...), so that ctest and Meson report it as skipped,
// never as passed.
//
//   if (!device) { aoe::test::skip("no OpenCL device: " + why); return; }
//
// The case prints "SKIPPED: <reason>" and is counted; tests/main.cpp then exits with
// aoe::test::skip_exit_code (77) when every test case that ran was skipped. ctest runs one case
// per process and has SKIP_RETURN_CODE 77 on every case (cmake/AoeTesting.cmake); Meson treats
// 77 as a skip of the whole area's executable.
#ifndef AOE_TESTS_SUPPORT_SKIP_HPP
#define AOE_TESTS_SUPPORT_SKIP_HPP

#include <cstdio>
#include <string_view>

namespace aoe::test {

/// The exit code that ctest (SKIP_RETURN_CODE) and Meson read as "skipped".
inline constexpr int skip_exit_code = 77;

/// Whether the running test case called skip(); reset by the listener in tests/main.cpp.
inline bool& current_case_skipped() noexcept {
  static bool skipped = false;
  return skipped;
}

/// Marks the running test case as skipped and says why; the caller returns right after.
inline void skip(std::string_view reason) {
  std::printf("SKIPPED: %.*s\n", static_cast<int>(reason.size()), reason.data());
  std::fflush(stdout);
  current_case_skipped() = true;
}

}  // namespace aoe::test

#endif  // AOE_TESTS_SUPPORT_SKIP_HPP
