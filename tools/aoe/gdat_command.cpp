// `aoe --job_type=4`: GDAT on a modelled cluster, its flags and its output (docs/gdat.md).
#include "gdat_command.hpp"

#include "distributed.hpp"
#include "model_input.hpp"
#include "reports.hpp"
#include <aoe/jobs/gdat/backward_derivation.hpp>
#include <aoe/jobs/gdat/cluster_loader.hpp>
#include <aoe/jobs/gdat/gdat_job.hpp>
#include <aoe/jobs/gdat/profile_loader.hpp>
#include <aoe/version.hpp>

#include <CLI/App.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace aoe_tool {

namespace {

/// Sets the link's bandwidth and latency the flags give (GB/s and us).
void override_link(const LinkFlags& f, aoe::gdat::Link& link) {
  if (f.bandwidth) link.bandwidth = *f.bandwidth * 1e9;
  if (f.latency) link.latency = *f.latency * 1e-6;
}

/// --<level>_bandwidth and --<level>_latency, the flags of the links `where` ("inside a server"),
/// whose defaults are `bandwidth` GB/s and `latency` us.
void add_link_options(CLI::App& app, const std::string& level, const std::string& where,
                      LinkFlags& link, const std::string& bandwidth, const std::string& latency) {
  app.add_option("--" + level + "_bandwidth", link.bandwidth,
                 "GDAT: GB/s per device " + where + " (default " + bandwidth + ")");
  app.add_option("--" + level + "_latency", link.latency,
                 "GDAT: us per message " + where + " (default " + latency + ")");
}

/// The cluster: the --cluster file (or the defaults) with the flags applied.
aoe::Result<aoe::gdat::Cluster> make_cluster(const GdatFlags& f, int& exit_code) {
  aoe::gdat::Cluster c;
  if (!f.cluster.empty()) {
    auto loaded = aoe::gdat::load_cluster(f.cluster);
    if (!loaded) {
      exit_code = exit_input;
      return loaded.error();
    }
    c = *loaded;
  }
  exit_code = exit_usage;
  if (f.devices) c.devices = *f.devices;
  if (f.devices_per_server) c.devices_per_server = *f.devices_per_server;
  if (f.topology) {
    const auto t = aoe::gdat::topology_from_string(*f.topology);
    if (!t) {
      return aoe::make_error(aoe::Errc::invalid_argument,
                             "--topology=" + *f.topology + ": expected ring or two_level");
    }
    c.topology = *t;
  }
  override_link(f.intra, c.intra_server);
  override_link(f.inter, c.inter_server);
  if (f.allreduce_overhead) c.allreduce_overhead = *f.allreduce_overhead * 1e-6;
  if (auto ok = c.validate(); !ok) return ok.error();
  return c;
}

/// The training model: --gradient_profile, else --model (a gradient profile, a model graph or an
/// ONNX model, whose backward pass is derived on the simulator). `exit_code` is set for an error:
/// exit_usage when the flags do not fit the model or the build, exit_input otherwise.
aoe::Result<aoe::gdat::GradientProfile> load_input(const CommonOptions& common, const GdatFlags& f,
                                                   const aoe::sim::Soc& soc, int& exit_code) {
  exit_code = exit_input;
  if (!f.gradient_profile.empty()) return aoe::gdat::load_gradient_profile(f.gradient_profile);
  auto bytes = read_model_file(common.model);
  if (!bytes) return bytes.error();
  auto format = model_format(common, *bytes);
  if (!format) {
    exit_code = model_exit_code(format.error());
    return format.error();
  }
  if (*format == aoe::ModelFormat::json) {
    auto json = aoe::gdat::detail::parse_json(*bytes, common.model);
    if (!json) return json.error();
    if (aoe::gdat::looks_like_gradient_profile(*json)) {
      return aoe::gdat::read_gradient_profile(*json, common.model);
    }
  }
  auto graph = parse_model(common, *bytes, *format);
  if (!graph) {
    exit_code = model_exit_code(graph.error());
    return graph.error();
  }
  return aoe::gdat::derive_gradient_profile(*graph, soc);
}

std::string list(const std::vector<double>& v) {
  std::string out;
  for (const auto x : v) out += (out.empty() ? "" : ", ") + fixed(x, 2);
  return "[" + out + "]";
}

std::string list(const aoe::gdat::SplitStrategy& s) {
  std::string out;
  for (const auto e : s.ends) out += (out.empty() ? "" : ", ") + std::to_string(e);
  return "[" + out + "]";
}

}  // namespace

void add_gdat_options(CLI::App& app, GdatFlags& flags) {
  add_option_rows(
      app, {{"--gradient_profile", &flags.gradient_profile,
             "GDAT: a gradient profile (JSON, docs/gdat.md) to tune instead of --model's graph"},
            {"--cluster", &flags.cluster,
             "GDAT: the cluster (JSON, docs/gdat.md); the flags below override it"},
            {"--devices", &flags.devices, "GDAT: data-parallel devices (default 8)"},
            {"--devices_per_server", &flags.devices_per_server,
             "GDAT: devices in one server (default 8)"},
            {"--topology", &flags.topology,
             "GDAT: all-reduce over the devices: two_level (default) or ring"}});
  add_link_options(app, "intra", "inside a server", flags.intra, "30", "2");
  add_link_options(app, "inter", "between servers", flags.inter, "12.5", "10");
  add_option_rows(app, {{"--allreduce_overhead", &flags.allreduce_overhead,
                         "GDAT: fixed us per all-reduce (default 20)"},
                        {"--segments", &flags.segments,
                         "GDAT: the most all-reduce segments, 1 to 8 (default 8)"}});
  app.add_flag("--gdat_exact", flags.exact,
               "GDAT: keep the dynamic programme's optimum when it beats the search's split");
}

namespace {

/// What GDAT prints when it has finished: its three steps (--log=debug), each time of them
/// followed by its timing kind (", simulated") as the summary is, and the split it chose with the
/// two calls that set it (--log=info).
void print_gdat_result(const aoe::GdatReport& rep, const std::filesystem::path& result_file,
                       int verbosity, const Io& io) {
  const std::string kind(aoe::to_string(aoe::gdat_timing().kind));
  const auto ms = [](double s) { return fixed(s * 1e3, 3) + " ms"; };
  if (verbosity >= 2) {
    io.out << "[1/3] default split " << rep.baseline.split.to_string() << " "
           << list(rep.baseline.by_size) << ": " << ms(rep.baseline.seconds) << ", " << kind
           << std::endl;
    io.out << "[2/3] dynamic programme optimum " << rep.optimum.split.to_string() << ": "
           << ms(rep.optimum.seconds) << ", " << kind << std::endl;
    io.out << "[3/3] ";
    if (rep.search_best) {
      io.out << "search (" << rep.search_policy << ", " << rep.evaluations << " evaluations) "
             << rep.search_best->split.to_string() << ": " << ms(rep.search_best->seconds)
             << ", gap " << fixed(rep.gap(rep.search_best->seconds) * 100.0, 2) << "%, " << kind;
    } else {
      io.out << "bank hit, no search";
    }
    io.out << std::endl;
  }
  if (verbosity >= 1) {
    io.out << "aoe: split " << rep.result->split.to_string() << " from " << rep.strategy_source
           << " (bank " << aoe::to_string(*rep.outcome) << "): iteration "
           << ms(rep.baseline.seconds) << " -> " << ms(rep.result->seconds) << ", optimum "
           << ms(rep.optimum.seconds) << ", gap " << fixed(rep.gap(rep.result->seconds) * 100.0, 2)
           << "%, " << aoe::gdat_timing().label() << "\n";
    io.out << "aoe: set_split_strategy_by_idx(" << list(rep.result->split) << ")\n";
    io.out << "aoe: set_split_strategy_by_size(" << list(rep.result->by_size) << ")\n";
    io.out << "aoe: result file " << result_file.string() << "\n";
  }
}

}  // namespace

int run_gdat_command(const CommonOptions& common, const GdatFlags& flags,
                     const aoe::Environment& env, const aoe::sim::Soc& soc, const Io& io) {
  if (flags.segments < 1 || flags.segments > static_cast<int>(aoe::gdat::max_split_segments)) {
    io.err << "aoe: --segments=" << flags.segments
           << ": expected 1 to 8 (HCCL splits the gradients into at most 8 segments)\n";
    return exit_usage;
  }
  const auto budget = job_budget(aoe::make_gdat_search(common.search_or("evolutionary")),
                                 aoe::gdat_budget_preset(common.optimization_level), common, io);
  if (!budget) return exit_usage;
  int cluster_exit = exit_usage;
  auto cluster = make_cluster(flags, cluster_exit);
  if (!cluster) {
    io.err << "aoe: " << console_text(cluster.error().message, true) << "\n";
    return cluster_exit;
  }
  if (flags.gradient_profile.empty() && common.model.empty()) {
    io.err << "aoe: GDAT needs a training model: --model (a model graph or a gradient profile) "
              "or --gradient_profile\n";
    return exit_usage;
  }
  const int verbosity = common.verbosity();
  if (!flags.gradient_profile.empty() && !common.model.empty() && verbosity >= 1) {
    io.out << "aoe: --gradient_profile given: tuning " << flags.gradient_profile
           << "; --model is not read\n";
  }
  int input_exit = exit_input;
  auto profile = load_input(common, flags, soc, input_exit);
  if (!profile) {
    io.err << "aoe: " << console_text(profile.error().message, true) << "\n";
    return input_exit;
  }

  aoe::gdat::GradientFusionBank bank(env.graph_bank_root(), common.soc_version,
                                     "openaoe " AOE_VERSION_STRING, bank_access(env, common, io));
  const bool bar = shows_progress_bar(common, io.interactive);
  aoe::GdatOptions o{.max_segments = static_cast<std::size_t>(flags.segments),
                     .exact = flags.exact};
  set_common_options(o, *budget, common, env, io);
  if (io.executors != nullptr) o.run.executor = io.executors->gdat;  // mpirun: over the ranks
  if (bar) {
    o.run.on_event = [&](const aoe::GdatEvent& e) {
      draw_progress(io.out, e.evaluations, e.budget, "split search");
    };
  }
  const auto& c = *cluster;
  if (verbosity >= 2) {
    io.out << "aoe: GDAT on " << console_text(profile->name) << " (" << profile->gradients.size()
           << " gradients, " << fixed(static_cast<double>(profile->total_bytes()) / 1e6, 3)
           << " MB), " << c.devices << " devices (" << c.servers() << " x " << c.server_size()
           << ", " << aoe::gdat::to_string(c.topology) << "), at most " << flags.segments
           << " segments, search " << common.search_or("evolutionary") << ", "
           << budget->evaluations << " evaluations, bank " << bank.file().string() << "\n";
  }
  aoe::GdatJobResult partial;
  auto result = aoe::run_gdat(*profile, c, bank, o, &partial);
  if (bar) io.out << "\n";
  if (!result) {
    // The inputs are checked: what fails now is the bank or the work directory.
    const bool usage = result.error().code == aoe::make_error_code(aoe::Errc::invalid_argument);
    return job_failed(result.error(), partial.result_file, "the job so far",
                      usage ? exit_usage : exit_bank, io);
  }
  const auto& rep = result->report;
  print_gdat_result(rep, result->result_file, verbosity, io);
  return job_finished(
      write_gdat_reports(common, rep, *profile, result->result_file, io), rep.tuning_name,
      fixed(aoe::GdatReport::improvement(rep.baseline.seconds, rep.result->seconds) * 100.0, 2) +
          "%",
      exit_success, io, aoe::gdat_timing());
}

}  // namespace aoe_tool
