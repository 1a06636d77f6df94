// OpenAOE's reference Ascend AI Core simulator (docs/simulator.md): the SoC descriptions, the
// workloads, the simulator runner and the exhaustive oracle. Not part of <aoe.hpp>.
#ifndef AOE_SIMULATOR_HPP
#define AOE_SIMULATOR_HPP

#include "aoe/measure/simulator/knowledge.hpp"
#include "aoe/measure/simulator/noise_model.hpp"
#include "aoe/measure/simulator/oracle.hpp"
#include "aoe/measure/simulator/simulator_options.hpp"
#include "aoe/measure/simulator/simulator_runner.hpp"
#include "aoe/measure/simulator/soc.hpp"
#include "aoe/measure/simulator/workloads.hpp"

#endif  // AOE_SIMULATOR_HPP
