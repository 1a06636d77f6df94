#include "search/search_policy_conformance.hpp"
#include "search/search_quality.hpp"
#include <aoe/search/detail/initial_design.hpp>
#include <aoe/search/random_search.hpp>
#include <aoe/search/simulated_annealing.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <span>
#include <vector>

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
  SimulatedAnnealing<> sa(SimulatedAnnealingOptions{.long_jump = 0, .initial_samples = 1});
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

TEST_CASE("the initial design covers every parameter's range (Latin hypercube)") {
  using namespace aoe;
  // 8 levels per parameter, no constraint: 8 design points use each level of each once.
  const Space space({range("a", 0, 7), range("b", 0, 7), range("c", 0, 7)});
  for (const std::uint64_t seed : {1, 2, 3, 4, 5}) {
    Rng rng(seed);
    detail::Visited visited;
    const std::vector<Configuration> given{{1, 2, 3}, {9, 9, 9}, {1, 2, 3}};  // invalid, repeat
    const auto design = detail::initial_design(space, given, 9, visited, rng);
    REQUIRE(design.size() == 9);
    CHECK(design.front() == Configuration{1, 2, 3});
    for (std::size_t d = 0; d < 3; ++d) {
      std::set<std::uint32_t> levels;
      for (std::size_t i = 1; i < design.size(); ++i) levels.insert(design[i][d]);
      CHECK(levels.size() == 8);
    }
    for (const auto& c : design) CHECK(visited.contains(c));
  }
}

TEST_CASE("annealing measures its initial configurations first and walks from the best") {
  using namespace aoe;
  const auto l = test::bowl();
  const auto good = l.space.find(std::vector<NamedValue>{{"x", 10}, {"y", 4}, {"z", 4}});
  REQUIRE(good.has_value());
  SimulatedAnnealing<> sa(
      SimulatedAnnealingOptions{.long_jump = 0, .initial_samples = 4, .initial = {*good}});
  sa.start(l.space, 5);
  const auto design = sa.propose(4);
  REQUIRE(design.size() == 4);
  CHECK(design.front() == *good);
  std::vector<Trial> trials;
  for (const auto& c : design) trials.push_back({c, l.evaluate(l.space, c)});
  sa.observe(trials);
  // x=10, y=4, z=4 (value 2) is the best of the design unless a drawn point beat it.
  const auto best = std::min_element(
      trials.begin(), trials.end(),
      [](const auto& a, const auto& b) { return a.measurement.value < b.measurement.value; });
  const auto next = sa.propose(1);
  REQUIRE(next.size() == 1);
  const auto neighbours = l.space.neighbours(best->configuration, Neighbourhood::adjacent);
  CHECK(std::find(neighbours.begin(), neighbours.end(), next[0]) != neighbours.end());
}

TEST_CASE("annealing takes a trial it did not propose as known, and may move to it") {
  using namespace aoe;
  const auto l = test::bowl();
  SimulatedAnnealing<> sa(SimulatedAnnealingOptions{.initial_samples = 1});
  sa.start(l.space, 2);
  const auto first = sa.propose(1);
  std::vector<Trial> t{{first[0], l.evaluate(l.space, first[0])}};
  sa.observe(t);
  const auto optimum = *l.space.find(std::vector<NamedValue>{{"x", 11}, {"y", 4}, {"z", 4}});
  std::vector<Trial> foreign{{optimum, l.evaluate(l.space, optimum)}};
  sa.observe(foreign);  // better than anything: accepted as the current point
  for (const auto& c : sa.propose(20)) CHECK(c != optimum);
}

TEST_CASE("annealing leaves a transfer seed it cannot improve on at its restart") {
  // (5,5) is a local minimum that every other point is worse than but the far optimum. A seed
  // there (warm_start) is another device's best: at the restart the walk leaves it for fresh
  // points. The same point given as `initial` is this run's own: the first restart resumes from
  // it (`restart_from_best`). A neighbour of (5,5), adjacent or Hamming, keeps x or y at 5.
  using namespace aoe;
  const Space space({range("x", 0, 63), range("y", 0, 63)});
  const auto value = [](const Configuration& c) {
    if (c == Configuration{5, 5}) return 0.5;
    if (c == Configuration{60, 60}) return 0.1;
    return 1.0 + 0.001 * (static_cast<double>(c[0]) + static_cast<double>(c[1]));
  };
  const auto fresh_after_restart = [&](SimulatedAnnealing<>& sa) {
    sa.start(space, 11);
    std::vector<Configuration> proposed;
    while (proposed.size() < 10) {
      const auto batch = sa.propose(1);
      REQUIRE(batch.size() == 1);
      proposed.push_back(batch[0]);
      const Trial t{batch[0], Measurement::success(value(batch[0]))};
      sa.observe(std::span<const Trial>(&t, 1));
    }
    REQUIRE(proposed[0] == Configuration{5, 5});
    // Proposals 2-6: the walk around (5,5), none better; the 6th trial restarts it.
    for (std::size_t i = 1; i < 6; ++i) CHECK((proposed[i][0] == 5 || proposed[i][1] == 5));
    std::size_t fresh = 0;
    for (std::size_t i = 6; i < 10; ++i) fresh += proposed[i][0] != 5 && proposed[i][1] != 5;
    return fresh;
  };
  const SimulatedAnnealingOptions o{.long_jump = 0, .restart_after = 5, .initial_samples = 1};
  SimulatedAnnealing<> seeded(o);
  const Configuration seed{5, 5};
  REQUIRE(seeded.warm_start(std::span<const Configuration>(&seed, 1)));
  CHECK(fresh_after_restart(seeded) >= 3);  // a fresh design over the space
  auto own = o;
  own.initial = {seed};
  SimulatedAnnealing<> resumed(own);
  CHECK(fresh_after_restart(resumed) == 0);  // back around (5,5)
}
