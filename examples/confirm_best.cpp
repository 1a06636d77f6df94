// Confirming the best on a noisy machine: tune a blocked matrix transpose with one timed run
// per configuration (fast, and noisy), then let the tuner re-measure its 4 best candidates 5
// more times before it declares one best (TunerOptions::confirm).
//   aoe_example_confirm_best [n]      (n defaults to 1024)
#include <aoe/measure/host_runner.hpp>
#include <aoe/search/random_search.hpp>
#include <aoe/space/typed_space.hpp>
#include <aoe/tuner/tuner.hpp>

#include <boost/hana/define_struct.hpp>

#include <cstdio>
#include <cstdlib>
#include <vector>

// The tile of the transpose: rows and columns of the block copied at a time.
struct Blocking {
  BOOST_HANA_DEFINE_STRUCT(Blocking, (int, bi), (int, bj));
};

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  if (n < 16) {
    std::fprintf(stderr, "usage: %s [n >= 16]\n", argv[0]);
    return 2;
  }
  const auto size = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  std::vector<float> in(size), out(size);
  for (std::size_t i = 0; i < size; ++i) in[i] = static_cast<float>(i % 977);
  const auto kernel = [&](const Blocking& b) {
    for (int i0 = 0; i0 < n; i0 += b.bi)
      for (int j0 = 0; j0 < n; j0 += b.bj)
        for (int i = i0; i < i0 + b.bi; ++i)
          for (int j = j0; j < j0 + b.bj; ++j) out[j * n + i] = in[i * n + j];
  };
  const auto correct = [&](const Blocking&) {
    for (int i = 0; i < n; i += 7) {
      for (int j = 0; j < n; j += 5) {
        if (out[j * n + i] != in[i * n + j]) return false;
      }
    }
    return true;
  };
  auto space = aoe::make_space<Blocking>(aoe::pow2("bi", 1, 256), aoe::pow2("bj", 1, 256),
                                         aoe::divides("bi", n), aoe::divides("bj", n));

  aoe::Tuner<aoe::RandomSearch, aoe::HostRunner> tuner(
      aoe::RandomSearch{}, aoe::HostRunner(kernel, correct, {.repetitions = 1}),
      aoe::MemoryRepository{},
      aoe::TunerOptions{.seed = 3, .confirm = {.candidates = 4, .rounds = 5}});
  const aoe::TuningResult result = tuner.tune(space, aoe::MaxEvaluations{40});
  if (!result.found()) {
    std::fprintf(stderr, "no configuration passed the check\n");
    return 1;
  }
  std::printf("%zu evaluated; the 4 best by their one measurement, measured 5 more times:\n",
              result.history.size());
  for (const auto& c : result.confirmation) {
    const auto& trial = result.history[c.index];
    std::printf("  %-14s search %8.3f ms, median of %zu %8.3f ms%s\n",
                space.to_string(trial.configuration).c_str(), c.values.front() * 1e3,
                c.values.size(), c.median * 1e3, c.index == result.best_index ? "  <- best" : "");
  }
  std::printf("declared best: %s, %.3f ms (a median, not the luckiest run)\n",
              space.to_string(*result.best_configuration).c_str(), result.best_value * 1e3);
  return 0;
}
