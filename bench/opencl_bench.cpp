// opencl_bench: our SGEMM tuned through Runner<device::OpenCL> against CLBlast on the same
// device, in one run (issue 19; docs/opencl.md has the figures).
//
//   opencl_bench --replot FILE.json --svg FILE.svg   (draw an earlier run's results)
//   opencl_bench --json FILE [--svg FILE] [--size 256] [--seeds 2] [--max-evaluations 200]
//                [--policies random,annealing,...] [--record 300] [--replay-seeds 30]
//                [--clblast-fraction 0.01 | --clblast-json FILE --clblast-wall-seconds S]
//
// 1. clblast_default: CLBlast's SGEMM with its shipped parameters at --size and 1024: GFLOP/s.
// 2. clblast_tuner: clblast_tuner_xgemm as its users run it (-m -n -k --size, -fraction): the
//    best GFLOP/s in the JSON it writes (clblast_xgemm_1_32.json), the configurations it
//    measured, its wall time; then SGEMM with those parameters (clblast::OverrideParameters).
//    --clblast-json reuses the JSON of a run made before (its wall time given by hand, and the
//    row's "wall_seconds_from" is then "--clblast-wall-seconds", not "measured").
// 3. aoe_gemm: each policy tunes our kernel through the runner, --seeds seeds: best GFLOP/s
//    (event time) at 25, 50, 100, 200 evaluations (mean, min, max over seeds) and wall time.
//    Measurements are shared between runs within this process (a configuration measured once
//    is not measured again); wall_seconds is what the run would have cost alone: the sum of
//    its measurements' costs (build, verification, runs) plus its search time.
// 4. A uniform sample of --record configurations recorded (a Kernel Tuner cache, written next
//    to the JSON) and replayed: each policy's mean fraction of the recorded optimum at 25, 50
//    and 100 evaluations over --replay-seeds seeds, random search's exact expectation beside.
//
// POCL_KERNEL_CACHE=0 is set for this process and the CLBlast tuner, so that no build is
// served from PoCL's on-disk cache (both sides pay every build).
#include "support/gemm_bench.hpp"
#include <aoe/measure/replay/kernel_tuner_writer.hpp>
#include <aoe/measure/replay/load.hpp>
#include <aoe/measure/replay/record.hpp>
#include <aoe/measure/replay/replay_runner.hpp>
#include <aoe/opencl.hpp>
#include <aoe/search/by_name.hpp>
#include <aoe/tuner/stop_conditions.hpp>
#include <aoe/tuner/tuner.hpp>

#include <CLI/CLI.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <clblast.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

using aoe_bench::Clock;
using aoe_bench::Row;
using aoe_bench::since;
using aoe_bench::split;
using SharedMeasurements = aoe_bench::SharedMeasurements<aoe::OpenCLRunner>;

// CLBlast's SGEMM (row-major, C = A B): median GFLOP/s of `runs` after a first call (which
// builds CLBlast's program), timed on the host from the call to the queue's end: the routine
// may run several kernels (padding, transposition, the GEMM) and its event covers only the last.
double clblast_gflops(cl::Context& context, cl::CommandQueue& queue, std::size_t n, int runs,
                      double* first_call_seconds) {
  std::vector<float> host(n * n, 0.5f);
  cl_int err = CL_SUCCESS;
  cl::Buffer a(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * n * 4, host.data(), &err);
  cl::Buffer b(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * n * 4, host.data(), &err);
  cl::Buffer c(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * n * 4, host.data(), &err);
  std::vector<double> seconds;
  for (int r = -1; r < runs; ++r) {
    cl_event event = nullptr;
    cl_command_queue q = queue();
    const auto t0 = Clock::now();
    const auto status = clblast::Gemm<float>(clblast::Layout::kRowMajor, clblast::Transpose::kNo,
                                             clblast::Transpose::kNo, n, n, n, 1.0f, a(), 0, n, b(),
                                             0, n, 0.0f, c(), 0, n, &q, &event);
    if (status != clblast::StatusCode::kSuccess) {
      std::fprintf(stderr, "clblast::Gemm failed: %d\n", static_cast<int>(status));
      return 0;
    }
    clWaitForEvents(1, &event);
    queue.finish();
    if (r < 0) {
      if (first_call_seconds != nullptr) *first_call_seconds = since(t0);
    } else {
      seconds.push_back(since(t0));
    }
    clReleaseEvent(event);
  }
  return 2.0 * static_cast<double>(n * n * n) / aoe::median(seconds) * 1e-9;
}

// CLBlast's SGEMM (shipped parameters) and the best kernel its tuner found, for the plot.
std::vector<aoe_bench::Reference> clblast_references(double clblast_default, double clblast_tuned) {
  return {{clblast_default, "CLBlast SGEMM, default", "4 4"},
          {clblast_tuned, "CLBlast tuner's best", "8 3"}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"opencl_bench: our SGEMM tuned on an OpenCL device against CLBlast"};
  std::string json_path, svg_path, policies_arg = "random,annealing,evolutionary,bayesian,ensemble";
  std::size_t size = 256, seeds = 2, max_evaluations = 200, record_sample = 300, replay_seeds = 30,
              batch = 4;
  double clblast_fraction = 0.01, clblast_wall = 0;
  std::string clblast_json;
  bool skip_clblast_tuner = false, skip_clblast = false;
  app.add_option("--json", json_path, "where to write the results (required to measure)");
  app.add_option("--svg", svg_path, "where to write the plot");
  app.add_option("--size", size, "M = N = K for items 2-4")->check(CLI::Range(64, 4096));
  app.add_option("--seeds", seeds, "live tuning runs per policy")->check(CLI::Range(1, 100));
  app.add_option("--max-evaluations", max_evaluations, "live budget: 25, 50, ... up to this")
      ->check(CLI::Range(25, 1000));
  app.add_option("--policies", policies_arg, "comma-separated search policies");
  app.add_option("--record", record_sample, "configurations recorded for item 4 (0: none)");
  app.add_option("--replay-seeds", replay_seeds, "replayed runs per policy");
  app.add_option("--batch", batch, "configurations per batch (built in parallel)");
  app.add_option("--clblast-fraction", clblast_fraction, "clblast_tuner_xgemm -fraction");
  app.add_option("--clblast-json", clblast_json,
                 "reuse this clblast_xgemm_1_32.json instead of running the tuner");
  app.add_option("--clblast-wall-seconds", clblast_wall, "the reused tuner run's wall time");
  app.add_flag("--skip-clblast-tuner", skip_clblast_tuner, "leave item 2 out");
  app.add_flag("--skip-clblast", skip_clblast, "leave items 1 and 2 out");
  std::string replot;
  app.add_option("--replot", replot,
                 "measure nothing: draw --svg from the results of an earlier --json FILE");
  CLI11_PARSE(app, argc, argv);
  if (!replot.empty()) {
    std::ifstream in(replot);
    std::stringstream text;
    text << in.rdbuf();
    boost::system::error_code ec;
    const auto root = boost::json::parse(text.str(), ec);
    if (ec || !root.is_object() || !root.as_object().contains("results")) {
      std::fprintf(stderr, "opencl_bench: --replot %s: not an opencl_bench JSON file\n",
                   replot.c_str());
      return 2;
    }
    std::vector<Row> rows;
    double default_gflops = 0, tuner_best = 0;
    std::size_t most = 25;
    for (const auto& v : root.at("results").as_array()) {
      const auto& o = v.as_object();
      Row r{std::string(o.at("kernel").as_string()), std::string(o.at("tuner").as_string()),
            static_cast<std::size_t>(o.at("evaluations").to_number<double>()),
            o.at("best_gflops").to_number<double>(), o.at("wall_seconds").to_number<double>()};
      for (const auto& kv : o) r.extra[kv.key()] = kv.value();
      if (r.tuner == "clblast_default" && default_gflops == 0) default_gflops = r.best_gflops;
      if (r.tuner == "clblast_tuner") tuner_best = r.best_gflops;
      if (r.kernel == "aoe_gemm" && !r.extra.contains("fraction_of_optimum")) {
        most = std::max(most, r.evaluations);
      }
      rows.push_back(std::move(r));
    }
    aoe_bench::write_svg(svg_path.empty() ? "opencl_bench.svg" : svg_path, rows,
                         clblast_references(default_gflops, tuner_best), most);
    return 0;
  }
  if (json_path.empty()) {
    std::fprintf(stderr, "opencl_bench: --json FILE is required (or --replot FILE --svg FILE)\n");
    return 2;
  }
  const auto policies = split(policies_arg);

  setenv("POCL_KERNEL_CACHE", "0", 1);  // before the first OpenCL call
  const auto selection = aoe::OpenCLRunner::default_selection();
  const auto device = aoe::opencl::find_device(selection);
  if (!device) {
    std::fprintf(stderr, "opencl_bench: %s\n", device.error().message.c_str());
    return 1;
  }
  const aoe::opencl::DeviceInfo info = aoe::opencl::describe(*device);
  std::fprintf(stderr, "device: %s (%s)\n", info.name.c_str(), info.platform.c_str());
  std::vector<Row> rows;
  const auto n = static_cast<std::int64_t>(size);
  const double flops =
      2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  const auto bench_begin = Clock::now();

  // --- 1. CLBlast with its defaults ---------------------------------------------------------
  cl::Context context(*device);
  cl::CommandQueue queue(context, *device, CL_QUEUE_PROFILING_ENABLE);
  double clblast_default_at_size = 0;
  for (const std::size_t s : {size, std::size_t{1024}}) {
    if (skip_clblast) break;
    double first = 0;
    const auto t0 = Clock::now();
    const double g = clblast_gflops(context, queue, s, 5, &first);
    rows.push_back({"clblast_xgemm",
                    "clblast_default",
                    0,
                    g,
                    since(t0),
                    {{"size", s}, {"first_call_seconds", first}}});
    if (s == size) clblast_default_at_size = g;
    std::fprintf(stderr, "clblast_default %zu^3: %.2f GFLOP/s (first call %.1f s)\n", s, g, first);
    if (s == 1024) break;
  }

  double clblast_tuned = 0;       // item 2, measured last (it may reuse a tuner run still going)
  double clblast_tuner_best = 0;  // its best kernel, GFLOP/s

  // --- 3. Our kernel, each policy, live -------------------------------------------------------
  const auto problem = aoe::opencl::gemm_problem(n, n, n);
  const aoe::Space space = aoe::opencl::gemm_space(n, n, n, info);
  auto runner =
      aoe::OpenCLRunner::open(aoe::opencl::gemm_kernel(problem), {.repetitions = 3}, selection);
  if (!runner) {
    std::fprintf(stderr, "opencl_bench: %s\n", runner.error().message.c_str());
    return 1;
  }
  std::map<aoe::Configuration, aoe::Measurement> shared;
  const aoe_bench::RunSettings settings{.policies = policies,
                                        .seeds = seeds,
                                        .max_evaluations = max_evaluations,
                                        .batch = batch,
                                        .replay_seeds = replay_seeds,
                                        .size = static_cast<std::int64_t>(size),
                                        .flops = flops};
  if (!aoe_bench::live_rows(settings, space, SharedMeasurements(&*runner, &shared), rows)) {
    return 2;
  }

  // --- 4. Recorded and replayed ---------------------------------------------------------------
  if (record_sample > 0) {
    const auto configurations =
        aoe::replay::configurations_to_record(space, {.sample = record_sample, .seed = 7});
    // Shared measurements first: those measured in item 3 are not measured again.
    SharedMeasurements measure(&*runner, &shared);
    const auto cache_path = (std::filesystem::path(json_path).parent_path() /
                             ("aoe_gemm_" + std::to_string(size) + "_cache.json"))
                                .string();
    if (!aoe_bench::replay_rows(settings, space, configurations, measure,
                                {.batch = batch,
                                 .name = "aoe_gemm_" + std::to_string(size),
                                 .device = info.name,
                                 .kernel = "aoe_gemm"},
                                cache_path, rows)) {
      return 1;
    }
  }

  // --- 2. CLBlast's own tuner -------------------------------------------------------------------
  if (!skip_clblast_tuner && !skip_clblast) {
    double wall = clblast_wall;
    std::string json_file = clblast_json;
    // Where wall_seconds came from: this run timed the tuner, or --clblast-wall-seconds gave it.
    std::string wall_from = "--clblast-wall-seconds";
    if (json_file.empty()) {
      const auto dir = std::filesystem::path(json_path).parent_path() / "clblast_tuner";
      std::filesystem::create_directories(dir);
      const std::string command = "cd '" + dir.string() + "' && clblast_tuner_xgemm -m " +
                                  std::to_string(size) + " -n " + std::to_string(size) + " -k " +
                                  std::to_string(size) + " -fraction " +
                                  std::to_string(clblast_fraction) + " > tuner.log 2>&1";
      std::fprintf(stderr, "running: %s\n", command.c_str());
      const auto t0 = Clock::now();
      const int rc = std::system(command.c_str());
      wall = since(t0);
      wall_from = "measured";
      if (rc != 0) std::fprintf(stderr, "clblast_tuner_xgemm exited with %d\n", rc);
      json_file = (dir / "clblast_xgemm_1_32.json").string();
    }
    std::ifstream in(json_file);
    std::stringstream text;
    text << in.rdbuf();
    boost::system::error_code ec;
    const auto root = boost::json::parse(text.str(), ec);
    if (ec || !root.is_object() || !root.as_object().contains("results")) {
      std::fprintf(stderr, "%s: not a CLBlast tuner JSON file\n", json_file.c_str());
      return 1;
    }
    const auto& results = root.at("results").as_array();
    const boost::json::object* best = nullptr;
    for (const auto& r : results) {
      if (best == nullptr ||
          r.at("time").to_number<double>() < best->at("time").to_number<double>()) {
        best = &r.as_object();
      }
    }
    if (best == nullptr) {
      std::fprintf(stderr, "%s: no results\n", json_file.c_str());
      return 1;
    }
    // CLBlast's tuner reports milliseconds per kernel run.
    const double tuner_gflops = flops / (best->at("time").to_number<double>() * 1e-3) * 1e-9;
    std::unordered_map<std::string, std::size_t> parameters;
    for (const auto& kv : best->at("parameters").as_object()) {
      parameters[std::string(kv.key())] = static_cast<std::size_t>(kv.value().to_number<double>());
    }
    const auto status =
        clblast::OverrideParameters((*device)(), "Xgemm", clblast::Precision::kSingle, parameters);
    double first = 0;
    clblast_tuner_best = tuner_gflops;
    clblast_tuned = status == clblast::StatusCode::kSuccess
                        ? clblast_gflops(context, queue, size, 5, &first)
                        : 0;
    rows.push_back({"clblast_xgemm",
                    "clblast_tuner",
                    results.size(),
                    tuner_gflops,
                    wall,
                    {{"size", size},
                     {"sgemm_gflops_with_tuned_parameters", clblast_tuned},
                     {"first_call_seconds", first},
                     {"json", json_file},
                     {"wall_seconds_from", wall_from}}});
    std::fprintf(stderr,
                 "clblast_tuner: %zu configurations, best kernel %.2f GFLOP/s, %.0f s; "
                 "SGEMM with them %.2f GFLOP/s\n",
                 results.size(), tuner_gflops, wall, clblast_tuned);
  }

  boost::json::array results;
  for (const auto& r : rows) results.push_back(to_json(r));
  const boost::json::object root{{"device", info.name},
                                 {"platform", info.platform},
                                 {"bench_seconds", since(bench_begin)},
                                 {"results", std::move(results)}};
  std::ofstream(json_path) << boost::json::serialize(root) << "\n";
  if (!svg_path.empty())
    aoe_bench::write_svg(svg_path, rows,
                         clblast_references(clblast_default_at_size, clblast_tuner_best),
                         max_evaluations);
  std::fprintf(stderr, "done in %.0f s\n", since(bench_begin));
  return 0;
}
