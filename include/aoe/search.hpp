// Every search policy of OpenAOE (docs/search.md), by type and by name: grid, random, annealing,
// evolutionary, Bayesian optimisation (its Gaussian processes, kernels, acquisitions and
// feasibility model: Eigen), the ensemble, phases, the prescreen, AnySearch, and make_search /
// search_names (by_name.hpp; with the XGBoost policies in a build with aoe::xgboost). Not part of
// <aoe.hpp>, which keeps the policies without a surrogate model so that a host user's translation
// unit does not parse Eigen (docs/getting_started.md#which-header).
#ifndef AOE_SEARCH_HPP
#define AOE_SEARCH_HPP

#include "aoe/search/any_search.hpp"
#include "aoe/search/bayesian/acquisition.hpp"
#include "aoe/search/bayesian/bayesian.hpp"
#include "aoe/search/bayesian/feasibility.hpp"
#include "aoe/search/bayesian/gaussian_process.hpp"
#include "aoe/search/bayesian/matern52.hpp"
#include "aoe/search/bayesian/squared_exponential.hpp"
#include "aoe/search/by_name.hpp"
#include "aoe/search/cooling.hpp"
#include "aoe/search/ensemble.hpp"
#include "aoe/search/evolutionary.hpp"
#include "aoe/search/grid_search.hpp"
#include "aoe/search/phases.hpp"
#include "aoe/search/prescreen.hpp"
#include "aoe/search/random_search.hpp"
#include "aoe/search/search_names.hpp"
#include "aoe/search/simulated_annealing.hpp"
#include "aoe/search/transfer_data.hpp"

#endif  // AOE_SEARCH_HPP
