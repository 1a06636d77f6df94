// opencl_bench: our SGEMM tuned through Runner<device::OpenCL> against CLBlast on the same
// device, in one run, measured so that a machine whose speed drifts cannot decide the
// comparison (issues 19 and 38; docs/opencl.md has the figures).
//
//   opencl_bench --replot FILE.json --svg FILE.svg   (draw an earlier run's results)
//   opencl_bench --json FILE [--svg FILE] [--size 256] [--seeds 2] [--max-evaluations 100]
//                [--policies annealing,evolutionary,...] [--rounds 15] [--runs 10] [--keep 3]
//                [--record 0] [--replay-seeds 30]
//                [--clblast-json FILE --clblast-wall-seconds S | --skip-clblast-tuner]
//
// 1. clblast_default: CLBlast's SGEMM routine as users call it (row-major, the parameters it
//    ships) at --size and 1024: GFLOP/s by host time (first call aside).
// 2. aoe_gemm: each policy tunes our kernel through the runner, --seeds runs: best GFLOP/s as
//    the search measured it at 25, 50, 100 ... evaluations (mean, min, max over seeds) and wall
//    time. Measurements are shared between the runs of this process (a configuration measured
//    once is not measured again); wall_seconds is what the run would have cost alone. Each
//    run keeps its --keep best configurations for item 5.
// 3. (--record N) N configurations sampled uniformly, recorded as a Kernel Tuner cache next to
//    the JSON and replayed: each policy's mean fraction of the recorded optimum.
// 4. clblast_tuner: clblast_tuner_xgemm -m -n -k --size as its users run it, stopped once it
//    has written the JSON of its fixed set (clblast_xgemm_1_32.json; its random phases sample
//    millions of configurations): the configurations it measured, its wall time, its --keep
//    best configurations. --clblast-json reuses a run made before (wall time given by hand).
// 5. Interleaved: every candidate compared — each run's kept configurations, the tuner's kept
//    configurations (its Xgemm kernel alone, through clblast::OverrideParameters), Xgemm with
//    the parameters CLBlast ships, and the SGEMM routine as shipped — measured in --rounds
//    rounds, each round every candidate once in a shuffled order (--runs timed runs, median).
//    A run (and the tuner) declares best the kept configuration with the lowest median over
//    the rounds; its row gives that median with a 95 % bootstrap interval and its ratio to the
//    tuner's declared best, paired by round (the drift cancels within a round).
// The machine's state (load, CPU model, clock) is recorded at the start and at the end.
//
// POCL_KERNEL_CACHE=0 is set for this process and the CLBlast tuner, so that no build is
// served from PoCL's on-disk cache (both sides pay every build).
#include "support/clblast_gemm.hpp"
#include "support/gemm_bench.hpp"
#include "support/interleaved.hpp"
#include "support/machine_state.hpp"
#include <aoe/opencl.hpp>

#include <CLI/CLI.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using aoe_bench::Clock;
using aoe_bench::Row;
using aoe_bench::since;
using aoe_bench::split;
using SharedMeasurements = aoe_bench::SharedMeasurements<aoe::OpenCLRunner>;

struct Settings {
  std::string json_path, svg_path, policies = "annealing,evolutionary,bayesian,ensemble";
  std::size_t size = 256, seeds = 2, max_evaluations = 100, record_sample = 0, replay_seeds = 30,
              batch = 4, rounds = 15, runs = 10, keep = 3;
  double clblast_wall = 0;
  std::string clblast_json, replot;
  bool skip_clblast_tuner = false, skip_clblast = false;
};

double gflops(double flops, double seconds) {
  return std::isfinite(seconds) && seconds > 0 ? flops / seconds * 1e-9 : 0;
}

// CLBlast's SGEMM (shipped parameters) and the best kernel its tuner found, for the plot: as
// each side measured them while tuning (the searches' curves likewise); the interleaved
// figures are in the JSON.
std::vector<aoe_bench::Reference> clblast_references(double clblast_default, double clblast_tuned) {
  return {{clblast_default, "CLBlast SGEMM, default", "4 4"},
          {clblast_tuned, "CLBlast tuner's own best", "8 3"}};
}

int replot(const Settings& s) {
  const auto root = aoe_bench::read_results_json(s.replot);
  if (!root) {
    std::fprintf(stderr, "opencl_bench: --replot %s: not an opencl_bench JSON file\n",
                 s.replot.c_str());
    return 2;
  }
  std::vector<Row> rows;
  double default_gflops = 0, tuner_best = 0;
  std::size_t most = 25;
  for (const auto& v : root->at("results").as_array()) {
    const auto& o = v.as_object();
    Row r{std::string(o.at("kernel").as_string()), std::string(o.at("tuner").as_string()),
          static_cast<std::size_t>(o.at("evaluations").to_number<double>()),
          o.at("best_gflops").to_number<double>(), o.at("wall_seconds").to_number<double>()};
    for (const auto& kv : o) r.extra[kv.key()] = kv.value();
    if (r.extra.contains("interleaved")) continue;  // the plot is of what each side measured
    if (r.tuner == "clblast_default" && default_gflops == 0) default_gflops = r.best_gflops;
    if (r.tuner == "clblast_tuner") tuner_best = r.best_gflops;
    if (r.kernel == "aoe_gemm" && !r.extra.contains("fraction_of_optimum")) {
      most = std::max(most, r.evaluations);
    }
    rows.push_back(std::move(r));
  }
  aoe_bench::write_svg(s.svg_path.empty() ? "opencl_bench.svg" : s.svg_path, rows,
                       clblast_references(default_gflops, tuner_best), most);
  return 0;
}

// Item 1: the SGEMM routine as shipped, at the size and at 1024.
void clblast_default_rows(const cl::Device& device, const Settings& s, std::vector<Row>& rows) {
  for (const std::size_t n : {s.size, std::size_t{1024}}) {
    aoe_bench::ClblastGemm clblast(device, n);
    const auto t0 = Clock::now();
    const auto first = clblast.routine_seconds(0);  // builds the program
    const double first_call = since(t0);
    const auto seconds = first ? clblast.routine_seconds(5) : std::nullopt;
    if (!seconds) {
      std::fprintf(stderr, "clblast_default %zu^3: %s\n", n, clblast.error().c_str());
      return;
    }
    const double flops = 2.0 * static_cast<double>(n * n * n);
    rows.push_back({"clblast_xgemm",
                    "clblast_default",
                    0,
                    gflops(flops, *seconds),
                    since(t0),
                    {{"size", n}, {"first_call_seconds", first_call}}});
    std::fprintf(stderr, "clblast_default %zu^3: %.2f GFLOP/s (first call %.1f s)\n", n,
                 gflops(flops, *seconds), first_call);
    if (n == 1024) break;
  }
}

// Item 4: the tuner's run (or the one given), as a row; nullopt after printing why not.
std::optional<aoe_bench::ClblastTunerRun> clblast_tuner(const Settings& s, double flops,
                                                        std::vector<Row>& rows) {
  aoe_bench::ClblastTunerRun run;
  std::string wall_from = "measured";
  if (s.clblast_json.empty()) {
    const auto dir = std::filesystem::path(s.json_path).parent_path() / "clblast_tuner";
    std::fprintf(stderr, "running clblast_tuner_xgemm -m %zu -n %zu -k %zu in %s\n", s.size, s.size,
                 s.size, dir.c_str());
    run = aoe_bench::run_clblast_tuner(dir, s.size, s.keep);
  } else {
    run = aoe_bench::read_clblast_tuner_json(s.clblast_json, s.keep);
    run.wall_seconds = s.clblast_wall;
    wall_from = "--clblast-wall-seconds";
  }
  if (!run.error.empty()) {
    std::fprintf(stderr, "opencl_bench: %s\n", run.error.c_str());
    return std::nullopt;
  }
  rows.push_back({"clblast_xgemm",
                  "clblast_tuner",
                  run.configurations,
                  gflops(flops, run.seconds.front()),
                  run.wall_seconds,
                  {{"size", s.size},
                   {"json", run.json},
                   {"wall_seconds_from", wall_from},
                   {"configuration", aoe_bench::to_string(run.top.front())}}});
  std::fprintf(stderr, "clblast_tuner: %zu configurations, best kernel %.2f GFLOP/s, %.0f s\n",
               run.configurations, gflops(flops, run.seconds.front()), run.wall_seconds);
  return run;
}

// One candidate's interleaved figures: GFLOP/s (median over the rounds, interval) and, when
// the tuner was measured, the ratio of its speed to the tuner's declared best, paired by round.
boost::json::object interleaved_figures(const aoe_bench::Interleaved& m, std::size_t i,
                                        std::optional<std::size_t> tuner, double flops,
                                        const std::string& configuration) {
  const auto seconds = aoe_bench::median_interval(m.seconds[i]);
  boost::json::object o{{"interleaved", true},
                        {"rounds", m.seconds[i].size()},
                        {"configuration", configuration},
                        {"ci_low", gflops(flops, seconds.high)},
                        {"ci_high", gflops(flops, seconds.low)}};
  boost::json::array per_round;  // in round order (0: failed)
  for (const double t : m.seconds[i]) per_round.push_back(gflops(flops, t));
  o["round_gflops"] = std::move(per_round);
  if (tuner) {
    const auto ratio = aoe_bench::median_interval(aoe_bench::paired(
        m.seconds[*tuner], m.seconds[i], [](double t, double x) { return t / x; }));
    o["ratio_to_clblast_tuner"] = ratio.median;
    o["ratio_ci_low"] = ratio.low;
    o["ratio_ci_high"] = ratio.high;
  }
  return o;
}

// The index among `indices` with the lowest median over the rounds.
std::size_t declared_best(const aoe_bench::Interleaved& m,
                          const std::vector<std::size_t>& indices) {
  std::size_t best = indices.front();
  double lowest = std::numeric_limits<double>::infinity();
  for (const std::size_t i : indices) {
    const double median = aoe_bench::median_interval(m.seconds[i]).median;
    if (median < lowest) {
      lowest = median;
      best = i;
    }
  }
  return best;
}

// Item 5's candidates: what measures each, and which are whose.
struct Interleaving {
  std::vector<aoe_bench::Contender> contenders;
  std::map<aoe::Configuration, std::size_t> ours;  // configuration -> contender
  std::vector<std::size_t> tuner;                  // the tuner's kept configurations
  std::size_t shipped_xgemm = 0, routine = 0;
};

Interleaving candidates(const Settings& s, const aoe::Space& space, aoe::OpenCLRunner& runner,
                        aoe_bench::ClblastGemm& clblast,
                        const std::vector<aoe_bench::RunIncumbents>& runs,
                        const aoe_bench::ClblastTunerRun* tuner) {
  Interleaving out;
  const int timed = static_cast<int>(s.runs);
  for (const auto& run : runs) {
    for (const auto& c : run.top) {
      if (out.ours.contains(c)) continue;
      out.ours[c] = out.contenders.size();
      out.contenders.push_back(
          {space.to_string(c), [&runner, &space, c]() -> std::optional<double> {
             const auto m = runner.measure(space, std::vector<aoe::Configuration>{c});
             if (m[0].ok()) return m[0].value;
             return std::nullopt;
           }});
    }
  }
  for (std::size_t k = 0; tuner != nullptr && k < tuner->top.size(); ++k) {
    out.tuner.push_back(out.contenders.size());
    out.contenders.push_back(
        {aoe_bench::to_string(tuner->top[k]),
         [&clblast, p = tuner->top[k], timed] { return clblast.xgemm_seconds(p, timed); }});
  }
  out.shipped_xgemm = out.contenders.size();
  out.contenders.push_back({aoe_bench::to_string(clblast.shipped_xgemm()), [&clblast, timed] {
                              return clblast.xgemm_seconds(clblast.shipped_xgemm(), timed);
                            }});
  out.routine = out.contenders.size();
  out.contenders.push_back(
      {"SGEMM routine, shipped", [&clblast, timed] { return clblast.routine_seconds(timed); }});
  return out;
}

// Item 5: rows of each run's declared best, the tuner's and CLBlast's shipped kernels, all
// measured interleaved. Returns false after printing why they could not be measured.
bool interleaved_rows(const Settings& s, const aoe::Space& space, const aoe::opencl::Kernel& kernel,
                      const aoe::opencl::DeviceSelection& selection, const cl::Device& device,
                      const std::vector<aoe_bench::RunIncumbents>& runs,
                      const aoe_bench::ClblastTunerRun* tuner, double flops,
                      std::vector<Row>& rows) {
  auto runner =
      aoe::OpenCLRunner::open(kernel, {.repetitions = s.runs, .timeout_factor = 0}, selection);
  aoe_bench::ClblastGemm clblast(device, s.size);
  if (!runner || !clblast.ok()) {
    std::fprintf(stderr, "opencl_bench: %s\n",
                 runner ? clblast.error().c_str() : runner.error().message.c_str());
    return false;
  }
  const auto in = candidates(s, space, *runner, clblast, runs, tuner);
  const auto t0 = Clock::now();
  for (const auto& c : in.contenders) (void)c.seconds();  // builds every program, untimed
  const double build_seconds = since(t0);
  const auto m = aoe_bench::interleave(in.contenders, s.rounds, 1);
  std::fprintf(stderr, "interleaved: %zu candidates, %zu rounds, %.0f s (builds %.0f s)\n",
               in.contenders.size(), s.rounds, since(t0), build_seconds);
  std::optional<std::size_t> tuner_best;
  if (!in.tuner.empty()) tuner_best = declared_best(m, in.tuner);
  const auto row = [&](std::string name, std::string by, std::size_t evaluations, std::size_t i) {
    Row r{std::move(name),
          std::move(by),
          evaluations,
          gflops(flops, aoe_bench::median_interval(m.seconds[i]).median),
          0,
          interleaved_figures(m, i, tuner_best, flops, in.contenders[i].name)};
    r.extra["size"] = s.size;
    return r;
  };
  if (tuner_best) {
    rows.push_back(row("clblast_xgemm", "clblast_tuner", tuner->configurations, *tuner_best));
  }
  rows.push_back(row("clblast_xgemm", "clblast_shipped_xgemm", 0, in.shipped_xgemm));
  rows.push_back(row("clblast_xgemm", "clblast_default", 0, in.routine));
  for (const auto& run : runs) {
    std::vector<std::size_t> kept;
    for (const auto& c : run.top) kept.push_back(in.ours.at(c));
    Row r = row("aoe_gemm", run.policy, run.evaluations, declared_best(m, kept));
    r.extra["seed"] = run.seed;
    r.extra["search_gflops"] = gflops(flops, run.seconds.front());
    std::fprintf(stderr, "%-12s seed %zu: %.2f GFLOP/s [%.2f, %.2f], search said %.2f\n",
                 run.policy.c_str(), run.seed, r.best_gflops,
                 r.extra.at("ci_low").to_number<double>(),
                 r.extra.at("ci_high").to_number<double>(), gflops(flops, run.seconds.front()));
    rows.push_back(std::move(r));
  }
  return true;
}

// The JSON (and the SVG): the rows, the device, the machine at the start and at the end.
int write_results(const Settings& s, const aoe::opencl::DeviceInfo& info,
                  const aoe_bench::MachineState& start, double seconds,
                  const std::vector<Row>& rows) {
  boost::json::array results;
  double default_gflops = 0, tuner_gflops = 0;
  std::vector<Row> live;  // the plot's lines
  for (const auto& r : rows) {
    results.push_back(to_json(r));
    if (r.extra.contains("interleaved")) continue;  // the plot is of what each side measured
    if (r.tuner == "clblast_default" && default_gflops == 0) default_gflops = r.best_gflops;
    if (r.tuner == "clblast_tuner") tuner_gflops = r.best_gflops;
    live.push_back(r);
  }
  const boost::json::object root{{"device", info.name},
                                 {"platform", info.platform},
                                 {"bench_seconds", seconds},
                                 {"machine",
                                  {{"start", aoe_bench::to_json(start)},
                                   {"end", aoe_bench::to_json(aoe_bench::read_machine_state())}}},
                                 {"results", std::move(results)}};
  std::ofstream(s.json_path) << boost::json::serialize(root) << "\n";
  if (!s.svg_path.empty()) {
    aoe_bench::write_svg(s.svg_path, live, clblast_references(default_gflops, tuner_gflops),
                         s.max_evaluations);
  }
  std::fprintf(stderr, "done in %.0f s\n", seconds);
  return 0;
}

// Item 3: a uniform sample recorded and replayed. False after printing why not.
bool recorded_rows(const Settings& s, const aoe_bench::RunSettings& settings,
                   const aoe::Space& space, SharedMeasurements measure,
                   const aoe::opencl::DeviceInfo& info, std::vector<Row>& rows) {
  const auto configurations =
      aoe::replay::configurations_to_record(space, {.sample = s.record_sample, .seed = 7});
  const auto cache_path = (std::filesystem::path(s.json_path).parent_path() /
                           ("aoe_gemm_" + std::to_string(s.size) + "_cache.json"))
                              .string();
  return aoe_bench::replay_rows(settings, space, configurations, measure,
                                {.batch = s.batch,
                                 .name = "aoe_gemm_" + std::to_string(s.size),
                                 .device = info.name,
                                 .kernel = "aoe_gemm"},
                                cache_path, rows) != nullptr;
}

// Items 1 to 5 and the JSON.
int run(const Settings& s) {
  const auto selection = aoe::OpenCLRunner::default_selection();
  const auto device = aoe::opencl::find_device(selection);
  if (!device) {
    std::fprintf(stderr, "opencl_bench: %s\n", device.error().message.c_str());
    return 1;
  }
  const aoe::opencl::DeviceInfo info = aoe::opencl::describe(*device);
  std::fprintf(stderr, "device: %s (%s)\n", info.name.c_str(), info.platform.c_str());
  const auto machine_start = aoe_bench::read_machine_state();
  const auto bench_begin = Clock::now();
  std::vector<Row> rows;
  const auto n = static_cast<std::int64_t>(s.size);
  const double flops = 2.0 * static_cast<double>(n * n * n);
  if (!s.skip_clblast) clblast_default_rows(*device, s, rows);

  const aoe::Space space = aoe::opencl::gemm_space(n, n, n, info);
  const auto kernel = aoe::opencl::gemm_kernel(aoe::opencl::gemm_problem(n, n, n));
  auto runner = aoe::OpenCLRunner::open(kernel, {.repetitions = 3}, selection);
  if (!runner) {
    std::fprintf(stderr, "opencl_bench: %s\n", runner.error().message.c_str());
    return 1;
  }
  std::map<aoe::Configuration, aoe::Measurement> shared;
  const aoe_bench::RunSettings settings{.policies = split(s.policies),
                                        .seeds = s.seeds,
                                        .max_evaluations = s.max_evaluations,
                                        .batch = s.batch,
                                        .replay_seeds = s.replay_seeds,
                                        .size = n,
                                        .flops = flops,
                                        .keep_top = s.keep};
  std::vector<aoe_bench::RunIncumbents> incumbents;
  if (!aoe_bench::live_rows(settings, space, SharedMeasurements(&*runner, &shared), rows, {},
                            &incumbents)) {
    return 2;
  }
  // Shared measurements: those measured above are not measured again.
  if (s.record_sample > 0 &&
      !recorded_rows(s, settings, space, SharedMeasurements(&*runner, &shared), info, rows)) {
    return 1;
  }
  std::optional<aoe_bench::ClblastTunerRun> tuner;
  if (!s.skip_clblast && !s.skip_clblast_tuner) {
    tuner = clblast_tuner(s, flops, rows);
    if (!tuner) return 1;
  }
  if (!s.skip_clblast && !interleaved_rows(s, space, kernel, selection, *device, incumbents,
                                           tuner ? &*tuner : nullptr, flops, rows)) {
    return 1;
  }
  return write_results(s, info, machine_start, since(bench_begin), rows);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"opencl_bench: our SGEMM tuned on an OpenCL device against CLBlast"};
  Settings s;
  app.add_option("--json", s.json_path, "where to write the results (required to measure)");
  app.add_option("--svg", s.svg_path, "where to write the plot");
  app.add_option("--size", s.size, "M = N = K")->check(CLI::Range(64, 4096));
  app.add_option("--seeds", s.seeds, "live tuning runs per policy")->check(CLI::Range(1, 100));
  app.add_option("--max-evaluations", s.max_evaluations, "live budget: 25, 50, ... up to this")
      ->check(CLI::Range(25, 1000));
  app.add_option("--policies", s.policies, "comma-separated search policies (or specs)");
  app.add_option("--rounds", s.rounds, "interleaved rounds")->check(CLI::Range(1, 1000));
  app.add_option("--runs", s.runs, "timed runs per candidate and round")
      ->check(CLI::Range(1, 1000));
  app.add_option("--keep", s.keep, "best configurations each run and the tuner re-measure")
      ->check(CLI::Range(1, 100));
  app.add_option("--record", s.record_sample, "configurations recorded for item 3 (0: none)");
  app.add_option("--replay-seeds", s.replay_seeds, "replayed runs per policy");
  app.add_option("--batch", s.batch, "configurations per batch (built in parallel)");
  auto* reuse = app.add_option("--clblast-json", s.clblast_json,
                               "reuse this clblast_xgemm_1_32.json instead of running the tuner")
                    ->check(CLI::ExistingFile);
  // A reused run's wall time was not measured here: it must be given, never left at 0.
  app.add_option("--clblast-wall-seconds", s.clblast_wall, "the reused tuner run's wall time")
      ->check(CLI::PositiveNumber)
      ->needs(reuse);
  reuse->needs("--clblast-wall-seconds");
  app.add_flag("--skip-clblast-tuner", s.skip_clblast_tuner, "leave item 4 out");
  app.add_flag("--skip-clblast", s.skip_clblast, "leave CLBlast out (items 1, 4 and 5)");
  app.add_option("--replot", s.replot,
                 "measure nothing: draw --svg from the results of an earlier --json FILE");
  CLI11_PARSE(app, argc, argv);
  if (!s.replot.empty()) return replot(s);
  if (s.json_path.empty()) {
    std::fprintf(stderr, "opencl_bench: --json FILE is required (or --replot FILE --svg FILE)\n");
    return 2;
  }
  for (const auto& policy : split(s.policies)) {  // before anything is measured
    if (auto search = aoe::make_search(policy); !search) {
      std::fprintf(stderr, "opencl_bench: --policies: %s\n", search.error().message.c_str());
      return 2;
    }
  }
  setenv("POCL_KERNEL_CACHE", "0", 1);  // before the first OpenCL call
  return run(s);
}
