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
//    --clblast-json reuses the JSON of a run made before (its wall time given by hand).
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
#include <aoe/core/stop_conditions.hpp>
#include <aoe/core/tuner.hpp>
#include <aoe/measure/replay/kernel_tuner_writer.hpp>
#include <aoe/measure/replay/load.hpp>
#include <aoe/measure/replay/record.hpp>
#include <aoe/measure/replay/replay_runner.hpp>
#include <aoe/opencl.hpp>
#include <aoe/search/by_name.hpp>

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

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Measurements shared between the runs of this process (see item 3 above). Reports device time
// so that the tuner charges each trial the cost of its original measurement.
class SharedMeasurements {
 public:
  static constexpr bool reports_device_time = true;
  SharedMeasurements(aoe::OpenCLRunner* runner,
                     std::map<aoe::Configuration, aoe::Measurement>* cache)
      : runner_(runner), cache_(cache) {}
  std::vector<aoe::Measurement> measure(aoe::SpaceView view,
                                        std::span<const aoe::Configuration> batch) {
    std::vector<aoe::Configuration> todo;
    for (const auto& c : batch) {
      if (!cache_->contains(c) && std::find(todo.begin(), todo.end(), c) == todo.end()) {
        todo.push_back(c);
      }
    }
    if (!todo.empty()) {
      const auto m = runner_->measure(view, todo);
      for (std::size_t i = 0; i < todo.size(); ++i) {
        cache_->emplace(todo[i], m[i]);
        timing_[todo[i]] = runner_->timings()[i];
      }
    }
    std::vector<aoe::Measurement> out;
    timings_.clear();
    for (const auto& c : batch) {
      out.push_back(cache_->at(c));
      timings_.push_back(timing_[c]);
    }
    return out;
  }
  /// Where the time of each configuration of the last batch went (for the recording).
  [[nodiscard]] const std::vector<aoe::opencl::Timing>& timings() const { return timings_; }

 private:
  aoe::OpenCLRunner* runner_;
  std::map<aoe::Configuration, aoe::Measurement>* cache_;
  std::map<aoe::Configuration, aoe::opencl::Timing> timing_;
  std::vector<aoe::opencl::Timing> timings_;
};

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

struct Row {
  std::string kernel, tuner;
  std::size_t evaluations = 0;
  double best_gflops = 0, wall_seconds = 0;
  boost::json::object extra{};
};

boost::json::object to_json(const Row& r) {
  boost::json::object o{{"kernel", r.kernel},
                        {"tuner", r.tuner},
                        {"evaluations", r.evaluations},
                        {"best_gflops", r.best_gflops},
                        {"wall_seconds", r.wall_seconds}};
  for (const auto& kv : r.extra) o[kv.key()] = kv.value();
  return o;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// Best GFLOP/s against evaluations, one line per policy (live runs), with CLBlast's SGEMM
// (shipped parameters) and the best kernel its tuner found as horizontal lines (SVG).
void write_svg(const std::string& path, const std::vector<Row>& rows, double clblast_default,
               double clblast_tuned, std::size_t max_evaluations) {
  double top = std::max(clblast_default, clblast_tuned);
  for (const auto& r : rows) top = std::max(top, r.best_gflops);
  top = std::ceil(top / 10 + 0.5) * 10;
  const double w = 720, h = 420, left = 60, right = 170, bottom = 50, upper = 20;
  const auto x = [&](double e) {
    return left + (w - left - right) * std::log2(e / 25.0) / std::log2(max_evaluations / 25.0);
  };
  const auto y = [&](double g) { return h - bottom - (h - bottom - upper) * g / top; };
  std::ofstream out(path);
  out << "<svg xmlns='http://www.w3.org/2000/svg' width='" << w << "' height='" << h
      << "' font-family='sans-serif' font-size='12'>\n<rect width='100%' height='100%' "
         "fill='white'/>\n";
  out << "<text x='" << left << "' y='14'>best GFLOP/s (mean over seeds) against evaluations"
      << "</text>\n";
  for (double g = 0; g <= top; g += top / 5) {
    out << "<line x1='" << left << "' x2='" << w - right << "' y1='" << y(g) << "' y2='" << y(g)
        << "' stroke='#ddd'/><text x='" << left - 8 << "' y='" << y(g) + 4 << "' text-anchor='end'>"
        << static_cast<int>(g) << "</text>\n";
  }
  for (std::size_t e = 25; e <= max_evaluations; e *= 2) {
    out << "<text x='" << x(static_cast<double>(e)) << "' y='" << h - bottom + 16
        << "' text-anchor='middle'>" << e << "</text>\n";
  }
  const char* colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"};
  std::map<std::string, std::vector<const Row*>> lines;
  for (const auto& r : rows) {
    if (r.kernel == "aoe_gemm" && !r.extra.contains("fraction_of_optimum")) {
      lines[r.tuner].push_back(&r);
    }
  }
  std::size_t i = 0;
  for (const auto& [name, points] : lines) {
    const char* colour = colours[i % 6];
    out << "<polyline fill='none' stroke='" << colour << "' stroke-width='2' points='";
    for (const Row* p : points) {
      out << x(static_cast<double>(p->evaluations)) << "," << y(p->best_gflops) << " ";
    }
    out << "'/>\n<text x='" << w - right + 8 << "' y='" << upper + 16 * (i + 1) << "' fill='"
        << colour << "'>" << name << "</text>\n";
    ++i;
  }
  const auto hline = [&](double g, const char* label, const char* dash) {
    out << "<line x1='" << left << "' x2='" << w - right << "' y1='" << y(g) << "' y2='" << y(g)
        << "' stroke='black' stroke-dasharray='" << dash << "'/><text x='" << w - right + 8
        << "' y='" << y(g) + 4 << "'>" << label << "</text>\n";
  };
  if (clblast_default > 0) hline(clblast_default, "CLBlast SGEMM, default", "4 4");
  if (clblast_tuned > 0) hline(clblast_tuned, "CLBlast tuner's best", "8 3");
  out << "<text x='" << (w - right + left) / 2 << "' y='" << h - 12
      << "' text-anchor='middle'>evaluations</text>\n</svg>\n";
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
    write_svg(svg_path.empty() ? "opencl_bench.svg" : svg_path, rows, default_gflops, tuner_best,
              most);
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
  std::vector<std::size_t> checkpoints;
  for (std::size_t e = 25; e <= max_evaluations; e *= 2) checkpoints.push_back(e);
  for (const auto& policy : policies) {
    std::map<std::size_t, std::vector<double>> best_at, wall_at;
    for (std::size_t seed = 1; seed <= seeds; ++seed) {
      auto search = aoe::make_search(policy);
      if (!search) {
        std::fprintf(stderr, "opencl_bench: %s\n", search.error().message.c_str());
        return 2;
      }
      aoe::Tuner<aoe::AnySearch, SharedMeasurements> tuner(
          std::move(*search), SharedMeasurements(&*runner, &shared),
          aoe::TunerOptions{.seed = seed, .batch_size = batch});
      const auto result = tuner.tune(space, aoe::MaxEvaluations{max_evaluations});
      double best = std::numeric_limits<double>::infinity();
      std::size_t next = 0;
      for (const auto& t : result.history) {
        if (t.measurement.ok()) best = std::min(best, t.measurement.value);
        while (next < checkpoints.size() && t.evaluation == checkpoints[next]) {
          best_at[checkpoints[next]].push_back(std::isfinite(best) ? flops / best * 1e-9 : 0);
          wall_at[checkpoints[next]].push_back(t.finished);
          ++next;
        }
      }
      std::fprintf(stderr,
                   "%s seed %zu: %zu evaluations, best %.2f GFLOP/s (%zu measured so far, "
                   "%.0f s)\n",
                   policy.c_str(), seed, result.history.size(),
                   std::isfinite(best) ? flops / best * 1e-9 : 0.0, shared.size(),
                   since(bench_begin));
    }
    for (const auto e : checkpoints) {
      const auto& g = best_at[e];
      if (g.empty()) continue;
      rows.push_back({"aoe_gemm",
                      policy,
                      e,
                      aoe::mean(g),
                      aoe::mean(wall_at[e]),
                      {{"size", size},
                       {"seeds", g.size()},
                       {"best_gflops_min", *std::min_element(g.begin(), g.end())},
                       {"best_gflops_max", *std::max_element(g.begin(), g.end())},
                       {"best_gflops_stddev", aoe::stddev(g)}}});
    }
  }

  // --- 4. Recorded and replayed ---------------------------------------------------------------
  if (record_sample > 0) {
    const auto configurations =
        aoe::replay::configurations_to_record(space, {.sample = record_sample, .seed = 7});
    // Shared measurements first: those measured in item 3 are not measured again.
    SharedMeasurements measure(&*runner, &shared);
    const auto t0 = Clock::now();
    const auto recording = std::make_shared<aoe::replay::Recording>(
        aoe::replay::record(measure, space, configurations,
                            {.batch = batch,
                             .name = "aoe_gemm_" + std::to_string(size),
                             .device = info.name,
                             .kernel = "aoe_gemm"}));
    const auto cache_path = (std::filesystem::path(json_path).parent_path() /
                             ("aoe_gemm_" + std::to_string(size) + "_cache.json"))
                                .string();
    (void)aoe::replay::write_kernel_tuner_cache(*recording, cache_path);
    auto loaded = aoe::replay::load(cache_path);  // what a researcher replays offline
    if (!loaded) {
      std::fprintf(stderr, "opencl_bench: %s\n", loaded.error().message.c_str());
      return 1;
    }
    const auto replayed = std::make_shared<const aoe::replay::Recording>(std::move(*loaded));
    const double optimum = replayed->optimum();
    std::fprintf(stderr,
                 "recorded %zu configurations (%zu valid) in %.0f s: optimum %.2f "
                 "GFLOP/s -> %s\n",
                 replayed->configurations(), replayed->valid_configurations(), since(t0),
                 flops / optimum * 1e-9, cache_path.c_str());
    const std::vector<std::size_t> budgets{25, 50, 100};
    for (const auto& policy : policies) {
      std::map<std::size_t, std::vector<double>> fraction;
      std::vector<double> to_098;
      for (std::size_t seed = 1; seed <= replay_seeds; ++seed) {
        aoe::Tuner<aoe::AnySearch, aoe::ReplayRunner> tuner(
            aoe::make_search(policy).value(), aoe::ReplayRunner(replayed),
            aoe::TunerOptions{.seed = seed, .batch_size = batch});
        const auto result =
            tuner.tune(replayed->space(), aoe::MaxEvaluations{replayed->configurations()});
        double best = std::numeric_limits<double>::infinity();
        std::size_t reached = 0;
        for (const auto& t : result.history) {
          if (t.measurement.ok()) best = std::min(best, t.measurement.value);
          for (const auto b : budgets) {
            if (t.evaluation == b) fraction[b].push_back(optimum / best);
          }
          if (reached == 0 && optimum / best >= 0.98) reached = t.evaluation;
        }
        to_098.push_back(static_cast<double>(reached == 0 ? result.history.size() : reached));
      }
      for (const auto b : budgets) {
        if (fraction[b].empty()) continue;
        rows.push_back({"aoe_gemm",
                        policy,
                        b,
                        flops / optimum * 1e-9 * aoe::mean(fraction[b]),
                        0,
                        {{"size", size},
                         {"replayed", true},
                         {"fraction_of_optimum", aoe::mean(fraction[b])},
                         {"replay_seeds", replay_seeds},
                         {"mean_evaluations_to_0.98", aoe::mean(to_098)}}});
      }
    }
    std::size_t random_to_098 = replayed->configurations();
    for (std::size_t k = 1; k <= replayed->configurations(); ++k) {
      if (replayed->expected_random_fraction(k) >= 0.98) {
        random_to_098 = k;
        break;
      }
    }
    for (const auto b : budgets) {
      Row r{"aoe_gemm", "random_expected", b, flops / replayed->expected_random_best(b) * 1e-9, 0};
      r.extra["size"] = size;
      r.extra["replayed"] = true;
      r.extra["fraction_of_optimum"] = replayed->expected_random_fraction(b);
      r.extra["evaluations_to_0.98"] = random_to_098;
      r.extra["recorded_configurations"] = replayed->configurations();
      r.extra["recorded_optimum_gflops"] = flops / optimum * 1e-9;
      rows.push_back(std::move(r));
    }
  }

  // --- 2. CLBlast's own tuner -------------------------------------------------------------------
  if (!skip_clblast_tuner && !skip_clblast) {
    double wall = clblast_wall;
    std::string json_file = clblast_json;
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
                     {"json", json_file}}});
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
    write_svg(svg_path, rows, clblast_default_at_size, clblast_tuner_best, max_evaluations);
  std::fprintf(stderr, "done in %.0f s\n", since(bench_begin));
  return 0;
}
