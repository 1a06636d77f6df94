#include "search/search_policy_conformance.hpp"
#include <aoe/search/random_search.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <unordered_set>

TYPE_TO_STRING(aoe::RandomSearch);
TEST_CASE_TEMPLATE_INVOKE(search_policy_conformance, aoe::RandomSearch);

TEST_CASE("random search draws the first configuration uniformly from the valid ones") {
  using namespace aoe;
  // 13 valid points out of 16.
  const Space space({range("a", 0, 3), range("b", 0, 3)}, {sum_at_most({"a", "b"}, 4)});
  const std::size_t valid = 13;
  REQUIRE(space.size().valid == valid);
  std::vector<int> hits(16, 0);
  const int runs = 13000;
  for (int seed = 0; seed < runs; ++seed) {
    RandomSearch r;
    r.start(space, static_cast<std::uint64_t>(seed));
    const auto first = r.propose(1);
    REQUIRE(first.size() == 1);
    ++hits[space.rank(first[0])];
  }
  // Each valid point expects 1000 hits; 5 standard deviations is about +-155.
  for (std::size_t i = 0; i < hits.size(); ++i) {
    if (space.is_valid(space.unrank(i))) {
      CHECK(std::abs(hits[i] - 1000) < 160);
    } else {
      CHECK(hits[i] == 0);
    }
  }
}

TEST_CASE("random search samples a 10^9-point space lazily, without repeats") {
  using namespace aoe;
  const Space space({range("a", 0, 999), range("b", 0, 999), range("c", 0, 999)},
                    {multiple_of("a", 3), product_at_most({"b", "c"}, 250000)});
  CHECK(space.raw_size() == 1e9);
  RandomSearch r;
  r.start(space, 9);
  std::unordered_set<Configuration, ConfigurationHash> seen;
  for (int i = 0; i < 20; ++i) {
    for (const auto& c : r.propose(100)) {
      CHECK(space.is_valid(c));
      CHECK(seen.insert(c).second);
    }
  }
  CHECK(seen.size() == 2000);
}

TEST_CASE("random search with different seeds visits the space in different orders") {
  using namespace aoe;
  const auto l = test::bowl();
  RandomSearch a;
  RandomSearch b;
  a.start(l.space, 1);
  b.start(l.space, 2);
  CHECK(a.propose(10) != b.propose(10));
}
