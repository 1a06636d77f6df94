// ParallelMeasure (TUNING_PARALLEL_NUM threads): a runner that throws for one configuration, in
// any thread, gives that configuration a failed measurement with the exception's message; the
// rest of the batch is measured, in batch order, and the process goes on.
#include <aoe/jobs/parallel_measure.hpp>

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace {

/// Times a configuration by its first index; throws for multiples of 3 (and a non-standard
/// exception for 4).
struct ThrowingRunner {
  [[nodiscard]] aoe::Measurement evaluate(const aoe::Configuration& c) const {
    if (c[0] == 4) throw 42;  // NOLINT(hicpp-exception-baseclass): what a careless runner does
    if (c[0] % 3 == 0) throw std::runtime_error("no kernel for tile " + std::to_string(c[0]));
    return aoe::Measurement::success(static_cast<double>(c[0]));
  }
};

}  // namespace

TEST_CASE("parallel measure: an exception in a worker is that configuration's failure") {
  const aoe::Space space({aoe::range("tile", 0, 15)});
  const ThrowingRunner runner;
  std::vector<aoe::Configuration> batch;
  for (std::uint32_t i = 0; i < 16; ++i) batch.push_back({i});
  for (const int threads : {1, 4}) {
    CAPTURE(threads);
    aoe::ParallelMeasure<ThrowingRunner> measure(runner, threads);
    for (int round = 0; round < 3; ++round) {  // the pool stays usable after a throw
      const auto out = measure.measure(aoe::SpaceView(space), batch);
      REQUIRE(out.size() == batch.size());
      for (std::uint32_t i = 0; i < 16; ++i) {
        CAPTURE(i);
        if (i == 4) {
          CHECK(out[i].status == aoe::Status::runtime);
          CHECK(out[i].message.find("not a std::exception") != std::string::npos);
        } else if (i % 3 == 0) {
          CHECK(out[i].status == aoe::Status::runtime);
          CHECK(out[i].message == "the runner threw: no kernel for tile " + std::to_string(i));
        } else {
          CHECK(out[i].ok());
          CHECK(out[i].value == static_cast<double>(i));
        }
      }
    }
  }
}
