// Objectives: names, scores, power caps, the Pareto front and its rules, and the Tuner tuning
// for energy, the energy-delay product, time under a power cap, and the front.
#include <aoe/search/grid_search.hpp>
#include <aoe/search/random_search.hpp>
#include <aoe/tuner/memory_repository.hpp>
#include <aoe/tuner/tuner.hpp>
#include <aoe/vocab/objective.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace core_objective_test {  // apart from this area's other files in a unity build

using namespace aoe;

namespace {

/// A space of 16 x 16 "clock levels" and "tile sizes" where time and energy conflict: a higher
/// level `f` runs faster but draws more power; tile `k` costs both time and energy away from 7.
Space clock_space() { return Space({range("f", 1, 16), range("k", 0, 15)}); }

double seconds_of(double f, double k) { return (1.0 + 0.05 * (k - 7) * (k - 7)) / f; }
double watts_of(double f) { return 50.0 + 10.0 * f * f; }

/// Times and energies from the formulas above; `energy` false: a runner that cannot tell.
struct ClockRunner {
  bool energy = true;
  std::vector<Measurement> measure(SpaceView view, std::span<const Configuration> batch) const {
    std::vector<Measurement> out;
    for (const auto& c : batch) {
      const double f = view.space().numeric(c, 0), k = view.space().numeric(c, 1);
      auto m = Measurement::success(seconds_of(f, k));
      if (energy) {
        const double w = watts_of(f);
        m.energy = Energy{w * m.value, w, TimingKind::simulated};
      }
      out.push_back(m);
    }
    return out;
  }
};

/// A grid search that keeps what it was shown.
struct ShownGrid {
  GridSearch grid;
  std::vector<Trial> shown;
  void start(SpaceView v, std::uint64_t seed) { grid.start(v, seed); }
  std::vector<Configuration> propose(std::size_t n) { return grid.propose(n); }
  void observe(std::span<const Trial> t) {
    shown.insert(shown.end(), t.begin(), t.end());
    grid.observe(t);
  }
};

template <class Score>
const Trial& brute_best(const TuningResult& r, Score score) {
  return *std::min_element(r.history.begin(), r.history.end(), [&](const Trial& a, const Trial& b) {
    return score(a.measurement) < score(b.measurement);
  });
}

TuningResult tune(Objective o, ClockRunner runner = {}) {
  Tuner<GridSearch, ClockRunner> tuner(GridSearch{}, runner, TunerOptions{.objective = o});
  return tuner.tune(clock_space(), MaxEvaluations{256});
}

}  // namespace

TEST_CASE("objective names parse, and a wrong one is named with the valid ones") {
  CHECK(objective_kind_from("edp", "--objective").value() == ObjectiveKind::edp);
  CHECK(front_pick_from("least_energy", "--pareto_pick").value() == FrontPick::least_energy);
  const auto bad = objective_kind_from("speed", "--objective");
  REQUIRE(bad.has_error());
  CHECK(bad.error().message ==
        "--objective: 'speed' is not an objective; expected one of time, "
        "energy, edp, pareto");
  CHECK(front_pick_from("middle", "pick").error().message.find("fastest, least_energy, knee") !=
        std::string::npos);
  CHECK(Objective{}.key_suffix().empty());
  CHECK(Objective{}.plain_time());
  CHECK(Objective{.kind = ObjectiveKind::energy}.key_suffix() == "#objective=energy");
  CHECK(Objective{.kind = ObjectiveKind::time, .power_cap_watts = 300}.key_suffix() ==
        "#objective=time,cap=300W");
  CHECK(Objective{.kind = ObjectiveKind::pareto, .power_cap_watts = 87.5}.label() ==
        "pareto (knee), power cap 87.5 W");
}

TEST_CASE("the front keeps the non-dominated points by time, and the rules pick from it") {
  std::vector<FrontPoint> front;
  CHECK(add_to_front(front, {2, 2, 0}));
  CHECK(add_to_front(front, {1, 5, 1}));
  CHECK(add_to_front(front, {4, 1, 2}));
  CHECK_FALSE(add_to_front(front, {3, 3, 3}));  // dominated by (2, 2)
  CHECK_FALSE(add_to_front(front, {2, 2, 4}));  // equal
  CHECK(add_to_front(front, {1.5, 1.5, 5}));    // dominates (2, 2)
  REQUIRE(front.size() == 3);
  CHECK(front[0].index == 1);
  CHECK(front[1].index == 5);
  CHECK(front[2].index == 2);
  CHECK(pick_from_front(front, FrontPick::fastest) == 0);
  CHECK(pick_from_front(front, FrontPick::least_energy) == 2);
  CHECK(pick_from_front(front, FrontPick::knee) == 1);
  const std::vector<FrontPoint> one{{3, 3, 9}};
  CHECK(pick_from_front(one, FrontPick::knee) == 0);
}

TEST_CASE("the default objective is time: the same winner, no front, the caller's key") {
  const auto r = tune({});
  REQUIRE(r.found());
  const auto& best = brute_best(r, [](const Measurement& m) { return m.value; });
  CHECK(r.best_value == best.measurement.value);
  CHECK(r.front.empty());
  Tuner<GridSearch, ClockRunner, MemoryRepository> keyed{};
  const auto kr = keyed.tune(clock_space(), TuningKey{"clock", "toy"}, MaxEvaluations{256});
  CHECK(keyed.repository().records().begin()->first.problem == "clock");
  CHECK(kr.best_value == best.measurement.value);
}

TEST_CASE("energy and edp pick the configurations that minimise them, not the fastest") {
  const auto fastest = tune({});
  const auto by_energy = tune({.kind = ObjectiveKind::energy});
  const auto by_edp = tune({.kind = ObjectiveKind::edp});
  const auto& e = brute_best(by_energy, [](const Measurement& m) { return m.energy->joules; });
  const auto& p =
      brute_best(by_edp, [](const Measurement& m) { return m.energy->joules * m.value; });
  CHECK(by_energy.best_trial()->configuration == e.configuration);
  CHECK(by_energy.best_value == e.measurement.energy->joules);
  CHECK(by_edp.best_trial()->configuration == p.configuration);
  CHECK(by_edp.best_value == doctest::Approx(p.measurement.energy->joules * p.measurement.value));
  // The trade-off is real: the three winners differ, energy's is the slowest.
  CHECK(by_energy.best_trial()->configuration != fastest.best_trial()->configuration);
  CHECK(by_edp.best_trial()->configuration != by_energy.best_trial()->configuration);
  CHECK(by_energy.best_trial()->measurement.value > fastest.best_trial()->measurement.value);
}

TEST_CASE(
    "a power cap: the fastest configuration under it wins; the policy sees over-cap ones "
    "penalised") {
  const Objective capped{.kind = ObjectiveKind::time, .power_cap_watts = 1000};
  Tuner<ShownGrid, ClockRunner> tuner(ShownGrid{}, ClockRunner{},
                                      TunerOptions{.objective = capped});
  const auto r = tuner.tune(clock_space(), MaxEvaluations{256});
  REQUIRE(r.found());
  const auto& best = *r.best_trial();
  CHECK(best.measurement.energy->watts <= 1000);
  for (const auto& t : r.history) {
    if (t.measurement.energy->watts <= 1000) CHECK(t.measurement.value >= best.measurement.value);
  }
  // f = 9 draws 860 W, f = 10 1050 W: the winner is at the highest level under the cap.
  CHECK(clock_space().numeric(best.configuration, 0) == 9);
  // History keeps the measurement; the policy saw the over-cap times stretched by W / cap.
  const auto& shown = tuner.search().shown;
  REQUIRE(shown.size() == r.history.size());
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const auto& m = r.history[i].measurement;
    const double factor = m.energy->watts > 1000 ? m.energy->watts / 1000 : 1.0;
    CHECK(shown[i].measurement.value == doctest::Approx(m.value * factor));
  }
}

TEST_CASE("pareto: the front is every non-dominated trial, and the rule picks the one in use") {
  for (const auto rule : {FrontPick::fastest, FrontPick::least_energy, FrontPick::knee}) {
    CAPTURE(to_string(rule));
    const auto r = tune({.kind = ObjectiveKind::pareto, .pick = rule});
    REQUIRE(r.found());
    std::vector<std::size_t> expected;
    for (std::size_t i = 0; i < r.history.size(); ++i) {
      const auto& a = r.history[i].measurement;
      bool dominated = false;
      for (std::size_t j = 0; j < r.history.size() && !dominated; ++j) {
        const auto& b = r.history[j].measurement;
        dominated = dominates(b.value, b.energy->joules, a.value, a.energy->joules) ||
                    (j < i && b.value == a.value && b.energy->joules == a.energy->joules);
      }
      if (!dominated) expected.push_back(i);
    }
    std::sort(expected.begin(), expected.end(), [&](std::size_t a, std::size_t b) {
      return r.history[a].measurement.value < r.history[b].measurement.value;
    });
    CHECK(r.front == expected);
    CHECK(r.front.size() > 3);
    std::vector<FrontPoint> points;
    for (const auto i : r.front) {
      points.push_back(
          {r.history[i].measurement.value, r.history[i].measurement.energy->joules, i});
    }
    CHECK(r.best_index == r.front[pick_from_front(points, rule)]);
    const auto& m = r.best_trial()->measurement;
    const double expected_score = rule == FrontPick::fastest        ? m.value
                                  : rule == FrontPick::least_energy ? m.energy->joules
                                                                    : m.energy->joules * m.value;
    CHECK(r.best_value == expected_score);
  }
  const auto fastest = tune({.kind = ObjectiveKind::pareto, .pick = FrontPick::fastest});
  const auto time_only = tune({});
  CHECK(fastest.best_trial()->configuration == time_only.best_trial()->configuration);
}

TEST_CASE("pareto: a scalarising policy is shown the energy-delay product, whatever the rule") {
  Tuner<ShownGrid, ClockRunner> tuner(
      ShownGrid{}, ClockRunner{},
      TunerOptions{.objective = {.kind = ObjectiveKind::pareto, .pick = FrontPick::fastest}});
  const auto r = tuner.tune(clock_space(), MaxEvaluations{64});
  const auto& shown = tuner.search().shown;
  REQUIRE(shown.size() == r.history.size());
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const auto& m = r.history[i].measurement;
    CHECK(shown[i].measurement.value == doctest::Approx(m.energy->joules * m.value));
  }
}

TEST_CASE("an objective that needs energy, with a runner that cannot tell, is a clear error") {
  CHECK_THROWS_WITH_AS(tune({.kind = ObjectiveKind::energy}, ClockRunner{.energy = false}),
                       doctest::Contains("needs each measurement's energy"), Error);
  CHECK_NOTHROW(tune({}, ClockRunner{.energy = false}));
}

TEST_CASE("records of different objectives never compete for one key") {
  Tuner<RandomSearch, ClockRunner, MemoryRepository> tuner(RandomSearch{}, ClockRunner{});
  const TuningKey key{"clock", "toy"};
  tuner.options().objective = Objective{.kind = ObjectiveKind::energy};
  const auto energy = tuner.tune(clock_space(), key, MaxEvaluations{64});
  tuner.options().objective = Objective{};
  const auto time = tuner.tune(clock_space(), key, MaxEvaluations{64});
  CHECK(time.reason != StopReason::repository_hit);  // the energy record is another key's
  const auto& records = tuner.repository().records();
  REQUIRE(records.size() == 2);
  CHECK(records.contains(TuningKey{"clock#objective=energy", "toy"}));
  CHECK(records.at(TuningKey{"clock#objective=energy", "toy"}).value == energy.best_value);
  tuner.options().objective = Objective{.kind = ObjectiveKind::energy};
  const auto again = tuner.tune(clock_space(), key, MaxEvaluations{64});
  CHECK(again.reason == StopReason::repository_hit);
}

}  // namespace core_objective_test
