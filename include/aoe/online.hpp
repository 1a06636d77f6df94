// OpenAOE online tuning: tune inside the user's own program while it runs (AOE_MODE=2), use the
// winners when it runs again (docs/online.md). Not in <aoe.hpp>: include it where it is used.
#ifndef AOE_ONLINE_HPP
#define AOE_ONLINE_HPP

#include "aoe/online/online_options.hpp"
#include "aoe/online/online_summary.hpp"
#include "aoe/online/online_tuner.hpp"

#endif  // AOE_ONLINE_HPP
