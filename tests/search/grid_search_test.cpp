#include "search/search_policy_conformance.hpp"
#include <aoe/search/grid_search.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <set>
#include <vector>

namespace {
// GridSearch in the space-filling order, default-constructible for the conformance suite.
struct SpreadGrid : aoe::GridSearch {
  SpreadGrid() : aoe::GridSearch({.order = aoe::GridOrder::spread}) {}
};
}  // namespace

TYPE_TO_STRING(aoe::GridSearch);
TYPE_TO_STRING(SpreadGrid);
TEST_CASE_TEMPLATE_INVOKE(search_policy_conformance, aoe::GridSearch, SpreadGrid);

TEST_CASE("grid search enumerates the valid configurations in order, then is exhausted") {
  using namespace aoe;
  const Space space({range("a", 1, 4), pow2("b", 1, 8)}, {product_at_most({"a", "b"}, 8)});
  GridSearch grid;
  grid.start(space, 0);
  std::vector<Configuration> all;
  for (auto batch = grid.propose(3); !batch.empty(); batch = grid.propose(3)) {
    CHECK(batch.size() <= 3);
    all.insert(all.end(), batch.begin(), batch.end());
  }
  // a=1: b in 1,2,4,8; a=2: 1,2,4; a=3: 1,2; a=4: 1,2 -> 11.
  REQUIRE(all.size() == 11);
  CHECK(std::is_sorted(all.begin(), all.end()));
  CHECK(space.to_string(all.front()) == "a=1, b=1");
  CHECK(space.to_string(all.back()) == "a=4, b=2");

  Tuner tuner(GridSearch{}, test::LandscapeRunner([](const Space&, const Configuration&) {
                return Measurement::success(1.0);
              }));
  const auto result = tuner.tune(space, MaxEvaluations{100});
  CHECK(result.reason == StopReason::exhausted);
  CHECK(result.history.size() == 11);
}

TEST_CASE("the spread order starts at the centre, covers every range early, and misses nothing") {
  using namespace aoe;
  const Space space({range("a", 0, 15), range("b", 0, 15), pow2("c", 1, 128), flag("d")},
                    {sum_at_most({"a", "b"}, 24)});
  GridSearch grid({.order = GridOrder::spread});
  grid.start(space, 0);
  std::vector<Configuration> all;
  for (auto batch = grid.propose(5); !batch.empty(); batch = grid.propose(5)) {
    all.insert(all.end(), batch.begin(), batch.end());
  }
  CHECK(space.to_string(all.front()) == "a=8, b=8, c=16, d=1");
  // Every valid configuration exactly once.
  const std::set<Configuration> unique(all.begin(), all.end());
  CHECK(unique.size() == all.size());
  CHECK(all.size() == static_cast<std::size_t>(space.size().valid));
  // The first 16 already spread over every parameter (8 levels of a, 15 of b, all 8 of c):
  // a lexicographic order would still be at a=0, b=0..15, c=1.
  std::set<std::uint32_t> a, b, c;
  for (std::size_t i = 0; i < 16; ++i) {
    a.insert(all[i][0]);
    b.insert(all[i][1]);
    c.insert(all[i][2]);
  }
  CHECK(a.size() >= 8);
  CHECK(b.size() >= 12);
  CHECK(c.size() == 8);
  // Deterministic: the seed is ignored.
  GridSearch again({.order = GridOrder::spread});
  again.start(space, 99);
  CHECK(again.propose(all.size()) == all);
}
