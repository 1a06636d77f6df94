#ifndef AOE_B_HPP
#define AOE_B_HPP
#include "aoe/d.hpp"
#include "aoe/a.hpp"
#endif
