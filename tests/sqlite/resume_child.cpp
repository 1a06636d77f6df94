// A tuning run on a database, for the kill -9 resume test (tuning_database_test.cpp): tunes the
// bowl landscape, sleeping per measurement so that a kill lands at a random point, and writes
// the history to a file (atomically, through a rename) when it finishes.
//
//   aoe_test_sqlite_resume_child <db> <random|evolutionary> <budget> <batch> <seed> <out>
//   [sleep_ms [problem]]
//
// Exits 0, 2 when the database does not open, 3 on a repository error (the run went on without
// its log; scripts/fault_injection_sqlite.py checks these under a failing disk), 4 when the
// history cannot be renamed into place; the message names the database.
#include "support/landscapes.hpp"
#include <aoe/repo/sqlite/tuning_database.hpp>
#include <aoe/search/evolutionary.hpp>
#include <aoe/search/random_search.hpp>
#include <aoe/tuner/stop_conditions.hpp>
#include <aoe/tuner/tuner.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace {

struct SlowRunner {
  aoe::test::Landscape landscape;
  int sleep_ms = 0;
  std::vector<aoe::Measurement> measure(aoe::SpaceView view,
                                        std::span<const aoe::Configuration> batch) {
    std::vector<aoe::Measurement> out;
    for (const auto& c : batch) {
      std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
      out.push_back(landscape.evaluate(view.space(), c));
    }
    return out;
  }
};

template <class Search>
int run(Search search, const std::string& db_path, std::size_t budget, std::size_t batch,
        std::uint64_t seed, const std::string& out_path, int sleep_ms, const std::string& problem) {
  auto db = aoe::TuningDatabase::open(db_path);
  if (!db) {
    std::cerr << db.error().what() << '\n';
    return 2;
  }
  aoe::test::Landscape l = aoe::test::bowl();
  const aoe::Space space = l.space;
  aoe::Tuner tuner(std::move(search), SlowRunner{std::move(l), sleep_ms}, std::move(*db),
                   aoe::TunerOptions{.seed = seed, .batch_size = batch});
  const auto r = tuner.tune(space, aoe::TuningKey{problem, "test"}, aoe::MaxEvaluations{budget});
  if (r.repository_error) {
    std::cerr << r.repository_error->what() << '\n';
    return 3;
  }
  const std::string tmp = out_path + ".tmp";
  {
    std::ofstream out(tmp);
    out << "replayed " << r.replayed << '\n';
    for (const auto& t : r.history) {
      out << t.evaluation << ' ' << space.to_string(t.configuration) << ' '
          << aoe::to_string(t.measurement.status) << ' '
          << aoe::Value(t.measurement.value).to_string() << '\n';
    }
    out << "best " << aoe::Value(r.best_value).to_string() << '\n';
  }
  return std::rename(tmp.c_str(), out_path.c_str()) == 0 ? 0 : 4;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 7) {
    std::cerr << "usage: " << argv[0]
              << " <db> <random|evolutionary> <budget> <batch> <seed> <out> [sleep_ms [problem]]\n";
    return 1;
  }
  const std::string policy = argv[2];
  const auto budget = static_cast<std::size_t>(std::stoul(argv[3]));
  const auto batch = static_cast<std::size_t>(std::stoul(argv[4]));
  const auto seed = static_cast<std::uint64_t>(std::stoull(argv[5]));
  const int sleep_ms = argc > 7 ? std::stoi(argv[7]) : 2;
  const std::string problem = argc > 8 ? argv[8] : "bowl";
  if (policy == "random") {
    return run(aoe::RandomSearch{}, argv[1], budget, batch, seed, argv[6], sleep_ms, problem);
  }
  if (policy == "evolutionary") {
    return run(aoe::Evolutionary<>{}, argv[1], budget, batch, seed, argv[6], sleep_ms, problem);
  }
  std::cerr << "unknown policy '" << policy << "'\n";
  return 1;
}
