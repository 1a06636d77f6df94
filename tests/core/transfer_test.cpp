// Transfer across devices (docs/transfer.md): how plan_transfer weighs the sources and orders
// the seeds, and how aoe::Tuner measures them first, through a policy that takes them or
// without one.
#include <aoe/search/grid_search.hpp>
#include <aoe/search/simulated_annealing.hpp>
#include <aoe/tuner/memory_repository.hpp>
#include <aoe/tuner/transfer.hpp>
#include <aoe/tuner/tuner.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

using namespace aoe;

namespace {

const Space& grid() {
  static const Space s({range("x", 0, 9), range("y", 0, 9)}, {sum_at_most({"x", "y"}, 16)});
  return s;
}

/// A bowl with its minimum (1) at (cx, cy).
double bowl_at(int cx, int cy, int x, int y) {
  return 1.0 + (x - cx) * (x - cx) + (y - cy) * (y - cy);
}

/// A recording of every valid configuration of grid() on `device`, whose optimum is at (cx, cy).
TransferSource recording(std::string device, int cx, int cy) {
  TransferSource s{std::move(device), {}};
  grid().for_each_valid([&](const Configuration& c) {
    s.points.push_back(
        {grid().named_values(c), bowl_at(cx, cy, static_cast<int>(c[0]), static_cast<int>(c[1]))});
  });
  return s;
}

struct BowlRunner {
  int cx = 3, cy = 3;
  std::vector<Measurement> measure(SpaceView, std::span<const Configuration> batch) {
    std::vector<Measurement> out;
    for (const auto& c : batch) {
      out.push_back(
          Measurement::success(bowl_at(cx, cy, static_cast<int>(c[0]), static_cast<int>(c[1]))));
    }
    return out;
  }
};

/// Grid search that counts the trials it is shown.
struct CountingGrid {
  GridSearch grid;
  std::size_t observed = 0;
  void start(SpaceView v, std::uint64_t seed) { grid.start(v, seed); }
  std::vector<Configuration> propose(std::size_t n) { return grid.propose(n); }
  void observe(std::span<const Trial> t) {
    observed += t.size();
    grid.observe(t);
  }
};

Record record_on(std::string device, Configuration c, double value) {
  return Record{{"kernel", std::move(device)}, grid().named_values(c), value, {}};
}

}  // namespace

TEST_CASE("transfer: sources are weighed on each other, the most trusted first") {
  // a and b are alike (optima one apart); c is unlike them.
  const std::vector<TransferSource> sources{recording("c", 8, 8), recording("b", 2, 3),
                                            recording("a", 2, 2)};
  const auto plan = plan_transfer(grid(), sources, TransferOptions{.per_source = 2});
  REQUIRE(plan.sources.size() == 3);
  // a's two best, (2,2) and (1,2) (ties broken by configuration), take b to 1/2 of its optimum
  // at best and c to 1/73: a's weight is their mean; b's is the same by symmetry ((2,3), (1,3)
  // on a: 1/2, on c: 1/62).
  CHECK(plan.sources[0].device == "b");
  CHECK(plan.sources[0].weight == doctest::Approx((0.5 + 1.0 / 62) / 2));
  CHECK(plan.sources[1].device == "a");
  CHECK(plan.sources[1].weight == doctest::Approx((0.5 + 1.0 / 73) / 2));
  CHECK(plan.sources[2].device == "c");
  CHECK(plan.sources[2].predicted == 2);
  CHECK(plan.sources[2].weight < 0.05);
  // Rank 1 of each source by weight, then rank 2.
  const std::vector<Configuration> expected{{2, 3}, {2, 2}, {8, 8}, {1, 3}, {1, 2}, {7, 8}};
  CHECK(plan.seeds == expected);
  for (const auto& w : plan.sources) {
    CHECK(w.used);
    CHECK(w.seeds == 2);
  }
}

TEST_CASE("transfer: min_weight leaves an unlike source out; max_seeds and validity bound it") {
  const std::vector<TransferSource> sources{recording("c", 8, 8), recording("b", 2, 3),
                                            recording("a", 2, 2)};
  const auto plan = plan_transfer(grid(), sources, TransferOptions{.min_weight = 0.5});
  CHECK_FALSE(plan.sources[2].used);
  CHECK(plan.sources[2].seeds == 0);
  CHECK(plan.seeds == std::vector<Configuration>{{2, 3}, {2, 2}, {1, 3}, {1, 2}});

  const auto three = plan_transfer(grid(), sources, TransferOptions{.max_seeds = 3});
  CHECK(three.seeds == std::vector<Configuration>{{2, 3}, {2, 2}, {8, 8}});
  CHECK(plan_transfer(grid(), sources, TransferOptions{.enabled = false}).seeds.empty());

  // (9,9) breaks the constraint and (12,0) is not in the space: the source's best valid point
  // is taken instead; values that are not positive finite numbers are ignored.
  TransferSource odd{"odd",
                     {{grid().named_values({9, 9}), 0.5},
                      {{{"x", Value(12)}, {"y", Value(0)}}, 0.6},
                      {grid().named_values({4, 4}), -1.0},
                      {grid().named_values({5, 5}), 2.0},
                      {grid().named_values({6, 6}), 3.0}}};
  const auto alone = plan_transfer(grid(), std::span<const TransferSource>(&odd, 1), {});
  REQUIRE(alone.sources.size() == 1);
  CHECK(alone.sources[0].predicted == 0);
  CHECK(alone.sources[0].weight == 1.0);  // nothing to weigh it on: taken as it is
  CHECK(alone.seeds == std::vector<Configuration>{{5, 5}, {6, 6}});
}

TEST_CASE("tuner transfer: the repository's other devices' winners are measured first") {
  MemoryRepository repo;
  REQUIRE(repo.store(record_on("gpu-a", {3, 4}, 2.0)).has_value());
  REQUIRE(repo.store(record_on("gpu-b", {4, 3}, 2.5)).has_value());
  REQUIRE(repo.store(record_on("here", {0, 0}, 9.0)).has_value());  // the key itself: a hit
  REQUIRE(repo.store(Record{{"other kernel", "gpu-c"}, grid().named_values({9, 0}), 1.0, {}})
              .has_value());
  const auto sources = repo.transfer_sources({"kernel", "new gpu"});
  REQUIRE(sources.has_value());
  CHECK(sources->size() == 3);  // gpu-a, gpu-b and here; not the other kernel's

  Tuner<CountingGrid, BowlRunner, MemoryRepository> tuner({}, {}, std::move(repo));
  const auto r = tuner.tune(grid(), TuningKey{"kernel", "new gpu"}, MaxEvaluations{6});
  REQUIRE(r.history.size() == 6);
  // Winners only: every weight is 1, so the order is the devices'; grid search cannot take
  // them, so the tuner measures them before its first proposal and does not show them to it.
  CHECK(r.transfer.seeds == 3);
  CHECK_FALSE(r.transfer.by_policy);
  CHECK(r.history[0].configuration == Configuration{3, 4});
  CHECK(r.history[1].configuration == Configuration{4, 3});
  CHECK(r.history[2].configuration == Configuration{0, 0});
  // Grid's own first, (0,0), was seen: it is not measured again and its trial goes back to
  // grid search, with the three it measured.
  for (std::size_t i = 3; i < 6; ++i) CHECK(r.history[i].configuration != Configuration{0, 0});
  CHECK(tuner.search().observed == 4);
  CHECK(r.best_configuration == Configuration{3, 4});
}

TEST_CASE("tuner transfer: a policy that takes a warm start gets the seeds as its first points") {
  TunerOptions o;
  o.transfer.sources = {recording("a", 3, 3), recording("b", 4, 3), recording("new gpu", 0, 9)};
  Tuner<SimulatedAnnealing<>, BowlRunner> tuner(SimulatedAnnealing<>{}, BowlRunner{}, o);
  const auto r = tuner.tune(grid(), TuningKey{"kernel", "new gpu"}, MaxEvaluations{30});
  CHECK(r.transfer.by_policy);
  REQUIRE(r.transfer.sources.size() == 2);  // the key's own device is not a source
  // b's two best, (4,3) and (3,3), take a to its optimum (weight 1); a's, (3,3) and (2,3), take
  // b to half of its (weight 0.5). So b's come first, and (3,3) once.
  CHECK(r.transfer.sources[0].device == "b");
  CHECK(r.transfer.sources[0].weight == doctest::Approx(1.0));
  CHECK(r.transfer.sources[1].weight == doctest::Approx(0.5));
  CHECK(r.transfer.seeds == 3);
  REQUIRE(r.history.size() >= 3);
  CHECK(r.history[0].configuration == Configuration{4, 3});
  CHECK(r.history[1].configuration == Configuration{3, 3});  // the optimum here
  CHECK(r.history[2].configuration == Configuration{2, 3});
  CHECK(r.best_value == 1.0);

  // Without a key every given source is used; switched off, none is.
  const auto unkeyed = tuner.tune(grid(), MaxEvaluations{10});
  CHECK(unkeyed.transfer.sources.size() == 3);
  tuner.options().transfer.enabled = false;
  tuner.options().reuse = false;  // the first run stored the key's winner
  const auto off = tuner.tune(grid(), TuningKey{"kernel", "new gpu"}, MaxEvaluations{10});
  REQUIRE_FALSE(off.history.empty());
  CHECK(off.transfer.seeds == 0);
  CHECK(off.transfer.sources.empty());
  CHECK_FALSE(off.transfer.by_policy);
  CHECK(off.history[0].configuration != Configuration{4, 3});  // the previous seeds are gone
}

TEST_CASE("tuner transfer: seeds planned elsewhere go first, invalid ones and repeats dropped") {
  TunerOptions o;
  o.transfer.sources = {recording("a", 3, 3)};
  o.transfer.seeds = {{9, 9}, {5, 5}, {5, 5}, {3, 3}};  // (9,9) breaks x + y <= 16
  Tuner<CountingGrid, BowlRunner> tuner(CountingGrid{}, BowlRunner{}, o);
  const auto r = tuner.tune(grid(), MaxEvaluations{5});
  CHECK(r.transfer.seeds == 3);  // (5,5), (3,3), then a's second best (2,3)
  REQUIRE(r.history.size() == 5);
  CHECK(r.history[0].configuration == Configuration{5, 5});
  CHECK(r.history[1].configuration == Configuration{3, 3});
  CHECK(r.history[2].configuration == Configuration{2, 3});
}
