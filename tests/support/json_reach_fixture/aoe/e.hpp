#pragma once
#if defined(AOE_WITH_SOMETHING)
#include "aoe/a.hpp"
#endif
#include <boost/json/serialize.hpp>
