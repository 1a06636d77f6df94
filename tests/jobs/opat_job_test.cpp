#include <aoe/jobs/opat/opat_job.hpp>
#include <aoe/jobs/simulator_backend.hpp>
#include <aoe/measure/simulator/oracle.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <string>

namespace jobs_opat_job_test {  // apart from this area's other files in a unity build

namespace fs = std::filesystem;

namespace {

// A runner over a 2-D space whose optimum depends on the operator's first dimension; the
// default configuration (0, 0) is far from it.
class FakeRunner {
 public:
  FakeRunner(std::int64_t size, std::shared_ptr<std::atomic<int>> counter,
             const std::atomic<int>* calls_before_stop = nullptr, std::atomic<bool>* stop = nullptr)
      : size_(size),
        space_({aoe::range("tile", 0, 15), aoe::range("split", 0, 7)}),
        countdown_(calls_before_stop),
        stop_(stop),
        evaluations_(std::move(counter)) {}
  bool default_is_best = false;
  [[nodiscard]] const aoe::Space& space() const { return space_; }
  [[nodiscard]] aoe::Configuration default_configuration() const { return {0, 0}; }
  [[nodiscard]] aoe::Measurement evaluate(const aoe::Configuration& c) const {
    const int n = ++*evaluations_;
    if (stop_ != nullptr && countdown_ != nullptr && n >= countdown_->load()) {
      stop_->store(true);
    }
    const double best_tile = default_is_best ? 0.0 : static_cast<double>(size_ % 16);
    const double dt = c[0] - best_tile;
    const double ds = c[1] - (default_is_best ? 0.0 : 3.0);
    return aoe::Measurement::success(1e-5 * (1.0 + 0.05 * dt * dt + 0.1 * ds * ds), {}, 1e-5);
  }

 private:
  std::int64_t size_;
  aoe::Space space_;
  const std::atomic<int>* countdown_;
  std::atomic<bool>* stop_;
  std::shared_ptr<std::atomic<int>> evaluations_;  // shared by the job's runners
};

struct FakeBackend {
  const std::atomic<int>* countdown = nullptr;
  std::atomic<bool>* stop = nullptr;
  std::shared_ptr<std::atomic<int>> counter = std::make_shared<std::atomic<int>>(0);
  bool default_is_best = false;
  aoe::Result<FakeRunner> create(const aoe::OperatorDesc& op, aoe::KnowledgeKind /*kind*/) {
    if (op.type.find("Unknown") != std::string::npos) {
      return aoe::make_error(aoe::Errc::unsupported,
                             "unknown operator type '" + op.type + "' (" + op.name + ")");
    }
    FakeRunner r(op.outputs[0].shape[0], counter, countdown, stop);
    r.default_is_best = default_is_best;
    return r;
  }
};

// FakeBackend with a timing(): simulated (a model, as the simulator) or measured (a device).
struct TimedBackend : FakeBackend {
  aoe::Timing device;
  [[nodiscard]] aoe::Timing timing() const { return device; }
};

TimedBackend simulated_backend() {
  return TimedBackend{{}, {aoe::TimingKind::simulated, "the fake timing model 1"}};
}
TimedBackend measuring_backend() {
  return TimedBackend{{}, {aoe::TimingKind::measured, "the fake device 0"}};
}

std::string model(const std::string& extra_type = "Relu") {
  return R"({"format_version": 1, "name": "fake",
    "tensors": {"a": {"shape": [5, 4], "dtype": "float16"}, "b": {"shape": [5, 4], "dtype": "float16"},
                "w": {"shape": [4, 9], "dtype": "float16"}, "c": {"shape": [5, 9], "dtype": "float16"},
                "d": {"shape": [5, 9], "dtype": "float16"}, "e": {"shape": [5, 9], "dtype": "float16"},
                "w2": {"shape": [9, 9], "dtype": "float16"}, "f": {"shape": [5, 9], "dtype": "float16"}},
    "nodes": [{"name": "r0", "type": "Relu", "inputs": ["a"], "outputs": ["b"]},
              {"name": "mm", "type": "MatMul", "inputs": ["b", "w"], "outputs": ["c"]},
              {"name": "x", "type": ")" +
         extra_type + R"(", "inputs": ["c"], "outputs": ["d"]},
              {"name": "mm2", "type": "MatMul", "inputs": ["d", "w2"], "outputs": ["e"]},
              {"name": "mm3", "type": "MatMul", "inputs": ["d", "w2"], "outputs": ["f"]}]})";
}

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& tag)
      : path(fs::temp_directory_path() /
             ("aoe_job_test_" + tag + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

boost::json::object read_json(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return boost::json::parse(s.str()).as_object();
}

const boost::json::object& opat_section(const boost::json::object& root) {
  REQUIRE(root.size() == 1);
  const auto& entries = root.begin()->value().as_array();
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].as_object().contains("basic"));
  return entries[1].as_object().at("OPAT").as_object();
}

aoe::OpatOptions options(const fs::path& work) {
  return aoe::OpatOptions{.search = "random",
                          .budget = {.evaluations = 128, .patience = 128},
                          .seed = 3,
                          .parallel = 3,
                          .run = {.result_dir = work}};
}

}  // namespace

TEST_CASE("opat: add, then all hits, then REPEAT_TUNE re-tunes; result file in AOE's schema") {
  TempDir dir("cycle");
  const auto graph = aoe::parse_graph(model(), "fake.json");
  REQUIRE(graph.has_value());
  aoe::KnowledgeBank bank({.custom_root = dir.path / "bank"});
  FakeBackend backend;

  auto first = aoe::run_opat(*graph, backend, bank, options(dir.path / "work"));
  REQUIRE(first.has_value());
  CHECK(first->result_file.filename().string().find("aoe_result_opat_") == 0);
  CHECK(first->result_file.parent_path() == dir.path / "work");
  // r0 is a single op, mm+x (MatMul+Relu) fused, mm2 and mm3 share one key.
  REQUIRE(first->report.operators.size() == 4);
  CHECK(first->report.operators[1].op_type == "MatMul+Relu");
  CHECK(first->report.operators[1].op_name == "mmx");
  CHECK(first->report.count(aoe::OpatOutcome::add) == 3);
  CHECK(first->report.count(aoe::OpatOutcome::hit) == 1);  // mm3: mm2's entry, just written
  CHECK(first->report.result_ms() < first->report.baseline_ms());
  const auto root = read_json(first->result_file);
  const auto& opat = opat_section(root);
  CHECK(opat.at("opat_tuning_result").as_string() == "tuning successful");
  const auto& summary = opat.at("repo_summary").as_object();
  CHECK(summary.at("repo_add_num").as_int64() == 3);
  CHECK(summary.at("total_num").as_int64() == 4);
  const auto& modified = opat.at("repo_modified_operators").as_array();
  REQUIRE(modified.size() == 3);
  const auto& schedule =
      modified[0].as_object().at("tune_performance").as_object().at("Schedule").as_object();
  CHECK(schedule.at("update_mode").as_string() == "add");
  CHECK(schedule.at("performance_after_tune(us)").to_number<double>() <
        schedule.at("performance_before_tune(us)").to_number<double>());
  CHECK(opat.contains("model_baseline_performance(ms)"));
  CHECK(opat.contains("model_result_performance(ms)"));
  CHECK(fs::exists(first->tuned_model_file));
  CHECK(first->tuned_model_file.string().find("aoe_workspace/fake_") != std::string::npos);
  const auto tuned = aoe::load_graph(first->tuned_model_file);
  CHECK(tuned.has_value());

  aoe::KnowledgeBank again_bank({.custom_root = dir.path / "bank"});
  auto second = aoe::run_opat(*graph, backend, again_bank, options(dir.path / "work"));
  REQUIRE(second.has_value());
  CHECK(second->report.count(aoe::OpatOutcome::hit) == second->report.total());
  for (const auto& op : second->report.operators) CHECK(op.evaluations == 0);
  CHECK(second->report.result_ms() == doctest::Approx(first->report.result_ms()));

  auto repeat = options(dir.path / "work");
  repeat.repeat_tune = true;
  auto third = aoe::run_opat(*graph, backend, again_bank, repeat);
  REQUIRE(third.has_value());
  // Each key is re-tuned once; mm3 then uses what mm2's re-tuning left in the bank.
  CHECK(third->report.count(aoe::OpatOutcome::hit) == 1);
  CHECK(third->report.count(aoe::OpatOutcome::reserved) +
            third->report.count(aoe::OpatOutcome::update) ==
        3);
  for (std::size_t i = 0; i < 3; ++i) CHECK(third->report.operators[i].evaluations > 0);
  CHECK(third->report.operators[3].evaluations == 0);
}

TEST_CASE("opat: operators of one choice share one knowledge list, equal to the tuned model's") {
  TempDir dir("share");
  const auto graph = aoe::parse_graph(model(), "fake.json");
  REQUIRE(graph.has_value());
  aoe::KnowledgeBank bank({.custom_root = dir.path / "bank"});
  FakeBackend backend;
  for (int job = 0; job < 2; ++job) {  // tuned, then all bank hits
    CAPTURE(job);
    auto r = aoe::run_opat(*graph, backend, bank, options(dir.path / "work"));
    REQUIRE(r.has_value());
    const auto& ops = r->report.operators;
    REQUIRE(ops.size() == 4);
    // mm3 is a hit on mm2's key: the same values, one list; so is every other operator whose
    // values are equal (the fake's optimum depends on the first output dimension only).
    CHECK(ops[3].knowledge == ops[2].knowledge);
    CHECK(ops[3].knowledge.shares_with(ops[2].knowledge));
    for (const auto& a : ops) {
      for (const auto& b : ops)
        CHECK(a.knowledge.shares_with(b.knowledge) == (a.knowledge == b.knowledge));
    }
    const auto tuned = read_json(r->tuned_model_file);
    const auto& nodes = tuned.at("nodes").as_array();
    REQUIRE(nodes.size() == 5);
    for (const std::size_t n : {0, 3, 4}) {  // r0, mm2, mm3
      const auto& op = ops[n == 0 ? 0 : n - 1];
      const auto& knowledge = nodes[n].as_object().at("opat").as_object().at("knowledge");
      REQUIRE(op.knowledge.size() == 1);
      const auto& schedule = knowledge.as_object().at(op.knowledge[0].first).as_object();
      CHECK(schedule.size() == op.knowledge[0].second.size());
      for (const auto& nv : op.knowledge[0].second) {
        CHECK(schedule.at(nv.name).as_int64() == nv.value.as_integer());
      }
    }
  }
}

TEST_CASE("opat: an operator that cannot be tuned is listed and the job goes on") {
  TempDir dir("failed");
  const auto graph = aoe::parse_graph(model("UnknownOp"), "fake.json");
  REQUIRE(graph.has_value());
  aoe::KnowledgeBank bank({.custom_root = dir.path / "bank"});
  FakeBackend backend;
  auto r = aoe::run_opat(*graph, backend, bank, options(dir.path));
  REQUIRE(r.has_value());
  CHECK(r->report.count(aoe::OpatOutcome::failed) == 1);
  CHECK(r->report.total() == 4);
  const auto root = read_json(r->result_file);
  const auto& opat = opat_section(root);
  CHECK(opat.at("opat_tuning_result").as_string() == "tuning failed");
  REQUIRE(opat.contains("tuning_failed_operators"));
  CHECK(opat.at("tuning_failed_operators").as_array()[0].as_string() == "x");
}

TEST_CASE("opat: a stop request (SIGINT) ends the job cleanly with an incomplete report") {
  TempDir dir("stop");
  const auto graph = aoe::parse_graph(model(), "fake.json");
  REQUIRE(graph.has_value());
  aoe::KnowledgeBank bank({.custom_root = dir.path / "bank"});
  std::atomic<bool> stop{false};
  std::atomic<int> countdown{150};  // during the second operator's tuning
  FakeBackend backend{&countdown, &stop};
  auto opts = options(dir.path);
  opts.run.stop = &stop;
  aoe::OpatJobResult partial;
  auto r = aoe::run_opat(*graph, backend, bank, opts, &partial);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == aoe::make_error_code(aoe::Errc::interrupted));
  CHECK(partial.report.interrupted);
  CHECK(partial.report.operators.size() < 4);
  const auto root = read_json(partial.result_file);
  const auto& opat = opat_section(root);
  CHECK(opat.at("opat_tuning_result").as_string() == "tune tuning incomplete");
  CHECK_FALSE(opat.contains("model_result_performance(ms)"));
  const auto& basic = root.begin()->value().as_array()[0].as_object().at("basic").as_object();
  CHECK_FALSE(basic.contains("tuning_time(s)"));
}

TEST_CASE("opat: a corrupt bank stops the job before tuning and is left as it was") {
  TempDir dir("corrupt");
  const auto graph = aoe::parse_graph(model(), "fake.json");
  REQUIRE(graph.has_value());
  aoe::KnowledgeBank bank({.custom_root = dir.path / "bank"});
  const auto file = bank.custom_file({}, aoe::KnowledgeKind::schedule);
  fs::create_directories(file.parent_path());
  { std::ofstream(file) << "{\"schema_version\": 1, \"entries\": "; }
  FakeBackend backend;
  auto r = aoe::run_opat(*graph, backend, bank, options(dir.path));
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().message.find(file.string()) != std::string::npos);
  std::ifstream in(file);
  std::ostringstream s;
  s << in.rdbuf();
  CHECK(s.str() == "{\"schema_version\": 1, \"entries\": ");
}

TEST_CASE("opat: --tune_ops_file selection by name and by (member) type") {
  TempDir dir("select");
  const auto graph = aoe::parse_graph(model(), "fake.json");
  REQUIRE(graph.has_value());
  aoe::KnowledgeBank bank({.custom_root = dir.path / "bank"});
  FakeBackend backend;
  auto opts = options(dir.path);
  opts.tune_ops_names = {"r0"};
  opts.tune_ops_types = {"Relu"};  // also the fused MatMul+Relu
  auto r = aoe::run_opat(*graph, backend, bank, opts);
  REQUIRE(r.has_value());
  REQUIRE(r->report.operators.size() == 2);
  CHECK(r->report.operators[0].op_name == "r0");
  CHECK(r->report.operators[1].op_type == "MatMul+Relu");
}

TEST_CASE("opat: unsatisfied operators: recorded as default entries (next job hits) or not (AOE)") {
  TempDir dir("unsatisfied");
  const auto graph = aoe::parse_graph(model(), "fake.json");
  REQUIRE(graph.has_value());
  FakeBackend backend;
  backend.default_is_best = true;
  for (const bool record : {true, false}) {
    const auto bank_dir = dir.path / (record ? "recorded" : "aoe");
    auto opts = options(dir.path);
    opts.run.record_unsatisfied = record;
    aoe::KnowledgeBank bank({.custom_root = bank_dir});
    auto first = aoe::run_opat(*graph, backend, bank, opts);
    REQUIRE(first.has_value());
    CHECK(first->report.count(aoe::OpatOutcome::add) == 0);
    CHECK(first->report.count(aoe::OpatOutcome::unsatisfied) == (record ? 3 : 4));
    CHECK(opat_section(read_json(first->result_file))
              .at("repo_modified_operators")
              .as_array()
              .empty());
    aoe::KnowledgeBank again({.custom_root = bank_dir});
    auto second = aoe::run_opat(*graph, backend, again, opts);
    REQUIRE(second.has_value());
    CHECK(second->report.count(aoe::OpatOutcome::hit) == (record ? 4 : 0));
    const auto entries = again.entries({}, aoe::KnowledgeKind::schedule);
    REQUIRE(entries.has_value());
    CHECK(entries->size() == (record ? 3 : 0));
    if (record) CHECK(entries->begin()->second.provenance.policy == "default");
  }
}

namespace {

// Schedule ("tile") and Format ("fmt") that interact: alone, tile 5 takes the operator from 10
// to 6 us and fmt 1 from 10 to 8 us (a product of ratios of 4.8 us); together they take
// `together_us`. A runner's space holds the kinds it was made for, the others at default.
struct InteractingRunner {
  std::shared_ptr<const aoe::Space> space_;
  bool has_tile = false;
  bool has_fmt = false;
  double together_us = 0;
  double lucky_us = 0;  ///< > 0: tile 5 alone as the Schedule search saw it (a lucky best-of-N)
  bool energy = false;  ///< each run also draws 1 W, simulated: its joules are its seconds
  [[nodiscard]] const aoe::Space& space() const { return *space_; }
  [[nodiscard]] aoe::Configuration default_configuration() const {
    return aoe::Configuration(space_->dimensions(), 0);
  }
  [[nodiscard]] aoe::Measurement evaluate(const aoe::Configuration& c) const {
    const auto tile = has_tile ? c[0] : 0;
    const auto fmt = has_fmt ? c[has_tile ? 1 : 0] : 0;
    double us = tile == 5 ? 6.0 : 10.0;
    if (tile == 5 && lucky_us > 0 && !has_fmt) us = lucky_us;
    if (fmt == 1) us = tile == 0 ? 8.0 : (tile == 5 ? together_us : 9.0);
    auto m = aoe::Measurement::success(us * 1e-6, {}, us * 1e-6);
    if (energy) m.energy = aoe::Energy{.joules = us * 1e-6, .watts = 1.0};
    return m;
  }
};

struct InteractingBackend {
  double together_us = 0;
  double lucky_us = 0;
  bool energy = false;
  std::shared_ptr<std::atomic<int>> combined_calls = std::make_shared<std::atomic<int>>(0);
  [[nodiscard]] aoe::Result<InteractingRunner> make(bool tile, bool fmt) const {
    std::vector<aoe::Parameter> p;
    if (tile) p.push_back(aoe::range("tile", 0, 7));
    if (fmt) p.push_back(aoe::range("fmt", 0, 1));
    return InteractingRunner{
        std::make_shared<const aoe::Space>(std::move(p)), tile, fmt, together_us, lucky_us, energy};
  }
  [[nodiscard]] aoe::Result<InteractingRunner> create(const aoe::OperatorDesc& /*op*/,
                                                      aoe::KnowledgeKind kind) const {
    return make(kind == aoe::KnowledgeKind::schedule, kind == aoe::KnowledgeKind::format);
  }
  [[nodiscard]] aoe::Result<InteractingRunner> create_combined(
      const aoe::OperatorDesc& /*op*/, std::span<const aoe::KnowledgeKind> /*kinds*/) const {
    ++*combined_calls;
    return make(true, true);
  }
};

const aoe::OpatOperatorReport& single_operator_job(InteractingBackend& backend, const fs::path& dir,
                                                   aoe::OpatJobResult& out,
                                                   const aoe::OpatOptions* given = nullptr) {
  aoe::Graph g = *aoe::parse_graph(R"({"format_version": 1, "name": "one",
    "tensors": {"a": {"shape": [8, 8], "dtype": "float16"}, "b": {"shape": [8, 8], "dtype": "float16"}},
    "nodes": [{"name": "r", "type": "Relu", "inputs": ["a"], "outputs": ["b"]}]})",
                                   "one.json");
  aoe::KnowledgeBank bank({.custom_root = dir / "bank"});
  auto o = given != nullptr ? *given : options(dir / "work");
  o.search = "grid";
  o.budget = {.evaluations = 64, .patience = 64};
  o.format_tuning = true;
  auto r = aoe::run_opat(g, backend, bank, o);
  REQUIRE(r.has_value());
  out = *r;
  REQUIRE(out.report.operators.size() == 1);
  return out.report.operators[0];
}

double product_of_ratios(const aoe::OpatOperatorReport& op) {
  double us = op.default_us;
  for (const auto& k : op.kinds) us *= k.after_us / k.before_us;
  return us;
}

}  // namespace

TEST_CASE("opat: an operator's tuned time is the combined choice measured, not a product") {
  TempDir dir("combined");
  InteractingBackend backend{.together_us = 5.0};
  aoe::OpatJobResult job;
  const auto& op = single_operator_job(backend, dir.path, job);
  REQUIRE(op.kinds.size() == 2);
  CHECK(op.kinds[0].after_us == doctest::Approx(6.0));
  CHECK(op.kinds[1].after_us == doctest::Approx(8.0));
  CHECK(product_of_ratios(op) == doctest::Approx(4.8));  // what the old estimate said
  CHECK(*backend.combined_calls == 1);
  CHECK(op.result_us == doctest::Approx(5.0));  // what was measured
  CHECK(op.note.find("Schedule+Format measured together: 5.000 us") != std::string::npos);
  // The result file's model times come from the same measurement, and so does its
  // improvement: 10 / 5 - 1, where the product of ratios would say 10 / 4.8 - 1 (108.33%).
  CHECK(job.report.result_ms() == doctest::Approx(5.0e-3));
  const auto root = read_json(job.result_file);
  const auto& opat = opat_section(root);
  CHECK(opat.at("model_baseline_performance(ms)").to_number<double>() == doctest::Approx(0.01));
  CHECK(opat.at("model_result_performance(ms)").to_number<double>() == doctest::Approx(0.005));
  CHECK(opat.at("model_performance_improvement").as_string() == "100.00%");
}

TEST_CASE("opat: when the combination is slower than one kind alone, that kind is kept") {
  TempDir dir("combined_slower");
  InteractingBackend backend{.together_us = 7.0};
  aoe::OpatJobResult job;
  const auto& op = single_operator_job(backend, dir.path, job);
  CHECK(op.result_us == doctest::Approx(6.0));  // Schedule alone, measured
  CHECK(op.note.find("slower than Schedule alone; kept Schedule only (6.000 us)") !=
        std::string::npos);
  // The tuned model applies Schedule's choice and leaves Format at its default.
  const auto tuned = read_json(job.tuned_model_file);
  const std::string text = boost::json::serialize(tuned);
  CHECK(text.find("\"tile\":5") != std::string::npos);
  CHECK(text.find("\"fmt\":0") != std::string::npos);
}

TEST_CASE("opat pareto: a kind whose pick is not in use stores its default without the front") {
  // Format's pick (fmt 1) is on its front, but the operator keeps Schedule only: with
  // record_unsatisfied, Format's default is stored, and the front it was not picked from is not.
  TempDir dir("combined_pareto");
  InteractingBackend backend{.together_us = 7.0, .energy = true};
  auto o = options(dir.path / "work");
  o.objective = aoe::Objective{.kind = aoe::ObjectiveKind::pareto};
  o.run.record_unsatisfied = true;
  aoe::OpatJobResult job;
  const auto& op = single_operator_job(backend, dir.path, job, &o);
  CHECK(op.note.find("kept Schedule only") != std::string::npos);
  aoe::KnowledgeBank bank({.custom_root = dir.path / "bank"});
  const auto schedule = bank.entries({}, aoe::KnowledgeKind::schedule);
  const auto format = bank.entries({}, aoe::KnowledgeKind::format);
  REQUIRE(schedule.has_value());
  REQUIRE(format.has_value());
  REQUIRE(schedule->size() == 1);
  REQUIRE(format->size() == 1);
  const aoe::Record& kept = schedule->begin()->second;
  REQUIRE_FALSE(kept.front.empty());  // Schedule's pick, with the front it was picked from
  CHECK(kept.front.front().seconds == doctest::Approx(6e-6));
  const aoe::Record& def = format->begin()->second;
  CHECK(def.provenance.policy == "default");
  CHECK(def.front.empty());
}

TEST_CASE("opat: the combination is compared with one kind alone measured the same way") {
  // The Schedule search saw tile 5 at 4.5 us (its best of many measurements); measured once
  // more, as the combination is, it takes 6 us, and the combination (5 us) is faster.
  TempDir dir("combined_fair");
  InteractingBackend backend{.together_us = 5.0, .lucky_us = 4.5};
  aoe::OpatJobResult job;
  const auto& op = single_operator_job(backend, dir.path, job);
  REQUIRE(op.kinds.size() == 2);
  CHECK(op.kinds[0].after_us == doctest::Approx(4.5));
  CHECK(op.result_us == doctest::Approx(5.0));
  CHECK(op.note.find("Schedule+Format measured together: 5.000 us") != std::string::npos);
  CHECK(op.note.find("kept") == std::string::npos);
}

TEST_CASE("opat transfer: the default is the search's first point, measured once") {
  TempDir dir("transfer_once");
  const auto graph = aoe::parse_graph(model(), "fake.json");
  REQUIRE(graph.has_value());
  FakeBackend backend;
  auto opts = options(dir.path);
  opts.search = "annealing";
  opts.budget = {.evaluations = 12, .patience = 12};
  aoe::KnowledgeBank bank({.custom_root = dir.path / "bank"});
  auto job = aoe::run_opat(*graph, backend, bank, opts);
  REQUIRE(job.has_value());
  std::size_t evaluations = 0;
  for (const auto& op : job->report.operators) evaluations += op.evaluations;
  // Each tuned operator: the default measured once before its search, which starts from it
  // and gets its measurement back; every other trial measured once.
  CHECK(evaluations > 0);
  // A bank hit measures its default and its stored configuration, once each.
  CHECK(job->report.count(aoe::OpatOutcome::hit) == 1);
  CHECK(static_cast<std::size_t>(backend.counter->load()) == evaluations + 2);
}

TEST_CASE("opat transfer: the winner of the most similar operator in the bank is measured first") {
  TempDir dir("transfer_hint");
  const auto graph = aoe::parse_graph(model(), "fake.json");
  REQUIRE(graph.has_value());
  FakeBackend backend;
  aoe::KnowledgeBank bank({.custom_root = dir.path / "bank"});
  // A MatMul of another shape whose winner is this model's optimum (tile 5, split 3); and a
  // Relu's record, of another type, which must not be used.
  aoe::OperatorDesc other;
  other.type = "MatMul";
  other.inputs = {{{7, 4}, aoe::DataType::float16}, {{4, 9}, aoe::DataType::float16}};
  other.outputs = {{{7, 9}, aoe::DataType::float16}};
  const auto stored = bank.store({aoe::make_bank_key(other, aoe::KnowledgeKind::schedule, {}),
                                  {{"tile", 5}, {"split", 3}},
                                  1e-5,
                                  {"test", 1, "2026-01-01T00:00:00Z"}});
  REQUIRE(stored.has_value());
  auto opts = options(dir.path);
  opts.search = "annealing";
  opts.tune_ops_types = {"MatMul"};
  opts.budget = {.evaluations = 2, .patience = 2};
  auto job = aoe::run_opat(*graph, backend, bank, opts);
  REQUIRE(job.has_value());
  REQUIRE(!job->report.operators.empty());
  for (const auto& op : job->report.operators) {
    INFO(op.op_name, " ", op.op_type);
    REQUIRE(!op.kinds.empty());
    if (op.op_type != "MatMul") continue;  // MatMul+Relu: another type, no hint
    CHECK(op.kinds.front().after_us == doctest::Approx(10.0));
  }
  // Without hints, two evaluations (the default and one more) do not reach it.
  TempDir dir2("transfer_nohint");
  aoe::KnowledgeBank empty({.custom_root = dir2.path / "bank"});
  opts.run.result_dir = dir2.path;
  opts.transfer_hints = 0;
  auto cold = aoe::run_opat(*graph, backend, empty, opts);
  REQUIRE(cold.has_value());
  for (const auto& op : cold->report.operators) {
    if (op.op_type == "MatMul") CHECK(op.kinds.front().after_us > 10.5);
  }
}

TEST_CASE("opat transfer: nearest operators by type and shape; projection onto another space") {
  const auto a = aoe::detail::parse_operator_shape(
      "MatMul;in=[64,128]:float16:ND,[128,256]:float16:ND;out=[64,256]:float16:ND;attrs=;impl=x");
  const auto b = aoe::detail::parse_operator_shape(
      "MatMul;in=[64,128]:float16:ND,[128,512]:float16:ND;out=[64,512]:float16:ND;attrs=;impl=x");
  const auto c = aoe::detail::parse_operator_shape(
      "Relu;in=[64,128]:float16:ND;out=[64,128]:float16:ND;attrs=;impl=x");
  REQUIRE(a);
  REQUIRE(b);
  REQUIRE(c);
  CHECK(a->log_dims.size() == 6);
  CHECK(aoe::detail::operator_distance(*a, *a) == doctest::Approx(0.0));
  CHECK(*aoe::detail::operator_distance(*a, *b) > 0);
  CHECK(!aoe::detail::operator_distance(*a, *c));
  CHECK(!aoe::detail::parse_operator_shape("not a key"));

  aoe::detail::TransferHints hints;
  hints.add(aoe::KnowledgeKind::schedule,
            "MatMul;in=[64,128]:float16:ND,[128,4096]:float16:ND;out=[64,4096]:float16:ND;"
            "attrs=;impl=x",
            {{"tile", 1}}, true);
  hints.add(aoe::KnowledgeKind::schedule,
            "MatMul;in=[64,128]:float16:ND,[128,512]:float16:ND;out=[64,512]:float16:ND;attrs=;"
            "impl=x",
            {{"tile", 2}}, false);
  hints.add(aoe::KnowledgeKind::schedule,
            "MatMul;in=[64,128]:float16:ND,[128,512]:float16:ND;out=[64,512]:float16:ND;attrs=;"
            "impl=x",
            {{"tile", 3}}, true);
  hints.add(aoe::KnowledgeKind::schedule,
            "Relu;in=[64,128]:float16:ND;out=[64,128]:float16:ND;attrs=;impl=x", {{"tile", 4}},
            true);
  const std::string self =
      "MatMul;in=[64,128]:float16:ND,[128,256]:float16:ND;out=[64,256]:float16:ND;attrs=;impl=x";
  hints.add(aoe::KnowledgeKind::schedule, self, {{"tile", 5}}, true);
  const auto near = hints.nearest(aoe::KnowledgeKind::schedule, self, 8);
  // This SoC's nearest first, then this SoC's farther one, then the other SoC's; never the
  // operator itself nor another type.
  REQUIRE(near.size() == 3);
  CHECK(near[0].front().value.as_integer() == 3);
  CHECK(near[1].front().value.as_integer() == 1);
  CHECK(near[2].front().value.as_integer() == 2);
  CHECK(hints.nearest(aoe::KnowledgeKind::format, self, 8).empty());

  const aoe::Space space({aoe::pow2("tile", 1, 64), aoe::range("split", 0, 3)});
  const std::vector<aoe::NamedValue> values{{"tile", 24}, {"split", 7}, {"other", 1}};
  const auto p = aoe::detail::project_onto(space, values, {0, 1});
  REQUIRE(p);
  CHECK(space.value(*p, 0).as_integer() == 16);  // nearest level (16 and 32 tie: the first)
  CHECK(space.value(*p, 1).as_integer() == 3);   // nearest level of an out-of-range value
}

TEST_CASE("opat: a job's trials never call the simulator oracle (it only scores benches)") {
  TempDir dir("oracle");
  const auto graph = aoe::parse_graph(R"({"format_version": 1, "name": "mm",
    "tensors": {"a": {"shape": [256, 512], "dtype": "float16"},
                "w": {"shape": [512, 1024], "dtype": "float16"},
                "c": {"shape": [256, 1024], "dtype": "float16"}},
    "nodes": [{"name": "mm", "type": "MatMul", "inputs": ["a", "w"], "outputs": ["c"]}]})",
                                      "mm.json");
  REQUIRE(graph.has_value());
  auto soc = aoe::sim::Soc::builtin("Ascend910A");
  REQUIRE(soc.has_value());
  aoe::SimulatorBackend backend(*soc);
  const std::size_t before = aoe::sim::oracle_calls().load();
  std::optional<aoe::OpatJobResult> job;
  // The default policy ranks candidates with the analytic cost model: a model, not the oracle.
  for (const char* search : {"evolutionary", "analytic"}) {
    CAPTURE(search);
    aoe::KnowledgeBank bank({.custom_root = dir.path / search / "bank"});
    auto opts = options(dir.path / search);
    opts.scope = backend.scope();
    opts.search = search;
    opts.budget = {.evaluations = 32, .patience = 32};
    auto run = aoe::run_opat(*graph, backend, bank, opts);
    REQUIRE(run.has_value());
    CHECK(run->report.operators.front().evaluations > 0);
    CHECK(aoe::sim::oracle_calls().load() == before);
    job = std::move(*run);
  }
  // The counter does count: a scoring call, as the benches make, is seen.
  auto runner = backend.create(graph->nodes.front().to_operator(), aoe::KnowledgeKind::schedule);
  REQUIRE(runner.has_value());
  const auto best = aoe::sim::oracle(*runner);
  CHECK(aoe::sim::oracle_calls().load() == before + 1);
  CHECK(best.value * 1e6 <= job->report.operators.front().kinds.front().after_us * (1 + 1e-9));
}

TEST_CASE("opat: on a device that measures, a simulated entry is a hint, measured and replaced") {
  TempDir dir("hint");
  const auto graph = aoe::parse_graph(model(), "fake.json");
  REQUIRE(graph.has_value());
  const auto kinds_in = [&](aoe::KnowledgeBank& bank) {
    std::set<std::string> kinds;
    const auto all = bank.entries(aoe::BankScope{}, aoe::KnowledgeKind::schedule);
    REQUIRE(all.has_value());
    REQUIRE(!all->empty());
    for (const auto& [name, r] : *all) {
      kinds.insert(r.provenance.timing ? std::string(aoe::to_string(r.provenance.timing->kind))
                                       : std::string("none"));
    }
    return kinds;
  };
  auto simulator = simulated_backend();
  auto device = measuring_backend();
  aoe::KnowledgeBank bank({.custom_root = dir.path / "bank"});
  const auto sim_job = aoe::run_opat(*graph, simulator, bank, options(dir.path / "w0"));
  REQUIRE(sim_job.has_value());
  CHECK(kinds_in(bank) == std::set<std::string>{"simulated"});
  // The result file says where its times came from.
  const auto root = read_json(sim_job->result_file);
  const auto& timing = opat_section(root).at("timing").as_object();
  CHECK(timing.at("kind").as_string() == "simulated");
  CHECK(timing.at("source").as_string() == "the fake timing model 1");

  // The device measures every entry again and tunes from it: not one bank hit; every entry is
  // then the device's measurement.
  const auto first = aoe::run_opat(*graph, device, bank, options(dir.path / "w1"));
  REQUIRE(first.has_value());
  CHECK(first->report.count(aoe::OpatOutcome::hit) == 1);  // mm3: mm2's entry, just measured
  for (std::size_t i = 0; i < 3; ++i) CHECK(first->report.operators[i].evaluations > 1);
  CHECK(kinds_in(bank) == std::set<std::string>{"measured"});
  CHECK(opat_section(read_json(first->result_file)).at("timing").at("kind").as_string() ==
        "measured");

  // The measured entries are hits on the device, and used as they are on the simulator.
  for (auto* backend : {&device, &simulator}) {
    const auto again = aoe::run_opat(*graph, *backend, bank, options(dir.path / "w2"));
    REQUIRE(again.has_value());
    CHECK(again->report.count(aoe::OpatOutcome::hit) == again->report.total());
    for (const auto& op : again->report.operators) CHECK(op.evaluations == 0);
  }
  CHECK(kinds_in(bank) == std::set<std::string>{"measured"});
}

TEST_CASE("opat: a bank written before entries said simulated or measured: hints on a device") {
  TempDir dir("old_bank");
  const auto graph = aoe::parse_graph(model(), "fake.json");
  REQUIRE(graph.has_value());
  FakeBackend untimed;  // no timing(): its entries say nothing, as a bank of an earlier version
  aoe::KnowledgeBank bank({.custom_root = dir.path / "bank"});
  REQUIRE(aoe::run_opat(*graph, untimed, bank, options(dir.path / "w0")).has_value());
  const auto old = bank.entries(aoe::BankScope{}, aoe::KnowledgeKind::schedule);
  REQUIRE(old.has_value());
  for (const auto& [name, r] : *old) CHECK_FALSE(r.provenance.timing.has_value());
  // On the simulator such an entry is used as before: a hit.
  auto simulator = simulated_backend();
  const auto sim_job = aoe::run_opat(*graph, simulator, bank, options(dir.path / "w1"));
  REQUIRE(sim_job.has_value());
  CHECK(sim_job->report.count(aoe::OpatOutcome::hit) == sim_job->report.total());
  // On a device it is a hint, as a simulated entry.
  auto device = measuring_backend();
  const auto dev_job = aoe::run_opat(*graph, device, bank, options(dir.path / "w2"));
  REQUIRE(dev_job.has_value());
  CHECK(dev_job->report.count(aoe::OpatOutcome::hit) == 1);  // mm3 after mm2
  const auto now = bank.entries(aoe::BankScope{}, aoe::KnowledgeKind::schedule);
  REQUIRE(now.has_value());
  for (const auto& [name, r] : *now) {
    CAPTURE(name);
    REQUIRE(r.provenance.timing.has_value());
    CHECK(r.provenance.timing->measured());
  }
}

TEST_CASE("opat: a stale bank record (its configuration not in the space) is replaced, then hit") {
  TempDir dir("stale");
  const auto graph = aoe::parse_graph(model(), "fake.json");
  REQUIRE(graph.has_value());
  FakeBackend backend;
  aoe::KnowledgeBank fresh({.custom_root = dir.path / "fresh"});
  REQUIRE(aoe::run_opat(*graph, backend, fresh, options(dir.path / "w0")).has_value());
  const auto tuned = fresh.entries(aoe::BankScope{}, aoe::KnowledgeKind::schedule);
  REQUIRE(tuned.has_value());
  REQUIRE(!tuned->empty());
  // Another version wrote every key with a parameter this space does not have, and a time
  // faster than anything the job can find: without replace, its result would be `kept`.
  aoe::KnowledgeBank bank({.custom_root = dir.path / "bank"});
  std::size_t written = 0;
  for (const auto& f : aoe::fuse(*graph)) {
    const aoe::Record stale{
        aoe::make_bank_key(f.op, aoe::KnowledgeKind::schedule, {}, "high_performance"),
        {{"retired_parameter", aoe::Value(1)}},
        1e-12,
        {"evolutionary", 10, "2025-01-01T00:00:00Z"}};
    if (bank.store(stale).value() == aoe::StoreOutcome::added) ++written;
  }
  REQUIRE(written == tuned->size());
  const auto first = aoe::run_opat(*graph, backend, bank, options(dir.path / "w1"));
  REQUIRE(first.has_value());
  CHECK(first->report.count(aoe::OpatOutcome::hit) < first->report.total());
  const auto replaced = bank.entries(aoe::BankScope{}, aoe::KnowledgeKind::schedule);
  REQUIRE(replaced.has_value());
  for (const auto& [name, r] : *replaced) {
    CAPTURE(name);
    CHECK(r.configuration != std::vector<aoe::NamedValue>{{"retired_parameter", aoe::Value(1)}});
    CHECK(r.value > 1e-12);
  }
  aoe::KnowledgeBank again({.custom_root = dir.path / "bank"});
  const auto second = aoe::run_opat(*graph, backend, again, options(dir.path / "w2"));
  REQUIRE(second.has_value());
  CHECK(second->report.count(aoe::OpatOutcome::hit) == second->report.total());
  for (const auto& op : second->report.operators) CHECK(op.evaluations == 0);
}

}  // namespace jobs_opat_job_test
