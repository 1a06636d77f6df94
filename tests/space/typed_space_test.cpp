#include <aoe/space/typed_space.hpp>

#include <boost/hana/define_struct.hpp>
#include <doctest/doctest.h>

#include <string>

namespace space_typed_space_test {  // apart from this area's other files in a unity build

namespace {
enum class Order : int { ijk = 0, ikj = 1, jki = 2 };

struct Gemm {
  BOOST_HANA_DEFINE_STRUCT(Gemm, (int, tile_m), (long, tile_n), (Order, order), (bool, unroll),
                           (double, ratio), (std::string, layout));
};

aoe::TypedSpace<Gemm> gemm_space() {
  using namespace aoe;
  // Given in another order than the members: the space orders them like the struct.
  return make_space<Gemm>(
      flag("unroll"), pow2("tile_n", 8, 64), pow2("tile_m", 8, 64),
      enumeration<Order>("order", {{Order::ijk, "ijk"}, {Order::ikj, "ikj"}, {Order::jki, "jki"}}),
      values("ratio", {0.25, 0.5}), values("layout", {"row", "col"}),
      product_at_most({"tile_m", "tile_n"}, 1024),
      where<Gemm>([](const Gemm& g) { return g.order != Order::jki || g.unroll; },
                  "jki needs unroll"));
}
}  // namespace

TEST_CASE("a BOOST_HANA_DEFINE_STRUCT struct becomes a space, and configurations become it") {
  const auto space = gemm_space();
  REQUIRE(space.dimensions() == 6);
  CHECK(space.parameter(0).name() == "tile_m");
  CHECK(space.parameter(5).name() == "layout");
  CHECK(aoe::member_names<Gemm>() ==
        std::vector<std::string>{"tile_m", "tile_n", "order", "unroll", "ratio", "layout"});

  const aoe::Configuration c{2, 1, 1, 0, 1, 1};
  REQUIRE(space.is_valid(c));
  const Gemm g = space.at(c);
  CHECK(g.tile_m == 32);
  CHECK(g.tile_n == 16);
  CHECK(g.order == Order::ikj);
  CHECK_FALSE(g.unroll);
  CHECK(g.ratio == 0.5);
  CHECK(g.layout == "col");
  CHECK(space.find(g) == c);

  // The typed constraint: jki without unroll is invalid.
  CHECK_FALSE(space.is_valid(aoe::Configuration{0, 0, 2, 0, 0, 0}));
  CHECK(space.is_valid(aoe::Configuration{0, 0, 2, 1, 0, 0}));
  // Tiles within 1024 elements x 5 order/unroll pairs (jki needs unroll) x ratio x layout.
  std::size_t tiles = 0;
  for (int m = 8; m <= 64; m *= 2) {
    for (int n = 8; n <= 64; n *= 2) tiles += m * n <= 1024 ? 1 : 0;
  }
  CHECK(space.size().valid == tiles * 5 * 2 * 2);
}

TEST_CASE("a struct and its parameters must match, by name and by type") {
  using namespace aoe;
  const auto order = enumeration<Order>("order", {{Order::ijk, "ijk"}});
  CHECK_THROWS_WITH_AS(
      make_space<Gemm>(pow2("tile_m", 8, 64), pow2("tile_n", 8, 64), order, flag("unroll"),
                       values("ratio", {0.5})),
      doctest::Contains("member 'layout' of the parameter struct has no parameter"), aoe::Error);
  CHECK_THROWS_WITH_AS(
      make_space<Gemm>(pow2("tile_m", 8, 64), pow2("tile_n", 8, 64), order, flag("unroll"),
                       values("ratio", {0.5}), values("layout", {"row"}), flag("extra")),
      doctest::Contains("parameter 'extra' is not a member"), aoe::Error);
  CHECK_THROWS_WITH_AS(
      make_space<Gemm>(values("tile_m", {"a", "b"}), pow2("tile_n", 8, 64), order, flag("unroll"),
                       values("ratio", {0.5}), values("layout", {"row"})),
      doctest::Contains("parameter 'tile_m' has values its member's type cannot hold"), aoe::Error);
}

}  // namespace space_typed_space_test
