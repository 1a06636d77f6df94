#ifndef AOE_A_HPP
#define AOE_A_HPP
#include <boost/json/value.hpp>
#endif
