// OpenAOE's replay of recorded tuning spaces (docs/research.md): the recordings, their loaders,
// the replay runner and the methodology score. Not part of <aoe.hpp>.
#ifndef AOE_REPLAY_HPP
#define AOE_REPLAY_HPP

#include "aoe/measure/replay/kernel_tuner_cache.hpp"
#include "aoe/measure/replay/load.hpp"
#include "aoe/measure/replay/methodology.hpp"
#include "aoe/measure/replay/random_baseline.hpp"
#include "aoe/measure/replay/recording.hpp"
#include "aoe/measure/replay/replay_runner.hpp"
#include "aoe/measure/replay/t4_results.hpp"

#endif  // AOE_REPLAY_HPP
