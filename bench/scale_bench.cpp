// Time per stage against model size: builds graphs of 10^3 .. 10^6 nodes in memory (so no input
// size cap applies) and gradient profiles of as many gradients, runs each stage of the jobs on
// them and prints, per shape, size and stage, the wall seconds and the seconds per node
// (docs/reliability.md#model-size). Flat seconds per node from the smallest size to the largest
// is the goal; a stage whose time per node grows with the size is not linear.
//
//   scale_bench [--sizes 1000,10000,100000,1000000] [--shapes chain,wide,ladder]
//               [--budget N] [--parallel N] [--stages parse,fusion,...]
//   scale_bench --write-model FILE --shape wide --nodes 100000   (a model for the real `aoe`)
//
// Shapes (every tensor [8, 64] float16 unless said):
//   chain   x -> Relu -> Relu -> ... (n Relus): OPAT fuses it into elementwise chains
//   wide    one input read by n Relus (n branches, one fan-out)
//   ladder  residual blocks of 4 nodes: MatMul(h, w_i) -> BiasAdd(b_i) -> Relu -> Add(., h)
//           -> h; trainable weights, so GDAT's backward derivation has gradients
//   profile (GDAT) n gradients of sizes and times cycling through a few values
// Stages: parse (the graph's JSON text -> Graph, aoe::parse_graph), fusion (aoe::fuse),
// opat (run_opat, the whole job on the simulator from an empty bank with `--budget`
// evaluations per operator: tasks, tuning, bank, result file, tuned model), sgat_split
// (split_subgraphs), gdat_derivation (derive_gradient_profile; ladder only), tuned_model_write
// (write_tuned_model of the untuned graph), gdat (run_gdat on a profile: default split,
// dynamic programme, search with `--budget` x 10 evaluations, bank, result file). `--stages`
// runs only the stages named (all by default; parse always runs: the others need its graph, but
// is recorded only when named).
//
// Output: {"benchmark": "scale_bench", "budget": N, "parallel": N, "results": [{"shape",
// "nodes", "stage", "seconds", "seconds_per_node", "cpu_seconds", "cpu_seconds_per_node",
// "page_faults_per_node", "peak_rss_bytes"[, "marginal_seconds_per_node",
// "marginal_cpu_seconds_per_node"]}, ...]}: wall seconds, and the process's CPU seconds (all
// threads; on a shared machine the steadier of the two); for the profile, "nodes" counts
// gradients. The marginal figures, from the second size of a shape and stage on, are the
// seconds the stage took more than at the size run before it (a smaller one), per node more:
// the cost of a node once the stage's fixed costs (OPAT tunes each distinct operator once,
// whatever the size) are paid. Progress goes to stderr.
#include <aoe/graph/fusion.hpp>
#include <aoe/graph/loader.hpp>
#include <aoe/jobs/gdat/backward_derivation.hpp>
#include <aoe/jobs/gdat/gdat_job.hpp>
#include <aoe/jobs/opat/opat_job.hpp>
#include <aoe/jobs/sgat/subgraph_split.hpp>
#include <aoe/jobs/simulator_backend.hpp>
#include <aoe/jobs/tuned_model_writer.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fs = std::filesystem;

namespace {

aoe::TensorRef tensor(std::string name, std::vector<std::int64_t> shape = {8, 64}) {
  return {std::move(name),
          aoe::TensorDesc{std::move(shape), aoe::DataType::float16, aoe::Format::ND}};
}

/// A graph of about `n` nodes of `shape` (chain, wide, ladder), in memory.
aoe::Graph make_graph(const std::string& shape, std::size_t n) {
  aoe::Graph g;
  g.name = shape + std::to_string(n);
  g.nodes.reserve(n);
  const auto node = [&g](std::string name, std::string type, std::vector<aoe::TensorRef> in,
                         std::vector<aoe::TensorRef> out) {
    g.nodes.push_back(
        aoe::Node{std::move(name), std::move(type), std::move(in), std::move(out), {}});
  };
  if (shape == "chain") {
    std::string prev = "x";
    for (std::size_t i = 0; i < n; ++i) {
      std::string out = "t" + std::to_string(i);
      node("relu" + std::to_string(i), "Relu", {tensor(prev)}, {tensor(out)});
      prev = std::move(out);
    }
  } else if (shape == "wide") {
    for (std::size_t i = 0; i < n; ++i) {
      node("relu" + std::to_string(i), "Relu", {tensor("x")}, {tensor("t" + std::to_string(i))});
    }
  } else {  // ladder
    std::string h = "x";
    for (std::size_t i = 0; g.nodes.size() < n; ++i) {
      const std::string s = std::to_string(i);
      node("mm" + s, "MatMul", {tensor(h), tensor("w" + s, {64, 64})}, {tensor("m" + s)});
      node("bias" + s, "BiasAdd", {tensor("m" + s), tensor("b" + s, {64})}, {tensor("a" + s)});
      node("relu" + s, "Relu", {tensor("a" + s)}, {tensor("r" + s)});
      node("add" + s, "Add", {tensor("r" + s), tensor(h)}, {tensor("h" + s)});
      h = "h" + s;
    }
  }
  return g;
}

/// A gradient profile of `n` gradients (sizes and times cycling through a few values).
aoe::gdat::GradientProfile make_profile(std::size_t n) {
  aoe::gdat::GradientProfile p;
  p.name = "profile" + std::to_string(n);
  p.forward_seconds = 0.05;
  p.gradients.reserve(n);
  const std::int64_t sizes[] = {4096, 262144, 1024, 2359296, 8192};
  const double times[] = {20e-6, 150e-6, 5e-6, 400e-6, 30e-6};
  for (std::size_t i = 0; i < n; ++i) {
    p.gradients.push_back(aoe::gdat::Gradient{
        .name = "g" + std::to_string(i), .backward_seconds = times[i % 5], .bytes = sizes[i % 3]});
  }
  return p;
}

std::string model_json(const aoe::Graph& g) { return aoe::detail::tuned_model_text(g, {}).value(); }

/// The process's peak resident set (VmHWM, bytes), or -1 when /proc cannot tell.
long long peak_rss_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  }
  return -1;
}

/// Wall and CPU (this process, all threads) seconds, minor page faults (pages the process
/// touched for the first time) since construction, and the peak resident set during the stage:
/// construction resets the peak to the current resident set (/proc/self/clear_refs, "5").
struct Stopwatch {
  Stopwatch() {
    std::ofstream("/proc/self/clear_refs") << "5\n";
    wall = std::chrono::steady_clock::now();
    cpu = cpu_now();
    faults = faults_now();
  }
  std::chrono::steady_clock::time_point wall;
  double cpu = 0;
  long long faults = 0;
  static double cpu_now() {
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  }
  static long long faults_now() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
  }
  [[nodiscard]] std::pair<double, double> elapsed() const {
    return {std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count(),
            cpu_now() - cpu};
  }
  [[nodiscard]] long long page_faults() const { return faults_now() - faults; }
};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

void perf_ctl(const char* cmd) {
  const char* fifo = std::getenv("SCALE_BENCH_PERF_CTL");
  if (fifo == nullptr) return;
  std::ofstream f(fifo);
  f << cmd << "\n";
  f.flush();
  const char* ack = std::getenv("SCALE_BENCH_PERF_ACK");
  if (ack != nullptr) {
    std::ifstream a(ack);
    std::string line;
    std::getline(a, line);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes{1000, 10000, 100000, 1000000};
  std::vector<std::string> shapes{"chain", "wide", "ladder"};
  const std::vector<std::string> all_stages{
      "parse", "fusion", "sgat_split", "gdat_derivation", "tuned_model_write", "opat", "gdat"};
  std::vector<std::string> stages = all_stages;
  std::size_t budget = 8;
  int parallel = 2;
  std::string write_model;
  std::string write_shape = "wide";
  std::size_t write_nodes = 100000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    const std::string v = argv[i + 1];
    try {
      if (a == "--sizes") {
        sizes.clear();
        for (const auto& s : split_list(v)) sizes.push_back(std::stoul(s));
      } else if (a == "--shapes") {
        shapes = split_list(v);
      } else if (a == "--stages") {
        stages = split_list(v);
      } else if (a == "--budget") {
        budget = std::stoul(v);
      } else if (a == "--parallel") {
        parallel = std::stoi(v);
      } else if (a == "--write-model") {
        write_model = v;
      } else if (a == "--shape") {
        write_shape = v;
      } else if (a == "--nodes") {
        write_nodes = std::stoul(v);
      } else {
        std::cerr << "scale_bench: unknown option " << a << "\n";
        return 2;
      }
    } catch (const std::exception&) {
      std::cerr << "scale_bench: " << a << "='" << v << "': expected a number\n";
      return 2;
    }
  }
  for (const auto& s : shapes) {
    if (s != "chain" && s != "wide" && s != "ladder") {
      std::cerr << "scale_bench: --shapes: '" << s << "': expected chain, wide or ladder\n";
      return 2;
    }
  }
  for (const auto& s : stages) {
    if (std::find(all_stages.begin(), all_stages.end(), s) == all_stages.end()) {
      std::cerr << "scale_bench: --stages: '" << s
                << "': expected parse, fusion, sgat_split, gdat_derivation, tuned_model_write, "
                   "opat or gdat\n";
      return 2;
    }
  }
  const auto wanted = [&stages](std::string_view s) {
    return std::find(stages.begin(), stages.end(), s) != stages.end();
  };
  if (!write_model.empty()) {
    std::ofstream out(write_model, std::ios::binary);
    out << model_json(make_graph(write_shape, write_nodes)) << "\n";
    if (!out) {
      std::cerr << "scale_bench: cannot write " << write_model << "\n";
      return 1;
    }
    return 0;
  }

  auto soc = aoe::sim::Soc::builtin("Ascend910A");
  if (!soc) {
    std::cerr << "scale_bench: " << soc.error().message << "\n";
    return 1;
  }
  const fs::path scratch =
      fs::temp_directory_path() / ("aoe_scale_bench_" + std::to_string(::getpid()));
  aoe::SimulatorBackend backend(*soc);
  boost::json::array results;
  int status = 0;
  struct Point {
    std::size_t nodes = 0;
    double wall = 0;
    double cpu = 0;
  };
  std::map<std::pair<std::string, std::string>, Point> previous;  // by shape and stage
  const auto record = [&results, &previous](const std::string& shape, std::size_t nodes,
                                            const std::string& stage, const Stopwatch& watch) {
    const auto [wall, cpu] = watch.elapsed();
    const long long faults = watch.page_faults();
    const long long peak = peak_rss_bytes();
    boost::json::object o;
    o["shape"] = shape;
    o["nodes"] = static_cast<std::int64_t>(nodes);
    o["stage"] = stage;
    o["seconds"] = wall;
    o["seconds_per_node"] = wall / static_cast<double>(nodes);
    o["cpu_seconds"] = cpu;
    o["cpu_seconds_per_node"] = cpu / static_cast<double>(nodes);
    o["page_faults_per_node"] = static_cast<double>(faults) / static_cast<double>(nodes);
    o["peak_rss_bytes"] = peak;
    const auto before = previous.find({shape, stage});
    if (before != previous.end() && before->second.nodes < nodes) {
      const auto more = static_cast<double>(nodes - before->second.nodes);
      o["marginal_seconds_per_node"] = (wall - before->second.wall) / more;
      o["marginal_cpu_seconds_per_node"] = (cpu - before->second.cpu) / more;
    }
    previous[{shape, stage}] = Point{nodes, wall, cpu};
    results.push_back(std::move(o));
    std::cerr << shape << " " << nodes << " " << stage << " " << wall << " s (cpu " << cpu << " s, "
              << faults << " page faults, peak RSS " << (peak >> 20) << " MB)\n";
  };
  const auto fail = [&status](const std::string& what, const aoe::ErrorInfo& e) {
    std::cerr << "scale_bench: " << what << ": " << e.message << "\n";
    status = 1;
  };

  for (const auto& shape : shapes) {
    for (const auto n : sizes) {
      aoe::Graph built = make_graph(shape, n);
      const std::size_t nodes = built.nodes.size();
      {
        const std::string text = model_json(built);
        built = {};
        const Stopwatch t0;
        auto parsed = aoe::parse_graph(text, shape + ".json");
        if (!parsed) {
          fail(shape, parsed.error());
          continue;
        }
        if (wanted("parse")) record(shape, nodes, "parse", t0);
        built = std::move(*parsed);
      }
      const aoe::Graph& g = built;
      if (wanted("fusion")) {
        const Stopwatch t0;
        const auto fused = aoe::fuse(g);
        record(shape, nodes, "fusion", t0);
      }
      if (wanted("sgat_split")) {
        const Stopwatch t0;
        const auto subgraphs = aoe::split_subgraphs(g);
        record(shape, nodes, "sgat_split", t0);
      }
      if (shape == "ladder" && wanted("gdat_derivation")) {
        const Stopwatch t0;
        auto profile = aoe::gdat::derive_gradient_profile(g, *soc);
        if (!profile) {
          fail("gdat_derivation", profile.error());
        } else {
          record(shape, nodes, "gdat_derivation", t0);
        }
      }
      if (wanted("tuned_model_write")) {
        fs::remove_all(scratch);
        const Stopwatch t0;
        if (auto ok = aoe::write_tuned_model(g, {}, scratch / "model.json"); !ok) {
          fail("tuned_model_write", ok.error());
        } else {
          record(shape, nodes, "tuned_model_write", t0);
        }
      }
      if (wanted("opat")) {
        fs::remove_all(scratch);
        aoe::KnowledgeBank bank({.custom_root = scratch / "bank", .durable = false});
        const aoe::OpatOptions options{.scope = backend.scope(),
                                       .budget = {.evaluations = budget, .patience = budget},
                                       .parallel = parallel,
                                       .run = {.result_dir = scratch / "work"}};
        perf_ctl("enable");
        const Stopwatch t0;
        auto job = aoe::run_opat(g, backend, bank, options);
        perf_ctl("disable");
        if (!job) {
          fail("opat", job.error());
        } else {
          record(shape, nodes, "opat", t0);
        }
      }
    }
  }
  for (const auto n : wanted("gdat") ? sizes : std::vector<std::size_t>{}) {
    const auto profile = make_profile(n);
    fs::remove_all(scratch);
    aoe::gdat::GradientFusionBank bank(scratch / "bank", soc->name);
    const aoe::GdatOptions options{.budget = {.evaluations = budget * 10, .patience = budget * 10},
                                   .run = {.result_dir = scratch / "work"}};
    const Stopwatch t0;
    auto job = aoe::run_gdat(profile, aoe::gdat::Cluster{.devices = 64}, bank, options);
    if (!job) {
      fail("gdat", job.error());
    } else {
      record("profile", n, "gdat", t0);
    }
  }
  fs::remove_all(scratch);

  boost::json::object root;
  root["benchmark"] = "scale_bench";
  root["budget"] = static_cast<std::int64_t>(budget);
  root["parallel"] = parallel;
  root["results"] = std::move(results);
  std::cout << boost::json::serialize(root) << "\n";
  return status;
}
