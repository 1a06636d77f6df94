// Options of Runner<device::Simulator>.
#ifndef AOE_MEASURE_SIMULATOR_SIMULATOR_OPTIONS_HPP
#define AOE_MEASURE_SIMULATOR_SIMULATOR_OPTIONS_HPP

#include "aoe/measure/simulator/knowledge.hpp"
#include "aoe/measure/simulator/noise_model.hpp"

#include <vector>

namespace aoe {

/// How the simulator runner builds its space and measures. Aggregate:
/// `aoe::SimulatorOptions{.knowledge = {sim::Knowledge::schedule, sim::Knowledge::format}}`.
struct SimulatorOptions {
  /// The kinds of parameters the space holds; the others stay at the heuristic's choice.
  std::vector<sim::Knowledge> knowledge = {sim::Knowledge::schedule};
  sim::NoiseModel noise = {};  ///< seeded; off by default (deterministic)
  /// Seconds charged per evaluation into Measurement::cost (AOE compiles every candidate).
  double compile_seconds = 0;
  /// Wall-clock seconds slept by each evaluation, so that a measurement takes as long as a
  /// device's compile and run would: parallel and distributed measurement (docs/distributed.md)
  /// then show their speed-up on a small machine. Not charged into Measurement::cost (the
  /// simulated device time); 0 (default): no sleep.
  double measure_latency = 0;
};

}  // namespace aoe

#endif  // AOE_MEASURE_SIMULATOR_SIMULATOR_OPTIONS_HPP
