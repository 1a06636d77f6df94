// OpenAOE for a host user (docs/getting_started.md#which-header): the core (Tuner, concepts, stop
// conditions), spaces, the search policies without a surrogate model (grid, random, annealing,
// evolutionary) and AnySearch, the host runner, the memory repository, export and observers.
// Included on their own: <aoe/search.hpp> (every search policy, Bayesian optimisation and the
// ensemble with Eigen, and make_search by name), <aoe/sqlite.hpp> (the tuning database, target
// aoe::sqlite), <aoe/simulator.hpp>, <aoe/replay.hpp>, <aoe/jobs.hpp>, and the Ascend runner
// (aoe/measure/ascend/, needs the CANN toolkit).
#ifndef AOE_HPP
#define AOE_HPP

#include "aoe/core/assert.hpp"
#include "aoe/core/error.hpp"
#include "aoe/core/random.hpp"
#include "aoe/export/history.hpp"
#include "aoe/export/trial_table.hpp"
#include "aoe/measure/host_runner.hpp"
#include "aoe/measure/runner.hpp"
#include "aoe/measure/statistics.hpp"
#include "aoe/observe/csv_writer.hpp"
#include "aoe/observe/progress.hpp"
#include "aoe/search/any_search.hpp"
#include "aoe/search/cooling.hpp"
#include "aoe/search/evolutionary.hpp"
#include "aoe/search/grid_search.hpp"
#include "aoe/search/random_search.hpp"
#include "aoe/search/search_names.hpp"
#include "aoe/search/simulated_annealing.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/constraint.hpp"
#include "aoe/space/fingerprint.hpp"
#include "aoe/space/parameter.hpp"
#include "aoe/space/space.hpp"
#include "aoe/space/typed_space.hpp"
#include "aoe/space/value.hpp"
#include "aoe/tuner/concepts.hpp"
#include "aoe/tuner/memory_repository.hpp"
#include "aoe/tuner/stop_conditions.hpp"
#include "aoe/tuner/tuner.hpp"
#include "aoe/tuner/tuning_result.hpp"
#include "aoe/version.hpp"
#include "aoe/vocab/measurement.hpp"
#include "aoe/vocab/record.hpp"
#include "aoe/vocab/run_log.hpp"
#include "aoe/vocab/status.hpp"
#include "aoe/vocab/trial.hpp"

#endif  // AOE_HPP
