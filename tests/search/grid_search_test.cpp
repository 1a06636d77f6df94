#include "search/search_policy_conformance.hpp"
#include <aoe/search/grid_search.hpp>

#include <doctest/doctest.h>

TYPE_TO_STRING(aoe::GridSearch);
TEST_CASE_TEMPLATE_INVOKE(search_policy_conformance, aoe::GridSearch);

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
