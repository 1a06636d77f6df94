// A search policy of your own, plugged into aoe::Tuner: hill climbing with random restarts
// over the runtime SpaceView. It tunes an analytic landscape (deterministic and instant) and
// is compared with the exhaustive GridSearch on the same space.
#include <aoe.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numbers>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

// First-improvement hill climbing with random restarts: from a random valid point, measure
// its adjacent neighbours (one level up or down in one parameter) and move to the first that
// is better; at a local optimum (every neighbour measured, none better) restart elsewhere.
// The policy never proposes a configuration twice: `propose` must return new ones.
class HillClimbing {
 public:
  [[nodiscard]] std::string_view name() const { return "hill-climbing"; }

  void start(aoe::SpaceView view, std::uint64_t seed) {
    view_ = view;
    rng_.reseed(seed);
    current_.reset();
    visited_.clear();
  }

  [[nodiscard]] std::vector<aoe::Configuration> propose(std::size_t n) {
    std::vector<aoe::Configuration> out;
    if (current_) {
      for (auto& c : view_->neighbours(current_->configuration, aoe::Neighbourhood::adjacent)) {
        if (out.size() == n) break;
        if (!visited_.contains(c)) out.push_back(std::move(c));
      }
      if (!out.empty()) return out;
      current_.reset();  // a local optimum: restart
    }
    for (int tries = 0; tries < 1000; ++tries) {  // a random, not yet visited, valid point
      std::optional<aoe::Configuration> c = view_->sample(rng_);
      if (c && !visited_.contains(*c)) return {std::move(*c)};
    }
    return out;  // nothing new found: the tuner stops with reason "exhausted"
  }

  void observe(std::span<const aoe::Trial> trials) {
    for (const aoe::Trial& t : trials) {
      visited_.insert(t.configuration);
      if (!t.measurement.ok()) continue;  // a failed configuration is never a place to stand
      if (!current_ || t.measurement.value < current_->value) {
        current_ = Point{t.configuration, t.measurement.value};
      }
    }
  }

 private:
  struct Point {
    aoe::Configuration configuration;
    double value;
  };
  aoe::SpaceView view_;
  aoe::Rng rng_;
  std::optional<Point> current_;
  std::unordered_set<aoe::Configuration, aoe::ConfigurationHash> visited_;
};

// What the Tuner checks (its static_asserts name a missing member and link docs/concepts.md).
static_assert(aoe::search_policy<HillClimbing>);

// A measure policy that evaluates a shifted Rastrigin function: minimum 0 at x = 3, y = -5,
// log2(z) = 5, with local minima every 4 steps of x and y to trap a pure descent.
struct Rastrigin {
  std::vector<aoe::Measurement> measure(aoe::SpaceView view,
                                        std::span<const aoe::Configuration> batch) {
    std::vector<aoe::Measurement> out;
    for (const auto& c : batch) {
      const double u = (view->numeric(c, 0) - 3) / 4, v = (view->numeric(c, 1) + 5) / 4;
      const double w = std::log2(view->numeric(c, 2)) - 5;
      double f = 20 + u * u + v * v + w * w;
      f -= 10 * (std::cos(2 * std::numbers::pi * u) + std::cos(2 * std::numbers::pi * v));
      out.push_back(aoe::Measurement::success(f));
    }
    return out;
  }
};
static_assert(aoe::measure_policy<Rastrigin>);

int main() {
  const aoe::Space space(
      {aoe::range("x", -40, 40), aoe::range("y", -40, 40), aoe::pow2("z", 1, 256)},
      {aoe::sum_at_most({"x", "y"}, 40)});
  using namespace std::chrono_literals;

  aoe::Tuner<HillClimbing, Rastrigin> climber({}, {},
                                              aoe::TunerOptions{.seed = 7, .batch_size = 4});
  const auto hill = climber.tune(space, aoe::MaxEvaluations{3000} || aoe::TargetValue{1e-9});

  aoe::Tuner<aoe::GridSearch, Rastrigin> grid;
  const auto exhaustive = grid.tune(space, aoe::MaxEvaluations{1'000'000});

  std::printf("space: %.0f raw, %.0f valid configurations\n", space.size().raw, space.size().valid);
  for (const auto* r : {&hill, &exhaustive}) {
    const aoe::Trial* best = r->best_trial();
    if (best == nullptr) return 1;
    std::printf("%-14s best %.4f at %-18s found at evaluation %6zu of %6zu (%s)\n",
                std::string(r->policy).c_str(), r->best_value,
                space.to_string(best->configuration).c_str(), best->evaluation, r->history.size(),
                aoe::to_string(r->reason).data());
  }
  // The climber must reach the global optimum that grid search proves.
  return hill.best_value <= exhaustive.best_value + 1e-12 ? 0 : 1;
}
