// Keeping your own tuning results in a tuning database (docs/database.md): a blocked matrix
// transpose on the host CPU is tuned with its trials logged to an SQLite file; the next run (of
// this program, or of `tune` with the same key and space) is a database hit, and every trial is
// exported to CSV for pandas or R. An interrupted run started again resumes where it stopped.
//
//   sqlite_tuning_database [DATABASE [N]]     (default tuning.db, N = 1024)
//   aoe-db runs tuning.db; aoe-db export tuning.db -o trials.csv
//
// Needs the aoe::sqlite component (libsqlite3-dev); built only when it was found.
#include <aoe.hpp>
#include <aoe/sqlite.hpp>

#include <boost/hana/define_struct.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

struct Blocking {
  BOOST_HANA_DEFINE_STRUCT(Blocking, (int, bi), (int, bj));
};

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "tuning.db";
  const int n = argc > 2 ? std::atoi(argv[2]) : 1024;
  if (n < 16) {
    std::fprintf(stderr, "usage: %s [DATABASE [N >= 16]]\n", argv[0]);
    return 2;
  }
  std::vector<float> a(static_cast<std::size_t>(n) * n);
  std::vector<float> t(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 1021);
  const auto at = [n](int r, int c) { return static_cast<std::size_t>(r) * n + c; };
  const auto kernel = [&](const Blocking& b) {
    for (int i0 = 0; i0 < n; i0 += b.bi)
      for (int j0 = 0; j0 < n; j0 += b.bj)
        for (int i = i0; i < i0 + b.bi; ++i)
          for (int j = j0; j < j0 + b.bj; ++j) t[at(j, i)] = a[at(i, j)];
  };
  const auto correct = [&](const Blocking&) {
    for (int i = 0; i < n; i += 7)
      for (int j = 0; j < n; j += 5)
        if (t[at(j, i)] != a[at(i, j)]) return false;
    return true;
  };
  auto space = aoe::make_space<Blocking>(aoe::pow2("bi", 1, n), aoe::pow2("bj", 1, n),
                                         aoe::divides("bi", n), aoe::divides("bj", n));

  auto db = aoe::TuningDatabase::open(path);
  if (!db) {
    std::fprintf(stderr, "%s\n", db.error().what().c_str());
    return 1;
  }
  aoe::Tuner<aoe::RandomSearch, aoe::HostRunner, aoe::TuningDatabase> tuner(
      aoe::RandomSearch{}, aoe::HostRunner(kernel, correct, {.repetitions = 3}), std::move(*db),
      aoe::TunerOptions{.seed = 1});
  const aoe::TuningKey key{"transpose/n=" + std::to_string(n) + "/f32", "host"};

  // The first run measures and logs every trial (or resumes an interrupted run, or is a hit if
  // an earlier run of this program stored the key); the second is a hit.
  for (const char* run : {"first", "second"}) {
    const aoe::TuningResult r = tuner.tune(space, key, aoe::MaxEvaluations{40});
    if (r.repository_error) {
      std::fprintf(stderr, "%s\n", r.repository_error->what().c_str());
      return 1;
    }
    if (!r.found()) {
      std::fprintf(stderr, "no configuration passed the check\n");
      return 1;
    }
    std::printf("%s run: %s, %zu measured, %zu replayed from the log; best %s (%.3f ms)\n", run,
                aoe::to_string(r.reason).data(), r.history.size() - r.replayed, r.replayed,
                space.to_string(*r.best_configuration).c_str(), r.best_value * 1e3);
  }

  // Every trial of every run in the database, one CSV row each (parameters as columns).
  const auto table = aoe::export_runs(tuner.repository(), {.problem = key.problem});
  if (!table) {
    std::fprintf(stderr, "%s\n", table.error().what().c_str());
    return 1;
  }
  if (auto written = aoe::write_table_file(*table, "trials.csv", aoe::TableFormat::csv); !written) {
    std::fprintf(stderr, "%s\n", written.error().what().c_str());
    return 1;
  }
  std::printf("%zu trials of %s exported to trials.csv; the database is %s\n", table->size(),
              key.problem.c_str(), path.c_str());
  return 0;
}
