// Cost of Bayesian search as the observations grow: GP fit (hyperparameters by marginal
// likelihood + Cholesky), candidate cross terms, and the propose/observe cycle, over a
// 100,000-point space. Goal: a proposal under 5 ms at 200 observations.
//   bayesian_bench --benchmark_format=json
#include <aoe/core/random.hpp>
#include <aoe/core/trial.hpp>
#include <aoe/search/bayesian/bayesian.hpp>
#include <aoe/search/bayesian/gaussian_process.hpp>
#include <aoe/space/parameter.hpp>
#include <aoe/space/space.hpp>

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstddef>
#include <vector>

namespace {

// 10^5 points: five parameters of ten levels each.
const aoe::Space& space() {
  static const aoe::Space s({aoe::range("a", 0, 9), aoe::range("b", 0, 9), aoe::range("c", 0, 9),
                             aoe::range("d", 0, 9), aoe::range("e", 0, 9)});
  return s;
}

aoe::Measurement objective(const aoe::Configuration& c) {
  double t = 1;
  for (std::size_t d = 0; d < c.size(); ++d) {
    const double x = static_cast<double>(c[d]) - 3.0 - static_cast<double>(d);
    t += 0.05 * x * x + 0.02 * std::sin(2.0 * x * static_cast<double>(d + 1));
  }
  return aoe::Measurement::success(1e-3 * t);
}

std::vector<aoe::Trial> random_trials(std::size_t n) {
  aoe::Rng rng(7);
  std::vector<aoe::Trial> out;
  for (std::size_t i = 0; i < n; ++i) {
    auto c = space().sample_raw(rng);
    out.push_back({c, objective(c), i + 1});
  }
  return out;
}

// Bayesian search after n observations (driven by its own proposals).
aoe::Bayesian<> fed(std::size_t n) {
  aoe::Bayesian<> bo;
  bo.start(space(), 11);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = bo.propose(1);
    const std::vector<aoe::Trial> t{{c.at(0), objective(c[0]), i + 1}};
    bo.observe(t);
  }
  return bo;
}

void gp_fit(benchmark::State& state) {
  const auto trials = random_trials(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    aoe::GaussianProcess<> gp;
    gp.fit(space(), trials);
    benchmark::DoNotOptimize(gp.size());
  }
  state.counters["observations"] = static_cast<double>(state.range(0));
}

void gp_candidates(benchmark::State& state) {
  const auto trials = random_trials(static_cast<std::size_t>(state.range(0)));
  aoe::GaussianProcess<> gp;
  gp.fit(space(), trials);
  aoe::Rng rng(3);
  std::vector<double> coords;
  for (int i = 0; i < 2048; ++i) {
    const auto x = space().encode(space().sample_raw(rng));
    coords.insert(coords.end(), x.begin(), x.end());
  }
  for (auto _ : state) {
    gp.set_candidates(coords);
    benchmark::DoNotOptimize(gp.candidate_count());
  }
  state.counters["observations"] = static_cast<double>(state.range(0));
  state.counters["candidates"] = 2048;
}

// One proposal and its observation, amortised over the next 20 (refits they trigger included).
void propose_observe(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  auto bo = fed(n);
  std::size_t evaluation = n;
  for (auto _ : state) {
    const auto c = bo.propose(1);
    state.PauseTiming();
    const std::vector<aoe::Trial> t{{c.at(0), objective(c[0]), ++evaluation}};
    state.ResumeTiming();
    bo.observe(t);
  }
  state.counters["observations"] = static_cast<double>(n);
}

// The proposal alone, between refits (the incremental path: rank-one updates only). Feeds
// n observations, then continues until a proposal has just refitted, so that the next two
// proposals take the incremental path (`refit_growth` 0.15 leaves >= 3 before the next one).
void propose_incremental(benchmark::State& state) {
  auto bo = fed(static_cast<std::size_t>(state.range(0)));
  std::size_t evaluation = static_cast<std::size_t>(state.range(0));
  while (true) {
    const auto c = bo.propose(1);
    const bool refitted = bo.fitted_at() == evaluation;
    const std::vector<aoe::Trial> t{{c.at(0), objective(c[0]), ++evaluation}};
    bo.observe(t);
    if (refitted) break;
  }
  const std::size_t fitted = bo.fitted_at();
  for (auto _ : state) {
    const auto c = bo.propose(1);
    state.PauseTiming();
    const std::vector<aoe::Trial> t{{c.at(0), objective(c[0]), ++evaluation}};
    bo.observe(t);
    state.ResumeTiming();
  }
  state.counters["observations"] = static_cast<double>(evaluation);
  state.counters["refits_during_timing"] = bo.fitted_at() == fitted ? 0 : 1;
}

}  // namespace

BENCHMARK(gp_fit)->Arg(25)->Arg(50)->Arg(100)->Arg(200)->Unit(benchmark::kMillisecond);
BENCHMARK(gp_candidates)->Arg(25)->Arg(50)->Arg(100)->Arg(200)->Unit(benchmark::kMillisecond);
BENCHMARK(propose_observe)
    ->Arg(25)
    ->Arg(50)
    ->Arg(100)
    ->Arg(200)
    ->Iterations(20)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(propose_incremental)
    ->Arg(25)
    ->Arg(50)
    ->Arg(100)
    ->Arg(200)
    ->Iterations(2)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
