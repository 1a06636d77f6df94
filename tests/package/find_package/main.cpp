// Consumer of the aoe package (packaging tests: find_package, build tree, pkg-config). It must
// print "aoe <version>".
//
// Besides the version it proves that the package carries its usage requirements: C++20, the
// Eigen include path, Boost.JSON's headers and library, and zlib (a function of each library
// is called). When the umbrella header exists it is included too. To exercise the Tuner, define
// AOE_CONSUMER_USE_TUNER and fill in the marked block.
#include <aoe/version.hpp>

#include <Eigen/Core>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <zlib.h>

#if __has_include(<aoe.hpp>)
#include <aoe.hpp>
#endif

#include <concepts>
#include <cstdio>

static_assert(std::same_as<int, int>, "C++20 is required");

int main() {
  const boost::json::value doc = boost::json::parse(R"({"ok": true})");
  const Eigen::Vector2d v(1.0, 2.0);
  if (!doc.at("ok").as_bool() || v.sum() != 3.0 || zlibVersion() == nullptr) {
    return 1;
  }
#if defined(AOE_CONSUMER_USE_TUNER)
  // Tune a tiny host function with aoe::Tuner here and print the best configuration.
#endif
  std::printf("aoe %s\n", AOE_VERSION_STRING);
  return 0;
}
