#include <aoe/core/error.hpp>

#include <doctest/doctest.h>

#include <ostream>  // doctest prints a std::error_code with it
#include <string>

namespace {
aoe::Result<int> parse_positive(int x) {
  if (x <= 0) return aoe::make_error(aoe::Errc::invalid_argument, "x must be positive");
  return x;
}
}  // namespace

TEST_CASE("errors carry a code of the aoe category and a message") {
  const std::error_code ec = aoe::Errc::parse_error;
  CHECK(ec.category() == aoe::error_category());
  CHECK(std::string(ec.category().name()) == "aoe");
  CHECK(ec.message() == "parse error");

  const auto bad = parse_positive(-1);
  REQUIRE(bad.has_error());
  CHECK(bad.error().code == aoe::Errc::invalid_argument);
  CHECK(bad.error().what() == "x must be positive (aoe: invalid argument)");
  CHECK(parse_positive(3).value() == 3);
}

TEST_CASE("value() of an error throws aoe::Error with the code and the message") {
  const auto bad = parse_positive(0);
  try {
    (void)bad.value();
    FAIL("value() did not throw");
  } catch (const aoe::Error& e) {
    CHECK(e.code() == aoe::Errc::invalid_argument);
    CHECK(std::string(e.what()).find("x must be positive") != std::string::npos);
  }
}
