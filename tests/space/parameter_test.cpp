#include <aoe/space/parameter.hpp>

#include <doctest/doctest.h>

#include <string>

namespace space_parameter_test {  // apart from this area's other files in a unity build

using namespace aoe;

namespace {
enum class Order : int { ijk = 3, ikj = 7 };
}

TEST_CASE("each kind of parameter lists its levels in order") {
  const auto r = range("tile", 16, 64, 16);
  CHECK(r.size() == 4);
  CHECK(r.level(3).as_integer() == 64);
  CHECK(r.kind() == ParameterKind::integer);

  const auto p = pow2("block", 3, 100);
  REQUIRE(p.size() == 5);  // 4 8 16 32 64
  CHECK(p.level(0).as_integer() == 4);
  CHECK(p.level(4).as_integer() == 64);

  const auto v = values("ratio", {0.5, 1, 2.5});
  CHECK(v.kind() == ParameterKind::real);
  CHECK(v.numeric(2) == 2.5);
  CHECK(v.level(1).to_string() == "1");

  const auto t = values("layout", {"row", "col"});
  CHECK(t.kind() == ParameterKind::text);
  CHECK(t.numeric(1) == 1);
  CHECK(t.find(Value("col")) == 1u);
  CHECK_FALSE(t.find(Value("diag")).has_value());

  const auto e = enumeration<Order>("order", {{Order::ijk, "ijk"}, {Order::ikj, "ikj"}});
  CHECK(e.kind() == ParameterKind::enumeration);
  CHECK(e.level(1).as_text() == "ikj");
  CHECK(e.numeric(1) == 7);  // constraints and the typed edge see the underlying value

  const auto f = flag("double_buffer");
  CHECK(f.size() == 2);
  CHECK(f.kind() == ParameterKind::flag);
}

TEST_CASE("an empty or duplicated parameter is rejected with its name in the message") {
  CHECK_THROWS_WITH_AS(range("tile", 10, 5), doctest::Contains("parameter 'tile'"), aoe::Error);
  CHECK_THROWS_WITH_AS(range("tile", 1, 5, 0), doctest::Contains("step > 0"), aoe::Error);
  CHECK_THROWS_WITH_AS(pow2("p", 5, 7), doctest::Contains("no power of two"), aoe::Error);
  CHECK_THROWS_WITH_AS(values("v", {1, 2, 1}), doctest::Contains("lists the value 1 twice"),
                       aoe::Error);
  CHECK_THROWS_WITH_AS(values("v", {"a", 2}), doctest::Contains("mixes texts and numbers"),
                       aoe::Error);
  CHECK_THROWS_AS(values("v", {}), aoe::Error);
}

TEST_CASE("values print back to themselves") {
  CHECK(Value(0.1).to_string() == "0.1");
  CHECK(Value(1e-7).to_string() == "1e-07");
  CHECK(Value(std::int64_t{-12}).to_string() == "-12");
  CHECK(Value(2) == Value(2.0));
  CHECK_FALSE(Value("2") == Value(2));
}

}  // namespace space_parameter_test
