// Tuning for the Pareto front of time and energy: NSGA-II's ranking, the exact two-dimensional
// hypervolume, and the evolutionary policy's non-dominated sorting against scalarising search.
#include <aoe/search/any_search.hpp>
#include <aoe/search/bayesian/bayesian.hpp>
#include <aoe/search/bayesian/parego.hpp>
#include <aoe/search/detail/nondominated.hpp>
#include <aoe/search/evolutionary.hpp>
#include <aoe/search/random_search.hpp>
#include <aoe/tuner/tuner.hpp>
#include <aoe/vocab/objective.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <vector>

namespace search_multi_objective_test {  // apart from this area's other files in a unity build

using namespace aoe;

namespace {

/// A clock level `f`, a tile `k` and an unroll `u`: a higher clock runs faster and draws
/// more power; the tile and the unroll cost time away from their best; unrolling draws power.
Space trade_space() { return Space({range("f", 1, 16), range("k", 0, 15), range("u", 0, 7)}); }

struct TradeRunner {
  std::vector<Measurement> measure(SpaceView view, std::span<const Configuration> batch) const {
    std::vector<Measurement> out;
    for (const auto& c : batch) {
      const double f = view.space().numeric(c, 0), k = view.space().numeric(c, 1),
                   u = view.space().numeric(c, 2);
      auto m = Measurement::success((1.0 + 0.05 * (k - 7) * (k - 7) + 0.1 * (u - 3) * (u - 3)) / f);
      const double w = 50.0 + 10.0 * f * f + 5.0 * u;
      m.energy = Energy{w * m.value, w, TimingKind::simulated};
      out.push_back(m);
    }
    return out;
  }
};

/// A policy that does not take the front itself: shown the tuner's scalar (EDP).
template <class Inner>
struct Scalarised {
  Inner inner;
  void start(SpaceView v, std::uint64_t seed) { inner.start(v, seed); }
  std::vector<Configuration> propose(std::size_t n) { return inner.propose(n); }
  void observe(std::span<const Trial> t) { inner.observe(t); }
};

std::vector<FrontPoint> points_of(const TuningResult& r) {
  std::vector<FrontPoint> out;
  for (const auto i : r.front) {
    out.push_back({r.history[i].measurement.value, r.history[i].measurement.energy->joules, i});
  }
  return out;
}

/// The recorded front: every configuration measured.
std::vector<FrontPoint> true_front() {
  const Space space = trade_space();
  std::vector<Configuration> all;
  auto e = space.enumerate();
  Configuration c;
  while (e.next(c)) all.push_back(c);
  const auto m = TradeRunner{}.measure(SpaceView(space), all);
  std::vector<FrontPoint> front;
  for (std::size_t i = 0; i < m.size(); ++i) {
    (void)add_to_front(front, {m[i].value, m[i].energy->joules, i});
  }
  return front;
}

template <class Search>
double mean_hypervolume(std::size_t budget, FrontPoint reference, double best, int seeds = 8,
                        std::size_t batch = 1) {
  double sum = 0;
  for (int seed = 0; seed < seeds; ++seed) {
    Tuner<Search, TradeRunner> tuner(Search{}, TradeRunner{},
                                     TunerOptions{.seed = static_cast<std::uint64_t>(seed),
                                                  .batch_size = batch,
                                                  .objective = {.kind = ObjectiveKind::pareto}});
    const auto r = tuner.tune(trade_space(), MaxEvaluations{budget});
    sum += front_hypervolume(points_of(r), reference) / best;
  }
  return sum / seeds;
}

}  // namespace

TEST_CASE("the two-dimensional hypervolume is exact, and dominated points add nothing") {
  const std::vector<FrontPoint> front{{1, 3, 0}, {2, 2, 1}, {3, 1, 2}};
  CHECK(front_hypervolume(front, {4, 4, 0}) == doctest::Approx(6));
  std::vector<FrontPoint> more = front;
  more.push_back({2.5, 2.5, 3});  // dominated by (2, 2)
  more.push_back({5, 0.5, 4});    // beyond the reference in time
  CHECK(front_hypervolume(more, {4, 4, 0}) == doctest::Approx(6));
  CHECK(front_hypervolume({}, {4, 4, 0}) == 0);
}

TEST_CASE("NSGA-II's ranking: fronts by constrained domination, crowding infinite at the ends") {
  using detail::ObjectivePoint;
  const std::vector<ObjectivePoint> points{
      {1, 4, 0},
      {2, 2, 0},
      {4, 1, 0},      // front 0
      {3, 3, 0},      // front 1 (dominated by (2, 2))
      {0.5, 0.5, 7},  // infeasible: after every feasible point
      {0.4, 0.4, 9},  // more infeasible
      {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(), 0}};
  const auto r = detail::rank_points(points);
  CHECK(r.front[0] == 0);
  CHECK(r.front[1] == 0);
  CHECK(r.front[2] == 0);
  CHECK(r.front[3] == 1);
  CHECK(r.front[6] == 2);  // failed: dominated by every feasible valid point
  CHECK(r.front[4] > r.front[6]);
  CHECK(r.front[5] > r.front[4]);
  CHECK(std::isinf(r.crowding[0]));
  CHECK(std::isinf(r.crowding[2]));
  CHECK(r.crowding[1] == doctest::Approx((4.0 - 1) / 3 + (4.0 - 1) / 3));
  CHECK(r.better(1, 3));
  CHECK(r.better(0, 1));  // same front, the end is less crowded
}

TEST_CASE("the evolutionary policy takes the front itself; AnySearch says so for it") {
  Evolutionary<> e;
  CHECK(e.multi_objective(Objective{.kind = ObjectiveKind::pareto}));
  CHECK_FALSE(e.multi_objective(Objective{.kind = ObjectiveKind::energy}));
  AnySearch any(Evolutionary<>{});
  CHECK(any.multi_objective(Objective{.kind = ObjectiveKind::pareto}));
  AnySearch random(RandomSearch{});
  CHECK_FALSE(random.multi_objective(Objective{.kind = ObjectiveKind::pareto}));
}

TEST_CASE("non-dominated sorting finds more of the front than scalarised search at 100 and 200") {
  const auto front = true_front();
  REQUIRE(front.size() > 10);
  const FrontPoint reference{front.back().seconds * 1.1, front.front().joules * 1.1, 0};
  const double best = front_hypervolume(front, reference);
  for (const std::size_t budget : {std::size_t{100}, std::size_t{200}}) {
    CAPTURE(budget);
    const double nsga = mean_hypervolume<Evolutionary<>>(budget, reference, best);
    const double scalar = mean_hypervolume<Scalarised<Evolutionary<>>>(budget, reference, best);
    const double random = mean_hypervolume<RandomSearch>(budget, reference, best);
    MESSAGE(budget << " evaluations: hypervolume / the recorded front's: NSGA-II " << nsga
                   << ", evolutionary on EDP " << scalar << ", random " << random);
    CHECK(nsga > scalar);
    CHECK(nsga > random);
    CHECK(nsga <= 1.0 + 1e-12);
  }
}

TEST_CASE(
    "ParEGO: the weights move along the lattice, and the scalar is the augmented Tchebycheff") {
  ParegoScalarisation p(0);
  Rng rng(5);
  std::vector<double> weights;
  for (int i = 0; i < 200; ++i) {
    p.draw_weights(rng);
    weights.push_back(p.time_weight());
  }
  std::sort(weights.begin(), weights.end());
  weights.erase(std::unique(weights.begin(), weights.end()), weights.end());
  CHECK(weights.size() == 11);  // 0, 0.1, ..., 1
  const auto trial = [](double seconds, double joules) {
    Trial t;
    t.measurement = Measurement::success(seconds);
    t.measurement.energy = Energy{joules, joules / seconds, TimingKind::simulated};
    return t;
  };
  const std::vector<Trial> raw{trial(1, 100), trial(100, 1), trial(10, 10)};
  p.normalise_over(raw);
  // (10, 10) sits at the middle of both log ranges: z = (0.5, 0.5).
  ParegoScalarisation half(0);
  Rng r2(1);
  do {
    half.draw_weights(r2);
  } while (half.time_weight() != 0.5);
  half.normalise_over(raw);
  CHECK(half.scalarised(raw[2]).measurement.value == doctest::Approx(1 + 0.25 + 0.05 * 0.5));
  CHECK(half.scalarised(raw[0]).measurement.value == doctest::Approx(1 + 0.5 + 0.05 * 0.5));
  // Over a cap: above every feasible value.
  ParegoScalarisation capped(50);
  capped.normalise_over(raw);
  CHECK(capped.scalarised(raw[0]).measurement.value > 2.1);   // 100 W
  CHECK(capped.scalarised(raw[2]).measurement.value <= 2.1);  // 1 W
  Trial no_energy;
  no_energy.measurement = Measurement::success(3);
  CHECK_FALSE(half.scalarised(no_energy).measurement.ok());
}

TEST_CASE("ParEGO takes the front itself and finds more of it than random search at 50") {
  const auto front = true_front();
  const FrontPoint reference{front.back().seconds * 1.1, front.front().joules * 1.1, 0};
  const double best = front_hypervolume(front, reference);
  CHECK(Bayesian<>{}.multi_objective(Objective{.kind = ObjectiveKind::pareto}));
  CHECK_FALSE(Bayesian<>{}.multi_objective(Objective{.kind = ObjectiveKind::edp}));
  // Batches of 5: one weight (and one refit) per batch, as a tuner with parallel measurement
  // runs it, and a fifth of the refits of batches of one.
  const double parego = mean_hypervolume<Bayesian<>>(50, reference, best, 3, 5);
  const double random = mean_hypervolume<RandomSearch>(50, reference, best, 3, 5);
  MESSAGE("50 evaluations: hypervolume / the recorded front's: ParEGO " << parego << ", random "
                                                                        << random);
  CHECK(parego > random);
}

TEST_CASE("a pareto tuning stores its front in the repository, and a hit gives it back") {
  Tuner<Evolutionary<>, TradeRunner> tuner(
      Evolutionary<>{}, TradeRunner{},
      TunerOptions{.seed = 3, .objective = {.kind = ObjectiveKind::pareto}});
  const TuningKey key{"trade", "toy"};
  const Space space = trade_space();
  const auto r = tuner.tune(space, key, MaxEvaluations{60});
  REQUIRE(r.front.size() > 1);
  // Stored under the key with the objective's suffix.
  const auto stored = tuner.repository().lookup({"trade#objective=pareto:knee", "toy"});
  REQUIRE(stored.has_value());
  REQUIRE(stored->has_value());
  const Record& rec = **stored;
  REQUIRE(rec.front.size() == r.front.size());
  for (std::size_t i = 0; i < r.front.size(); ++i) {
    const Trial& t = r.history[r.front[i]];
    CHECK(rec.front[i].configuration == space.named_values(t.configuration));
    CHECK(rec.front[i].seconds == t.measurement.value);
    CHECK(rec.front[i].joules == t.measurement.energy->joules);
  }
  // The configuration in use is one of the front's: the one the rule picked.
  CHECK(std::find_if(rec.front.begin(), rec.front.end(), [&](const FrontMember& f) {
          return f.configuration == rec.configuration;
        }) != rec.front.end());
  CHECK(rec.configuration == space.named_values(*r.best_configuration));
  const auto again = tuner.tune(space, key, MaxEvaluations{60});
  REQUIRE(again.repository_record.has_value());
  CHECK(again.repository_record->front == rec.front);
  // A time tuning stores no front.
  Tuner<Evolutionary<>, TradeRunner> time_tuner(Evolutionary<>{}, TradeRunner{},
                                                TunerOptions{.seed = 3});
  const TuningKey time_key{"trade", "toy"};
  (void)time_tuner.tune(space, time_key, MaxEvaluations{20});
  CHECK((*time_tuner.repository().lookup(time_key))->front.empty());
}

}  // namespace search_multi_objective_test
