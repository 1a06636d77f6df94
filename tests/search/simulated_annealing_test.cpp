#include "search/search_policy_conformance.hpp"
#include "search/search_quality.hpp"
#include <aoe/search/random_search.hpp>
#include <aoe/search/simulated_annealing.hpp>

#include <doctest/doctest.h>

TYPE_TO_STRING(aoe::SimulatedAnnealing<>);
TYPE_TO_STRING(aoe::SimulatedAnnealing<aoe::LinearCooling>);
TYPE_TO_STRING(aoe::SimulatedAnnealing<aoe::LogarithmicCooling>);
TEST_CASE_TEMPLATE_INVOKE(search_policy_conformance, aoe::SimulatedAnnealing<>,
                          aoe::SimulatedAnnealing<aoe::LinearCooling>,
                          aoe::SimulatedAnnealing<aoe::LogarithmicCooling>);

TEST_CASE("cooling schedules start at 1 and decrease") {
  const aoe::ExponentialCooling e{.rate = 0.9};
  const aoe::LinearCooling l{.steps = 10, .floor = 0.05};
  const aoe::LogarithmicCooling g{};
  CHECK(e(0) == 1.0);
  CHECK(l(0) == 1.0);
  CHECK(g(0) == 1.0);
  CHECK(e(10) == doctest::Approx(0.3486784401));
  CHECK(l(5) == doctest::Approx(0.5));
  CHECK(l(50) == doctest::Approx(0.05));
  CHECK(g(10) < g(5));
}

TEST_CASE("annealing moves through neighbours of the current point") {
  using namespace aoe;
  const auto l = test::bowl();
  SimulatedAnnealing<> sa(SimulatedAnnealingOptions{.long_jump = 0});
  sa.start(l.space, 3);
  const auto first = sa.propose(1);
  REQUIRE(first.size() == 1);
  std::vector<Trial> t{{first[0], l.evaluate(l.space, first[0])}};
  sa.observe(t);
  const auto next = sa.propose(3);
  REQUIRE(next.size() == 3);
  const auto neighbours = l.space.neighbours(first[0], Neighbourhood::adjacent);
  for (const auto& c : next) {
    CHECK(std::find(neighbours.begin(), neighbours.end(), c) != neighbours.end());
  }
}

TEST_CASE("annealing beats random search on a kernel-like landscape") {
  using namespace aoe;
  const auto l = test::tiled_kernel();
  const auto sa = test::fractions_of_optimum(
      l, [] { return SimulatedAnnealing<>{}; }, 100, 30);
  const auto rs = test::fractions_of_optimum(
      l, [] { return RandomSearch{}; }, 100, 30);
  MESSAGE("annealing mean ", test::mean(sa), " random mean ", test::mean(rs));
  CHECK(test::mean(sa) > test::mean(rs));
}
