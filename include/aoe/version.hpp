/// @file
/// @brief The library version: the single source of truth.
///
/// CMake (`CMakeLists.txt`, `file(STRINGS ... REGEX)`) and Meson (`cmake/list_files.py
/// version`) read the three `AOE_VERSION_*` lines below, so keep each on its own line in the
/// form `#define AOE_VERSION_<PART> <number>`.

#ifndef AOE_VERSION_HPP
#define AOE_VERSION_HPP

#define AOE_VERSION_MAJOR 0
#define AOE_VERSION_MINOR 1
#define AOE_VERSION_PATCH 0

/// One comparable number: `major * 10000 + minor * 100 + patch` (0.1.0 is 100).
#define AOE_VERSION (AOE_VERSION_MAJOR * 10000 + AOE_VERSION_MINOR * 100 + AOE_VERSION_PATCH)

#define AOE_VERSION_STRINGIZE_IMPL(x) #x
#define AOE_VERSION_STRINGIZE(x) AOE_VERSION_STRINGIZE_IMPL(x)

/// The version as a string literal, `"0.1.0"`.
#define AOE_VERSION_STRING                 \
  AOE_VERSION_STRINGIZE(AOE_VERSION_MAJOR) \
  "." AOE_VERSION_STRINGIZE(AOE_VERSION_MINOR) "." AOE_VERSION_STRINGIZE(AOE_VERSION_PATCH)

#endif  // AOE_VERSION_HPP
