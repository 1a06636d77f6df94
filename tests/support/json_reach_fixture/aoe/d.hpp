#ifndef AOE_D_HPP
#define AOE_D_HPP
#include "aoe/c.hpp"
#endif
