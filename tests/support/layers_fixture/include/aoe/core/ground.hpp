// A header of the ground floor that includes the tuner floor: scripts/check_layers.py must
// report it (ctest layers.checker_finds_an_arrow_up).
#include "aoe/tuner/upstairs.hpp"
