// Records a space with any runner: measure every configuration given (all the valid ones, or a
// sample) and keep the measurements as a Recording, to write as a Kernel Tuner cache and
// replay as often as wanted.
#ifndef AOE_MEASURE_REPLAY_RECORD_HPP
#define AOE_MEASURE_REPLAY_RECORD_HPP

#include "aoe/core/random.hpp"
#include "aoe/measure/replay/recording.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/concepts.hpp"
#include "aoe/vocab/measurement.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace aoe::replay {

/// What to record and how. Aggregate: `aoe::replay::RecordOptions{.sample = 200, .seed = 1}`.
struct RecordOptions {
  std::size_t sample = 0;  ///< 0: every valid configuration; else this many, uniformly drawn
  std::uint64_t seed = 0;  ///< the sample's seed
  std::size_t batch = 8;   ///< configurations measured together (the runner may build them in
                           ///< parallel)
  std::string name{};      ///< the recording's name
  std::string device{};    ///< device_name in the cache
  std::string kernel{};    ///< kernel_name in the cache
  /// Called after each batch with the number of configurations measured so far.
  std::function<void(std::size_t done, std::size_t total)> progress{};
};

/// The configurations `record` measures: every valid one in enumeration order, or a uniform
/// sample of `options.sample` of them without replacement (reservoir sampling, seeded).
[[nodiscard]] inline std::vector<Configuration> configurations_to_record(
    const Space& space, const RecordOptions& options) {
  std::vector<Configuration> all;
  auto e = space.enumerate();
  Configuration c;
  Rng rng(options.seed);
  std::size_t seen = 0;
  while (e.next(c)) {
    ++seen;
    if (options.sample == 0 || all.size() < options.sample) {
      all.push_back(c);
    } else {
      const auto j = static_cast<std::size_t>(rng.uniform() * static_cast<double>(seen));
      if (j < options.sample) all[j] = c;
    }
  }
  if (options.sample != 0) std::sort(all.begin(), all.end());
  return all;
}

/// Measures `configurations` of `space` with `runner` and returns them as a Recording (its
/// parameters are the space's; its one constraint is "recorded"). Failed configurations are
/// recorded with their status. When the runner reports `timings()` (the OpenCL runner), the
/// compile, verification and benchmark times are kept too.
template <measure_policy Runner>
[[nodiscard]] Recording record(Runner& runner, const Space& space,
                               std::span<const Configuration> configurations,
                               const RecordOptions& options = {}) {
  Recording recording(options.name.empty() ? "recorded" : options.name,
                      options.name.empty() ? "recorded" : options.name, space.parameters());
  recording.device = options.device;
  recording.kernel = options.kernel;
  recording.objective = "time";
  const std::size_t batch = std::max<std::size_t>(1, options.batch);
  for (std::size_t begin = 0; begin < configurations.size(); begin += batch) {
    const auto part = configurations.subspan(begin, std::min(batch, configurations.size() - begin));
    const std::vector<Measurement> m = runner.measure(SpaceView(space), part);
    for (std::size_t i = 0; i < part.size(); ++i) {
      RecordedEntry e;
      e.status = m[i].status;
      e.value = m[i].ok() ? m[i].value : std::numeric_limits<double>::infinity();
      e.samples = m[i].samples;
      if (m[i].ok()) e.energy = m[i].energy;
      if constexpr (requires { runner.timings(); }) {
        const auto& t = runner.timings();
        if (i < t.size()) {
          e.compile_seconds = t[i].compile_seconds;
          e.verification_seconds = t[i].verification_seconds;
          e.benchmark_seconds = t[i].benchmark_seconds;
        }
      }
      (void)recording.add(part[i], std::move(e));
    }
    if (options.progress) options.progress(begin + part.size(), configurations.size());
  }
  return recording;
}

}  // namespace aoe::replay

#endif  // AOE_MEASURE_REPLAY_RECORD_HPP
