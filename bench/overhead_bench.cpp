// Tuner overhead per evaluation: the whole ask/tell loop (proposal, de-duplication, validity,
// bookkeeping, history) with a measure policy that costs nothing, for grid and random search,
// batch sizes 1 and 16, on spaces of 10^3 and 10^6 points. One iteration is one tuning run;
// `per_evaluation` is seconds per evaluation (the run's setup included), items/s its inverse.
#include <aoe/search/grid_search.hpp>
#include <aoe/search/random_search.hpp>
#include <aoe/space/parameter.hpp>
#include <aoe/space/space.hpp>
#include <aoe/tuner/stop_conditions.hpp>
#include <aoe/tuner/tuner.hpp>
#include <aoe/vocab/measurement.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace {

// A measure policy with no cost: every configuration measures 1.
struct ConstantMeasure {
  std::vector<aoe::Measurement> measure(aoe::SpaceView /*view*/,
                                        std::span<const aoe::Configuration> batch) {
    return std::vector<aoe::Measurement>(batch.size(), aoe::Measurement::success(1.0));
  }
};

// `dimensions` parameters of 10 levels each: 10^dimensions points, all valid.
aoe::Space decimal_space(int dimensions) {
  std::vector<aoe::Parameter> parameters;
  for (int d = 0; d < dimensions; ++d) {
    parameters.push_back(aoe::range(std::string{'p', static_cast<char>('0' + d)}, 0, 9));
  }
  return aoe::Space(std::move(parameters));
}

// Arguments: log10 of the space's size, batch size. Runs evaluate the whole 10^3 space, or
// 10^4 configurations of the 10^6 one.
template <class Search>
void tuner_overhead(benchmark::State& state) {
  const aoe::Space space = decimal_space(static_cast<int>(state.range(0)));
  const std::size_t evaluations = state.range(0) <= 3 ? 1000 : 10000;
  aoe::Tuner<Search, ConstantMeasure> tuner(
      Search{}, ConstantMeasure{},
      aoe::TunerOptions{.seed = 1, .batch_size = static_cast<std::size_t>(state.range(1))});
  for (auto _ : state) {
    const aoe::TuningResult result = tuner.tune(space, aoe::MaxEvaluations{evaluations});
    benchmark::DoNotOptimize(result.best_value);
    if (result.history.size() != evaluations) state.SkipWithError("the run stopped early");
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(evaluations));
  state.counters["per_evaluation"] = benchmark::Counter(
      static_cast<double>(evaluations),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void arguments(benchmark::internal::Benchmark* b) {
  b->ArgNames({"log10_size", "batch"});
  for (const int log10_size : {3, 6}) {
    for (const int batch : {1, 16}) b->Args({log10_size, batch});
  }
  b->Unit(benchmark::kMillisecond);
}

BENCHMARK_TEMPLATE(tuner_overhead, aoe::GridSearch)->Apply(arguments);
BENCHMARK_TEMPLATE(tuner_overhead, aoe::RandomSearch)->Apply(arguments);

}  // namespace

BENCHMARK_MAIN();
