// Contract checks: a caller's bug is an assertion, never an error code.
#ifndef AOE_CORE_ASSERT_HPP
#define AOE_CORE_ASSERT_HPP

#include <cstdio>
#include <cstdlib>

/// AOE_ASSERT(condition, message): active unless NDEBUG or AOE_DISABLE_ASSERTS is defined.
/// Used only for programming errors (a policy proposing an index out of range, a span of the
/// wrong length); failures of the environment are `aoe::Result` values instead.
#if defined(NDEBUG) || defined(AOE_DISABLE_ASSERTS)
#define AOE_ASSERT(condition, message) static_cast<void>(0)
#else
#define AOE_ASSERT(condition, message)                                                   \
  ((condition) ? static_cast<void>(0)                                                    \
               : ::aoe::detail::assertion_failed(#condition, message, __FILE__, __LINE__))
#endif

namespace aoe::detail {

[[noreturn]] inline void assertion_failed(const char* condition, const char* message,
                                          const char* file, int line) noexcept {
  std::fprintf(stderr, "%s:%d: aoe assertion failed: %s (%s)\n", file, line, message, condition);
  std::abort();
}

}  // namespace aoe::detail

#endif  // AOE_CORE_ASSERT_HPP
