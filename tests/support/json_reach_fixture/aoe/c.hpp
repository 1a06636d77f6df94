#ifndef AOE_C_HPP
#define AOE_C_HPP
#ifdef AOE_WITH_SOMETHING
#include <boost/json/value.hpp>
#endif
#include <boost/json/fwd.hpp>
#endif
