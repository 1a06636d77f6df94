// aoe::mpi (docs/distributed.md): MpiMeasure and the work queue under `mpirun -np 3` (ctest
// mpi.distributed; every rank runs every case, rank 0 checks, the others serve), and the `aoe`
// command started as one of several ranks and its --measure_latency (mpi.aoe_command, no
// mpirun).
#include "support/landscapes.hpp"
#include "support/skip.hpp"
#include <aoe/search/evolutionary.hpp>
#include <aoe/tuner/stop_conditions.hpp>
#include <aoe/tuner/tuner.hpp>

#include <doctest/doctest.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#if defined(AOE_WITH_MPI)
#include <aoe/experiment/json.hpp>
#include <aoe/experiment/run.hpp>
#include <aoe/experiment/simulator_problems.hpp>
#include <aoe/experiment/strategy.hpp>
#include <aoe/mpi.hpp>
#include <aoe/mpi/spread_repetitions.hpp>

#include <boost/json/serialize.hpp>
#include <boost/mpi/collectives/gather.hpp>
#include <boost/mpi/environment.hpp>
#endif

namespace {

#if defined(AOE_WITH_MPI)

// MPI starts with the first case that needs it and ends when the program does, so that the
// launcher case (run without mpirun) never starts it.
boost::mpi::communicator& world() {
  static boost::mpi::environment env;
  static boost::mpi::communicator comm;
  return comm;
}

// The bowl landscape as a measure policy. Each rank sleeps a pseudo-random 0-4 ms per
// configuration (seeded by rank and configuration), so results reach rank 0 out of order;
// `throw_on_rank` makes that rank's measurements throw. Its cost (0) is the one charged, so the
// Tuner's histories compare exactly, cost included.
struct DelayedBowl {
  static constexpr bool reports_device_time = true;
  aoe::test::Landscape landscape = aoe::test::bowl();
  int rank = 0;
  int throw_on_rank = -1;
  int measured = 0;
  int calls = 0;  ///< of measure: one per share of a batch that reached this rank

  /// The landscape's measurement; half of them carry an energy, so that the wire is seen to
  /// keep it and its absence.
  [[nodiscard]] aoe::Measurement evaluate(const aoe::Space& space,
                                          const aoe::Configuration& c) const {
    auto m = landscape.evaluate(space, c);
    if (const auto e = aoe::ConfigurationHash{}(c); e % 2 == 1 && m.ok()) {
      const auto watts = static_cast<double>(e % 97);
      m.energy = aoe::Energy{m.value * watts, watts, aoe::TimingKind::measured};
    }
    return m;
  }

  std::vector<aoe::Measurement> measure(aoe::SpaceView view,
                                        std::span<const aoe::Configuration> batch) {
    ++calls;
    std::vector<aoe::Measurement> out;
    for (const auto& c : batch) {
      const auto h = aoe::ConfigurationHash{}(c) ^ (static_cast<std::uint64_t>(rank) * 7919U);
      std::this_thread::sleep_for(std::chrono::microseconds(h % 4000));
      if (rank == throw_on_rank) throw std::runtime_error("device lost on purpose");
      ++measured;
      out.push_back(evaluate(*view, c));
    }
    return out;
  }
};

static_assert(aoe::measure_policy<aoe::MpiMeasure<DelayedBowl>>);
static_assert(aoe::MpiMeasure<DelayedBowl>::reports_device_time, "forwarded from Inner");

bool same(const aoe::Measurement& a, const aoe::Measurement& b) {
  return a.status == b.status && a.value == b.value && a.samples == b.samples &&
         a.message == b.message && a.cost == b.cost && a.energy == b.energy;
}

#endif

}  // namespace

#if defined(AOE_WITH_MPI)

TEST_CASE("MpiMeasure: a Tuner's run over 3 ranks is the run of its Inner in one process") {
  auto& comm = world();
  if (comm.size() < 2) {
    aoe::test::skip("needs at least 2 MPI ranks (ctest runs it under mpirun -np 3)");
    return;
  }
  DelayedBowl inner{.rank = comm.rank()};
  const aoe::Space& space = inner.landscape.space;
  const aoe::TunerOptions options{.seed = 7, .batch_size = 6};
  if (comm.rank() == 0) {
    aoe::Tuner<aoe::Evolutionary<>, DelayedBowl> local(aoe::Evolutionary<>{}, inner, options);
    const auto expected = local.tune(space, aoe::MaxEvaluations{60});
    aoe::TuningResult got;
    int workers = 0;
    {
      aoe::Tuner<aoe::Evolutionary<>, aoe::MpiMeasure<DelayedBowl>> distributed(
          aoe::Evolutionary<>{}, aoe::MpiMeasure<DelayedBowl>(comm, inner), options);
      workers = distributed.measure().workers();
      got = distributed.tune(space, aoe::MaxEvaluations{60});
    }  // the workers return from serve here
    CHECK(workers == comm.size() - 1);
    // CHECK, not REQUIRE: rank 0 must reach the gather below, or the workers would wait there
    // until the test's timeout and the failure's text would be lost.
    CHECK(got.history.size() == expected.history.size());
    for (std::size_t i = 0; i < std::min(got.history.size(), expected.history.size()); ++i) {
      CHECK(got.history[i].configuration == expected.history[i].configuration);
      CHECK(same(got.history[i].measurement, expected.history[i].measurement));
    }
    CHECK(got.best_configuration == expected.best_configuration);
    CHECK(got.best_value == expected.best_value);
  } else {
    aoe::mpi::serve(comm, inner, space);
  }
  // Every worker measured some of the configurations.
  std::vector<int> measured;
  boost::mpi::gather(comm, comm.rank() == 0 ? 0 : inner.measured, measured, 0);
  if (comm.rank() == 0) {
    for (int r = 1; r < comm.size(); ++r) CHECK_MESSAGE(measured[r] > 0, "rank " << r);
  }
}

TEST_CASE("MpiMeasure: a rank whose Inner throws gives failed measurements, and no hang") {
  auto& comm = world();
  if (comm.size() < 3) {
    aoe::test::skip("needs at least 3 MPI ranks (ctest runs it under mpirun -np 3)");
    return;
  }
  DelayedBowl inner{.rank = comm.rank(), .throw_on_rank = 2};
  const aoe::Space& space = inner.landscape.space;
  if (comm.rank() == 0) {
    aoe::MpiMeasure<DelayedBowl> measure(comm, inner);
    DelayedBowl reference;
    std::vector<aoe::Configuration> batch;
    aoe::Rng rng(3);
    for (int i = 0; i < 12; ++i) batch.push_back(space.sample(rng).value());
    for (int round = 0; round < 2; ++round) {  // the failing rank keeps serving
      const auto got = measure.measure(space, batch);
      REQUIRE(got.size() == batch.size());
      std::size_t failed = 0;
      for (std::size_t i = 0; i < got.size(); ++i) {
        if (got[i].status == aoe::Status::runtime) {
          ++failed;
          CHECK(got[i].message == "the runner threw on rank 2: device lost on purpose");
        } else {
          CHECK(same(got[i], reference.evaluate(space, batch[i])));
        }
      }
      CHECK(failed == 4);  // rank 2's share: a third of the batch, all of it failed
    }
  } else {
    aoe::mpi::serve(comm, inner, space);
  }
}

TEST_CASE("MpiMeasure: each rank gets its share of a batch in one message, in batch order") {
  auto& comm = world();
  if (comm.size() < 3) {
    aoe::test::skip("needs at least 3 MPI ranks (ctest runs it under mpirun -np 3)");
    return;
  }
  DelayedBowl inner{.rank = comm.rank()};
  const aoe::Space& space = inner.landscape.space;
  const std::size_t ranks = static_cast<std::size_t>(comm.size());
  // Batches smaller than, equal to and larger than the number of ranks, not multiples of it.
  const std::vector<std::size_t> sizes{1, ranks, 2 * ranks + 1, 10 * ranks - 1};
  if (comm.rank() == 0) {
    aoe::MpiMeasure<DelayedBowl> measure(comm, inner);
    DelayedBowl reference;
    aoe::Rng rng(11);
    for (const std::size_t n : sizes) {
      std::vector<aoe::Configuration> batch;
      for (std::size_t i = 0; i < n; ++i) batch.push_back(space.sample(rng).value());
      const auto got = measure.measure(space, batch);
      REQUIRE(got.size() == n);
      for (std::size_t i = 0; i < n; ++i) CHECK(same(got[i], reference.evaluate(space, batch[i])));
    }
    CHECK(measure.measure(space, {}).empty());
    inner = measure.inner();  // rank 0's own measurements
  } else {
    aoe::mpi::serve(comm, inner, space);
  }
  // Each batch reached every rank at most once, as one share of contiguous size n/ranks or
  // one more: Inner was called once per batch the rank took part in.
  std::vector<int> calls;
  std::vector<int> measured;
  boost::mpi::gather(comm, inner.calls, calls, 0);
  boost::mpi::gather(comm, inner.measured, measured, 0);
  if (comm.rank() == 0) {
    int total_calls = 0;
    int total_measured = 0;
    for (std::size_t r = 0; r < ranks; ++r) {
      total_calls += calls[r];
      total_measured += measured[r];
    }
    std::size_t expected_calls = 0;
    std::size_t expected_measured = 0;
    for (const std::size_t n : sizes) {
      expected_calls += std::min(n, ranks);
      expected_measured += n;
    }
    CHECK(static_cast<std::size_t>(total_calls) == expected_calls);
    CHECK(static_cast<std::size_t>(total_measured) == expected_measured);
    for (std::size_t r = 0; r < ranks; ++r) CHECK_MESSAGE(calls[r] <= 4, "rank " << r);
  }
}

TEST_CASE("node_rank: the ranks of one machine, numbered from 0 in world order") {
  auto& comm = world();
  const aoe::mpi::NodeRank node = aoe::mpi::node_rank(comm);  // collective
  // ctest starts every rank on this machine: the node-local rank is the world rank.
  CHECK(node.rank == comm.rank());
  CHECK(node.size == comm.size());
  std::vector<int> ranks;
  boost::mpi::gather(comm, node.rank, ranks, 0);
  if (comm.rank() == 0) {
    for (int r = 0; r < comm.size(); ++r) CHECK(ranks[static_cast<std::size_t>(r)] == r);
  }
}

TEST_CASE("distribute: results by task index, most expensive handed out first, errors kept") {
  auto& comm = world();
  if (comm.size() < 3) {
    aoe::test::skip("needs at least 3 MPI ranks (ctest runs it under mpirun -np 3)");
    return;
  }
  const std::vector<int> tasks{5, 1, 9, 3, 7, 2, 8, 4, 6, 0};
  std::vector<double> costs;
  for (const int t : tasks) costs.push_back(t);
  std::vector<int> received;  // on each worker, the tasks in the order it got them
  const auto fn = [&](const int& t) {
    received.push_back(t);
    // Later ranks answer faster: results arrive in another order than handed out.
    std::this_thread::sleep_for(std::chrono::milliseconds(2 * (comm.size() - comm.rank())));
    if (t == 3) throw std::invalid_argument("task 3 is refused");
    return std::to_string(t * t);
  };
  const auto results =
      aoe::mpi::distribute(comm, std::span<const int>(tasks), fn, std::span<const double>(costs),
                           aoe::mpi::WorkQueueOptions{.root_works = false});
  std::vector<int> first;
  boost::mpi::gather(comm, received.empty() ? -1 : received.front(), first, 0);
  if (comm.rank() == 0) {
    REQUIRE(results.size() == tasks.size());
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      if (tasks[i] == 3) {
        REQUIRE_FALSE(results[i].has_value());
        CHECK(results[i].error().code == aoe::make_error_code(aoe::Errc::device_error));
        CHECK(results[i].error().message.find("task 3 is refused") != std::string::npos);
        CHECK(results[i].error().message.starts_with("rank "));
      } else {
        REQUIRE(results[i].has_value());
        CHECK(*results[i] == std::to_string(tasks[i] * tasks[i]));
      }
    }
    CHECK(received.empty());  // root_works off: rank 0 only hands out
    CHECK(first[1] == 9);     // the two most expensive tasks went out first
    CHECK(first[2] == 8);
  } else {
    CHECK(results.empty());
  }
}

TEST_CASE("WorkQueue: the task rank 0 waits for goes out before more expensive ones") {
  auto& comm = world();
  if (comm.size() < 3) {
    aoe::test::skip("needs at least 3 MPI ranks (ctest runs it under mpirun -np 3)");
    return;
  }
  // Costs 1, 9, 8, 7: waiting for the cheapest hands it out first, then the most expensive.
  const std::vector<int> tasks{1, 9, 8, 7};
  std::vector<int> received;
  const auto fn = [&](const int& t) {
    received.push_back(t);
    return std::to_string(t);
  };
  if (comm.rank() != 0) {
    aoe::mpi::serve<int, std::string>(comm, fn);
  } else {
    aoe::mpi::WorkQueue<int, std::string> queue(comm, {.root_works = false});
    std::vector<std::uint64_t> tickets;
    for (const int t : tasks) tickets.push_back(queue.submit(t, t));
    const auto cheap = queue.wait(tickets[0]);
    REQUIRE(cheap.has_value());
    CHECK(*cheap == "1");
    for (std::size_t i = 1; i < tasks.size(); ++i) {
      const auto r = queue.wait(tickets[i]);
      REQUIRE(r.has_value());
      CHECK(*r == std::to_string(tasks[i]));
    }
  }
  std::vector<int> first;
  boost::mpi::gather(comm, received.empty() ? -1 : received.front(), first, 0);
  if (comm.rank() == 0) {
    CHECK(received.empty());  // root_works off: rank 0 only hands out
    CHECK(first[1] == 1);     // the awaited task went out first, to the first free worker
    CHECK(first[2] == 9);     // then the most expensive
  }
}

TEST_CASE("spread_repetitions: an experiment over 3 ranks gives rank 0 one process's numbers") {
  auto& comm = world();
  if (comm.size() < 3) {
    aoe::test::skip("needs at least 3 MPI ranks (ctest runs it under mpirun -np 3)");
    return;
  }
  // A researcher's main under mpirun (docs/research.md#over-mpi-ranks): the same problems,
  // strategies and settings on every rank, the repetitions spread over them.
  const auto problems = aoe::experiment::load_simulator_problems("sim:res2a_branch2b");
  REQUIRE(problems.has_value());
  const std::vector<std::string> names{"random", "annealing"};
  auto strategies = aoe::experiment::named(names);
  REQUIRE(strategies.has_value());
  aoe::experiment::Settings settings{
      .budget = 12, .budget_seconds = {}, .repeats = 7, .seed = 5, .threads = 1};
  std::vector<std::size_t> per_rank;
  aoe::experiment::Settings spread = settings;
  spread.run_repetitions = aoe::mpi::spread_repetitions(
      comm, [&](std::span<const std::size_t> n) { per_rank.assign(n.begin(), n.end()); });
  const auto over_ranks = aoe::experiment::run(*problems, *strategies, spread);
  REQUIRE(over_ranks.has_value());
  if (comm.rank() != 0) {
    CHECK(over_ranks->empty());  // a worker rank: rank 0 summarises
    CHECK(per_rank.empty());
    return;
  }
  const auto one_process = aoe::experiment::run(*problems, *strategies, settings);
  REQUIRE(one_process.has_value());
  CHECK(boost::json::serialize(aoe::experiment::to_json(*over_ranks, settings)) ==
        boost::json::serialize(aoe::experiment::to_json(*one_process, settings)));
  REQUIRE(per_rank.size() == 3);
  std::size_t total = 0;
  for (const std::size_t n : per_rank) total += n;
  CHECK(total == problems->size() * strategies->size() * settings.repeats);
}

#else

TEST_CASE("MpiMeasure: needs aoe::mpi") {
  aoe::test::skip("aoe was configured without aoe::mpi (Boost.MPI, Open MPI not found)");
}

#endif

#if defined(AOE_TOOL_AOE_PATH)
namespace {

struct Exit {
  int code = -1;
  std::string err;
};

// Runs `aoe <args>` with `env` prepended (a shell's VAR=value words), its stderr captured.
Exit run_aoe(const std::string& env, const std::string& args) {
  const std::string err_path = "launcher_stderr.txt";
  const std::string command =
      "env -u OMPI_COMM_WORLD_SIZE -u PMI_SIZE -u MV2_COMM_WORLD_SIZE "
      "-u SLURM_STEP_NUM_TASKS -u SLURM_PROCID " +
      env + " '" AOE_TOOL_AOE_PATH "' " + args + " >/dev/null 2>" + err_path;
  const int status = std::system(command.c_str());
  Exit e;
  if (status != -1 && WIFEXITED(status)) e.code = WEXITSTATUS(status);
  std::ifstream in(err_path);
  e.err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return e;
}

}  // namespace
#endif  // AOE_TOOL_AOE_PATH

TEST_CASE("aoe command: built without MPI, started as one of several ranks, it exits 2") {
#if !defined(AOE_TOOL_AOE_PATH)
  aoe::test::skip("the aoe command is not built (AOE_BUILD_TOOLS=OFF)");
#elif defined(AOE_WITH_MPI)
  aoe::test::skip(
      "this aoe is built with aoe::mpi: under mpirun it runs its jobs over the "
      "ranks (aoe_jobs_test.cpp)");
#else
  const std::string model = "--model='" AOE_TESTS_SOURCE_DIR
                            "/../examples/models/resnet50.json' "
                            "--job_type=2 --budget=1";
  for (const std::string env : {"OMPI_COMM_WORLD_SIZE=2", "PMI_SIZE=4", "MV2_COMM_WORLD_SIZE=3",
                                "SLURM_STEP_NUM_TASKS=8 SLURM_PROCID=5"}) {
    CAPTURE(env);
    const Exit e = run_aoe(env, model);
    CHECK(e.code == 2);
    CHECK(e.err.find("started as one of several MPI ranks") != std::string::npos);
    CHECK(e.err.find("built without MPI") != std::string::npos);
  }
  // One rank, or a Slurm allocation that did not start aoe through srun: runs as usual (here it
  // stops at a missing model, exit 3, well before any job).
  for (const std::string env : {"OMPI_COMM_WORLD_SIZE=1", "SLURM_STEP_NUM_TASKS=8"}) {
    CAPTURE(env);
    const Exit e = run_aoe(env, "--model=no_such_model.json --job_type=2");
    CHECK(e.code == 3);
    CHECK(e.err.find("MPI ranks") == std::string::npos);
  }
#endif
}

TEST_CASE("aoe command: --measure_latency is checked, and each OPAT measurement sleeps it") {
#if !defined(AOE_TOOL_AOE_PATH)
  aoe::test::skip("the aoe command is not built (AOE_BUILD_TOOLS=OFF)");
#else
  for (const std::string bad : {"-1", "nan", "inf", "3601", "fast"}) {
    CAPTURE(bad);
    const Exit e = run_aoe("", "--model=no_such_model.json --job_type=2 --measure_latency=" + bad);
    CHECK(e.code == 2);
    CHECK(e.err.find("--measure_latency") != std::string::npos);
  }
  // Applied: one operator (the fc MatMul), 4 evaluations measured one at a time, 0.1 s each:
  // the job takes at least 0.4 s (a lower bound, which cannot flake; without the sleep it
  // takes about 0.02 s).
  std::filesystem::remove_all("latency");
  for (const char* d : {"latency/bank", "latency/work"}) std::filesystem::create_directories(d);
  std::ofstream("latency/ops.json") << R"({"tune_ops_type": ["MatMul"]})";
  const auto started = std::chrono::steady_clock::now();
  const Exit e =
      run_aoe("TUNE_BANK_PATH=latency/bank ASCEND_WORK_PATH=latency/work TUNING_PARALLEL_NUM=1",
              "--model='" AOE_TESTS_SOURCE_DIR
              "/../examples/models/resnet50.json' --job_type=2 "
              "--budget=4 --tune_ops_file=latency/ops.json --report=off --measure_latency=0.1");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  CHECK(e.code == 0);
  CHECK(seconds >= 0.4);
  CHECK(e.err.find("measure_latency") == std::string::npos);  // no warning: applied
  // SGAT does not apply it, and says so.
  const Exit sgat = run_aoe("", "--model=no_such_model.json --job_type=1 --measure_latency=0.5");
  CHECK(sgat.code == 3);  // accepted; the missing model ends the run
  CHECK(sgat.err.find("--measure_latency applies to operator tuning on the simulator") !=
        std::string::npos);
#endif
}
