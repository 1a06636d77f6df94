// Transfer across devices (docs/transfer.md): a kernel tuned on two devices starts from their
// winners on a third. The "kernel" is an analytic cost (instant and deterministic) whose best
// tile moves a little from device to device, as a real kernel's does with cache sizes; the
// figures it prints are that cost, not measurements.
#include <aoe/search/simulated_annealing.hpp>
#include <aoe/tuner/memory_repository.hpp>
#include <aoe/tuner/stop_conditions.hpp>
#include <aoe/tuner/tuner.hpp>

#include <cmath>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

namespace {

// A device whose best tile is (best_x, best_y) on a 256 x 256 grid of tile sizes.
struct Device {
  std::string name;
  int best_x = 0;
  int best_y = 0;
};

// The analytic cost of a configuration on `device`: 1 at its best tile, rising to 1.5 within
// about 10 tiles of it, and flat beyond: far from the best, nothing points the way.
struct AnalyticKernel {
  Device device;
  std::vector<aoe::Measurement> measure(aoe::SpaceView view,
                                        std::span<const aoe::Configuration> batch) const {
    std::vector<aoe::Measurement> out;
    for (const auto& c : batch) {
      const double dx = view.space().numeric(c, 0) - device.best_x;
      const double dy = view.space().numeric(c, 1) - device.best_y;
      out.push_back(
          aoe::Measurement::success(1.0 + 0.5 * (1 - std::exp(-(dx * dx + dy * dy) / 50))));
    }
    return out;
  }
};

// Evaluations until the run first reached `target`, or 0 when it never did.
std::size_t evaluations_to(const aoe::TuningResult& r, double target) {
  for (const auto& t : r.history) {
    if (t.measurement.ok() && t.measurement.value <= target) return t.evaluation;
  }
  return 0;
}

}  // namespace

int main() {
  const aoe::Space space({aoe::range("tile_x", 0, 255), aoe::range("tile_y", 0, 255)});
  const std::string problem = "stencil/n=4096";
  using Tuner = aoe::Tuner<aoe::SimulatedAnnealing<>, AnalyticKernel, aoe::MemoryRepository>;

  // Two devices tuned before: their winners land in the repository.
  aoe::MemoryRepository repo;
  for (const Device& d : {Device{"gpu-a", 160, 88}, Device{"gpu-b", 162, 86}}) {
    Tuner tuner(aoe::SimulatedAnnealing<>(), AnalyticKernel{d}, std::move(repo));
    const auto r = tuner.tune(space, aoe::TuningKey{problem, d.name}, aoe::MaxEvaluations{400});
    std::printf("%s: tuned, best cost %.4f after %zu evaluations\n", d.name.c_str(), r.best_value,
                r.history.size());
    repo = std::move(tuner.repository());
  }

  // A new device, with and without transfer (TunerOptions::transfer, on by default).
  const Device target{"gpu-c", 161, 87};
  for (const bool transfer : {false, true}) {
    aoe::TunerOptions options;
    options.transfer.enabled = transfer;
    Tuner tuner(aoe::SimulatedAnnealing<>(), AnalyticKernel{target}, repo, options);
    const auto r = tuner.tune(space, aoe::TuningKey{problem, target.name}, aoe::MaxEvaluations{25});
    const std::size_t within = evaluations_to(r, 1.02);
    std::printf("%s, transfer %s: best cost %.4f in 25 evaluations, within 2%% of the optimum %s",
                target.name.c_str(), transfer ? "on " : "off", r.best_value,
                within == 0 ? "never" : ("after " + std::to_string(within)).c_str());
    if (transfer) {
      std::printf("; %zu seeds from", r.transfer.seeds);
      for (const auto& s : r.transfer.sources) {
        std::printf(" %s (weight %.2f)", s.device.c_str(), s.weight);
      }
    }
    std::printf("\n");
    if (transfer && r.transfer.seeds == 0) {
      std::fprintf(stderr, "transfer_tuning: expected seeds from gpu-a and gpu-b\n");
      return 1;
    }
  }
  return 0;
}
