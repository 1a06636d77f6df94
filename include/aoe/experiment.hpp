// OpenAOE's experiment as a library (docs/research.md#your-own-policy): recorded spaces and
// simulator operators as inputs, our policies by name and a user's own beside them, seeded
// repetitions, fractions of the optimum with bootstrap intervals, the methodology score, and
// the JSON, table and plot that `aoe-bench` prints, and the files autotuning-methodology reads.
// Not part of <aoe.hpp>.
#ifndef AOE_EXPERIMENT_HPP
#define AOE_EXPERIMENT_HPP

#include "aoe/experiment/json.hpp"
#include "aoe/experiment/methodology_files.hpp"
#include "aoe/experiment/problem.hpp"
#include "aoe/experiment/results.hpp"
#include "aoe/experiment/run.hpp"
#include "aoe/experiment/settings.hpp"
#include "aoe/experiment/simulator_problems.hpp"
#include "aoe/experiment/strategy.hpp"
#include "aoe/experiment/svg.hpp"
#include "aoe/experiment/table.hpp"

#endif  // AOE_EXPERIMENT_HPP
