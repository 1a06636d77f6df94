// OpenAOE's AOE jobs (docs/cli.md): operator tuning (OPAT), subgraph tuning (SGAT) and
// gradient split tuning (GDAT) on the simulator, with their reports and knowledge banks. What
// the `aoe` command runs; not part of <aoe.hpp>.
#ifndef AOE_JOBS_HPP
#define AOE_JOBS_HPP

#include "aoe/jobs/chosen_knowledge.hpp"
#include "aoe/jobs/gdat/allreduce_cost.hpp"
#include "aoe/jobs/gdat/backward_derivation.hpp"
#include "aoe/jobs/gdat/cluster.hpp"
#include "aoe/jobs/gdat/cluster_loader.hpp"
#include "aoe/jobs/gdat/gdat_job.hpp"
#include "aoe/jobs/gdat/gdat_report.hpp"
#include "aoe/jobs/gdat/gradient_fusion_bank.hpp"
#include "aoe/jobs/gdat/gradient_profile.hpp"
#include "aoe/jobs/gdat/iteration_model.hpp"
#include "aoe/jobs/gdat/optimal_split.hpp"
#include "aoe/jobs/gdat/profile_loader.hpp"
#include "aoe/jobs/gdat/split_measure.hpp"
#include "aoe/jobs/gdat/split_space.hpp"
#include "aoe/jobs/gdat/split_strategy.hpp"
#include "aoe/jobs/opat/opat_job.hpp"
#include "aoe/jobs/opat/opat_report.hpp"
#include "aoe/jobs/parallel_measure.hpp"
#include "aoe/jobs/sgat/graph_bank.hpp"
#include "aoe/jobs/sgat/sgat_job.hpp"
#include "aoe/jobs/sgat/sgat_report.hpp"
#include "aoe/jobs/sgat/subgraph_key.hpp"
#include "aoe/jobs/sgat/subgraph_scorer.hpp"
#include "aoe/jobs/sgat/subgraph_space.hpp"
#include "aoe/jobs/sgat/subgraph_split.hpp"
#include "aoe/jobs/simulator_backend.hpp"
#include "aoe/jobs/tuned_model_writer.hpp"

#endif  // AOE_JOBS_HPP
