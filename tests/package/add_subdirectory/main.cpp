// Consumer of aoe through add_subdirectory(): must print "aoe <version>". Kept in step with
// tests/package/find_package/main.cpp.
#include <aoe/version.hpp>

#include <Eigen/Core>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <zlib.h>

#if __has_include(<aoe.hpp>)
#include <aoe.hpp>
#endif

#include <cstdio>

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
