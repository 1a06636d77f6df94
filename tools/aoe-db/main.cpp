// aoe-db: inspects and exports a tuning database (docs/database.md).
//
//   aoe-db runs DB                       one line per run: id, key, seed, policy, trials, end
//   aoe-db best DB                       one line per best record (and its timing, when said)
//   aoe-db export DB [-o OUT] [--format csv|jsonl] [--run ID] [--problem P] [--device D]
//                                        one row per trial, the parameters as columns
//
// Exit codes: 0 success; 1 internal error; 2 bad usage; 3 the database could not be read;
// 4 the output could not be written.
#include <aoe/export/trial_table_file.hpp>
#include <aoe/repo/sqlite/export.hpp>
#include <aoe/repo/sqlite/tuning_database.hpp>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <iostream>
#include <optional>
#include <string>

namespace {

constexpr int exit_ok = 0;
constexpr int exit_internal = 1;
constexpr int exit_usage = 2;
constexpr int exit_input = 3;
constexpr int exit_output = 4;

std::optional<aoe::TuningDatabase> open_database(const std::string& path) {
  auto db = aoe::TuningDatabase::open(path, aoe::DatabaseOptions{.read_only = true});
  if (!db) {
    std::cerr << "aoe-db: " << db.error().message << '\n';
    return std::nullopt;
  }
  return std::move(*db);
}

int list_runs(const std::string& path) {
  auto db = open_database(path);
  if (!db) return exit_input;
  auto runs = db->runs();
  if (!runs) {
    std::cerr << "aoe-db: " << runs.error().message << '\n';
    return exit_input;
  }
  std::printf("%-5s %-40s %-16s %-17s %-8s %-14s %7s %-20s %s\n", "run", "problem", "device",
              "space", "seed", "policy", "trials", "started", "ended");
  for (const auto& r : *runs) {
    std::printf("%-5lld %-40s %-16s %-17s %-8llu %-14s %7zu %-20s %s\n",
                static_cast<long long>(r.id), r.info.key.problem.c_str(), r.info.key.device.c_str(),
                r.info.space_fingerprint.c_str(), static_cast<unsigned long long>(r.info.seed),
                r.info.policy.c_str(), r.trials, r.started_at.c_str(),
                r.finished_at.empty() ? "unfinished (resumable)"
                                      : (r.finished_at + " " + r.reason).c_str());
  }
  return exit_ok;
}

int list_best(const std::string& path) {
  auto db = open_database(path);
  if (!db) return exit_input;
  auto best = db->best_records();
  if (!best) {
    std::cerr << "aoe-db: " << best.error().message << '\n';
    return exit_input;
  }
  for (const auto& [fingerprint, rec] : *best) {
    std::string config;
    for (const auto& nv : rec.configuration) {
      if (!config.empty()) config += ", ";
      config += nv.name + "=" + nv.value.to_string();
    }
    // The timing's label when the record says it ("simulated (model ...)"); nothing otherwise.
    const auto& timing = rec.provenance.timing;
    const std::string label = timing ? ", " + timing->label() : "";
    std::printf(
        "%s | %s | space %s | %s | %s (%s, %zu evaluations, %s%s)\n", rec.key.problem.c_str(),
        rec.key.device.c_str(), fingerprint.empty() ? "-" : fingerprint.c_str(),
        aoe::Value(rec.value).to_string().c_str(), config.c_str(), rec.provenance.policy.c_str(),
        rec.provenance.evaluations, rec.provenance.timestamp.c_str(), label.c_str());
  }
  return exit_ok;
}

struct ExportOptions {
  std::string database;
  std::string output;
  std::string format;
  aoe::RunFilter filter;
};

int export_runs(const ExportOptions& o) {
  auto db = open_database(o.database);
  if (!db) return exit_input;
  auto table = aoe::export_runs(*db, o.filter);
  if (!table) {
    std::cerr << "aoe-db: " << table.error().message << '\n';
    return exit_input;
  }
  std::string format = o.format;
  if (format.empty()) {
    const bool jsonl = o.output.ends_with(".jsonl") || o.output.ends_with(".json");
    format = jsonl ? "jsonl" : "csv";
  }
  const auto f = format == "csv" ? aoe::TableFormat::csv : aoe::TableFormat::json_lines;
  if (o.output.empty() || o.output == "-") {
    table->write(std::cout, f);
    std::cout.flush();
    if (!std::cout) {
      std::cerr << "aoe-db: cannot write to standard output\n";
      return exit_output;
    }
    return exit_ok;
  }
  if (auto w = aoe::write_table_file(*table, o.output, f); !w) {
    std::cerr << "aoe-db: " << w.error().message << '\n';
    return exit_output;
  }
  return exit_ok;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    CLI::App app{"aoe-db: inspect and export an OpenAOE tuning database (docs/database.md)"};
    app.require_subcommand(1);
    std::string runs_db;
    auto* runs = app.add_subcommand("runs", "List the runs: key, seed, policy, trials, end");
    runs->add_option("database", runs_db, "The database file")->required();
    std::string best_db;
    auto* best = app.add_subcommand("best", "List the best record per key and space");
    best->add_option("database", best_db, "The database file")->required();

    ExportOptions ex;
    std::int64_t run_id = 0;
    std::string problem;
    std::string device;
    auto* exp = app.add_subcommand(
        "export", "Write the trials of the runs, one row per trial, parameters as columns");
    exp->add_option("database", ex.database, "The database file")->required();
    exp->add_option("-o,--output", ex.output,
                    "Output file (default: standard output); .jsonl/.json selects JSON lines");
    exp->add_option("--format", ex.format, "csv or jsonl (default: from --output, else csv)")
        ->check(CLI::IsMember({"csv", "jsonl"}));
    auto* run_opt = exp->add_option("--run", run_id, "Only this run (see `aoe-db runs`)");
    auto* problem_opt = exp->add_option("--problem", problem, "Only runs of this problem");
    auto* device_opt = exp->add_option("--device", device, "Only runs on this device");

    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      const int rc = app.exit(e);
      return rc == 0 ? exit_ok : exit_usage;
    }
    if (*runs) return list_runs(runs_db);
    if (*best) return list_best(best_db);
    if (*run_opt) ex.filter.run = run_id;
    if (*problem_opt) ex.filter.problem = problem;
    if (*device_opt) ex.filter.device = device;
    return export_runs(ex);
  } catch (const std::exception& e) {
    std::cerr << "aoe-db: internal error: " << e.what() << '\n';
    return exit_internal;
  }
}
