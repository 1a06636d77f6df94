// Distributed measurement: one Tuner on rank 0, its batches measured on every rank of an MPI
// job (docs/distributed.md). Tunes a MatMul's schedule on the simulator, each measurement made
// to take as long as a device would (measure_latency), then checks that the distributed run
// found what one process finds with the same seed.
//   mpirun -np 3 aoe_example_mpi_tuning [latency seconds, default 0.01]
#include <aoe/measure/simulator/simulator_runner.hpp>
#include <aoe/measure/simulator/soc.hpp>
#include <aoe/mpi.hpp>
#include <aoe/search/evolutionary.hpp>
#include <aoe/tuner/stop_conditions.hpp>
#include <aoe/tuner/tuner.hpp>

#include <boost/mpi/environment.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  boost::mpi::environment env(argc, argv);  // MPI_Init ... MPI_Finalize
  const boost::mpi::communicator world;
  const double latency = argc > 1 ? std::atof(argv[1]) : 0.01;

  // Every rank builds the same runner (and so the same space): a MatMul on an Ascend 910A.
  aoe::OperatorDesc op;
  op.type = "MatMul";
  op.name = "fc";
  op.inputs = {{{1024, 4096}, aoe::DataType::float16, aoe::Format::ND},
               {{4096, 1024}, aoe::DataType::float16, aoe::Format::ND}};
  op.outputs = {{{1024, 1024}, aoe::DataType::float16, aoe::Format::ND}};
  auto runner = aoe::SimulatorRunner::create(aoe::sim::Soc::builtin("Ascend910A").value(), op,
                                             {.measure_latency = latency});
  if (!runner) {
    std::fprintf(stderr, "rank %d: %s\n", world.rank(), runner.error().what().c_str());
    return 2;
  }
  const aoe::Space& space = runner->space();

  if (world.rank() != 0) {
    aoe::mpi::serve(world, *runner, space);  // measures until rank 0's MpiMeasure is gone
    return 0;
  }

  const aoe::TunerOptions options{.seed = 42, .batch_size = 8};
  using Clock = std::chrono::steady_clock;
  auto t0 = Clock::now();
  aoe::TuningResult distributed;
  {
    aoe::Tuner<aoe::Evolutionary<>, aoe::MpiMeasure<aoe::SimulatorRunner>> tuner(
        aoe::Evolutionary<>{}, aoe::MpiMeasure(world, *runner), options);
    distributed = tuner.tune(space, aoe::MaxEvaluations{64});
  }  // the other ranks return from serve here
  const double distributed_seconds = std::chrono::duration<double>(Clock::now() - t0).count();

  t0 = Clock::now();
  aoe::Tuner<aoe::Evolutionary<>, aoe::SimulatorRunner> alone(aoe::Evolutionary<>{}, *runner,
                                                              options);
  const aoe::TuningResult single = alone.tune(space, aoe::MaxEvaluations{64});
  const double single_seconds = std::chrono::duration<double>(Clock::now() - t0).count();

  if (!distributed.found()) {
    std::fprintf(stderr, "no configuration fits\n");
    return 1;
  }
  std::printf("%d ranks, %zu evaluations, %.3f s each: best %s = %.3g us\n", world.size(),
              distributed.history.size(), latency,
              space.to_string(*distributed.best_configuration).c_str(),
              distributed.best_value * 1e6);
  std::printf("wall time: %.2f s on %d ranks, %.2f s in one process\n", distributed_seconds,
              world.size(), single_seconds);
  const bool same = distributed.best_configuration == single.best_configuration &&
                    distributed.best_value == single.best_value &&
                    distributed.history.size() == single.history.size();
  std::printf("same result as one process: %s\n", same ? "yes" : "NO");
  return same ? 0 : 1;
}
