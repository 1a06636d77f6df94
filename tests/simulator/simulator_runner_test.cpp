// Runner<device::Simulator>: creation errors, spaces per knowledge kind, compile failures,
// determinism, noise, cost and the default heuristic.
#include "aoe/measure/simulator/simulator_runner.hpp"

#include "aoe/measure/simulator/workloads.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace simulator_simulator_runner_test {  // apart from this area's other files in a unity build

namespace {

using aoe::DataType;
using aoe::Format;
using aoe::OperatorDesc;
using aoe::TensorDesc;
using Sim = aoe::Runner<aoe::device::Simulator>;

aoe::sim::Soc soc(const char* name = "Ascend910A") { return aoe::sim::Soc::builtin(name).value(); }

OperatorDesc matmul(std::int64_t m, std::int64_t k, std::int64_t n, Format f = Format::ND) {
  OperatorDesc op;
  op.type = "MatMul";
  op.name = "mm";
  op.inputs = {{{m, k}, DataType::float16, f}, {{k, n}, DataType::float16, f}};
  op.outputs = {{{m, n}, DataType::float16, f}};
  return op;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("create rejects what the simulator cannot model, naming the operator") {
  SUBCASE("unknown type") {
    OperatorDesc op = matmul(64, 64, 64);
    op.type = "FancyOp";
    op.name = "layer7";
    const auto r = Sim::create(soc(), op);
    REQUIRE(r.has_error());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::unsupported));
    CHECK(contains(r.error().message, "layer7"));
    CHECK(contains(r.error().message, "FancyOp"));
  }
  SUBCASE("dynamic dimension") {
    OperatorDesc op = matmul(64, 64, 64);
    op.inputs[0].shape[0] = -1;
    const auto r = Sim::create(soc(), op);
    REQUIRE(r.has_error());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::invalid_argument));
    CHECK(contains(r.error().message, "'mm' (MatMul)"));
    CHECK(contains(r.error().message, "dynamic"));
  }
  SUBCASE("non-positive dimension") {
    OperatorDesc op = matmul(64, 64, 64);
    op.inputs[1].shape[1] = 0;
    const auto r = Sim::create(soc(), op);
    REQUIRE(r.has_error());
    CHECK(contains(r.error().message, "non-positive"));
  }
  SUBCASE("inconsistent shapes") {
    OperatorDesc op = matmul(64, 64, 64);
    op.inputs[1].shape = {32, 64};
    const auto r = Sim::create(soc(), op);
    REQUIRE(r.has_error());
    CHECK(contains(r.error().message, "inconsistent"));
    OperatorDesc conv = aoe::sim::workloads::resnet50_convolutions(2)[1];
    conv.outputs[0].shape[1] = 65;
    const auto rc = Sim::create(soc(), conv);
    REQUIRE(rc.has_error());
    CHECK(contains(rc.error().message, conv.name));
    CHECK(contains(rc.error().message, "inconsistent"));
  }
  SUBCASE("an element count that overflows 64 bits (was SIGFPE)") {
    OperatorDesc op = matmul(64, 64, 64);
    op.inputs[0].shape = {4294967296, 4294967296};
    const auto r = Sim::create(soc(), op);
    REQUIRE(r.has_error());
    CHECK(contains(r.error().message, "input 0: the element count overflows a 64-bit integer"));
    op.inputs[0].shape = {9223372036854775807};
    CHECK(contains(Sim::create(soc(), op).error().message, "over the size limit of 2^40 bytes"));
  }
  SUBCASE("attributes out of range: begin_norm_axis, axes, huge values, negative pads") {
    OperatorDesc ln;
    ln.type = "LayerNorm";
    ln.name = "ln";
    ln.inputs = {{{8, 256}, DataType::float16, Format::ND}};
    ln.outputs = ln.inputs;
    ln.attributes["begin_norm_axis"] = std::int64_t{100};
    auto r = Sim::create(soc(), ln);
    REQUIRE(r.has_error());
    CHECK(contains(r.error().message,
                   "attribute 'begin_norm_axis' = 100 is out of range for a rank-2 input "
                   "(expected -2 to 1)"));
    ln.attributes["begin_norm_axis"] = std::int64_t{-1};
    CHECK(Sim::create(soc(), ln).has_value());
    ln.type = "ReduceSumD";
    ln.attributes.clear();
    ln.attributes["axes"] = std::vector<std::int64_t>{7};
    CHECK(contains(Sim::create(soc(), ln).error().message, "attribute 'axes'"));
    ln.attributes["axes"] = std::vector<std::int64_t>{std::int64_t{1} << 40};
    CHECK(
        contains(Sim::create(soc(), ln).error().message, "is out of range (expected at most 2^24"));
    OperatorDesc conv = aoe::sim::workloads::resnet50_convolutions(2)[1];
    conv.attributes["pads"] = std::vector<std::int64_t>{-4, 0, 0, 0};
    CHECK(contains(Sim::create(soc(), conv).error().message, "'pads' must be non-negative"));
  }
  SUBCASE("a fused member that is not elementwise") {
    OperatorDesc op = matmul(64, 64, 64);
    op.type = "MatMul+Conv2D";
    const auto r = Sim::create(soc(), op);
    REQUIRE(r.has_error());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::unsupported));
  }
}

TEST_CASE("the space holds exactly the parameters of the requested knowledge kinds") {
  const OperatorDesc op = matmul(1024, 1024, 1024);
  const auto schedule = Sim::create(soc(), op).value();
  CHECK(schedule.space().index_of("m_l0").has_value());
  CHECK(schedule.space().index_of("db_l1").has_value());
  CHECK_FALSE(schedule.space().index_of("format").has_value());

  const auto format = Sim::create(soc(), op, {.knowledge = {aoe::sim::Knowledge::format}}).value();
  CHECK(format.space().dimensions() == 1);
  CHECK(format.space().index_of("format").has_value());

  OperatorDesc gelu;
  gelu.type = "Gelu";
  gelu.name = "g";
  gelu.inputs = {{{4096, 1024}, DataType::float16, Format::ND}};
  gelu.outputs = gelu.inputs;
  const auto impl = Sim::create(soc(), gelu, {.knowledge = {aoe::sim::Knowledge::impl}}).value();
  REQUIRE(impl.space().dimensions() == 1);
  CHECK(impl.space().parameter(0).name() == "impl_mode");
  // high_precision computes in fp32: never faster
  const double perf = impl.evaluate({0}).value;
  const double precise = impl.evaluate({1}).value;
  CHECK(precise > perf);
  CHECK(impl.default_configuration() == aoe::Configuration{0});

  OperatorDesc softmax = aoe::sim::workloads::bert_base_vector_operators(2, 128)[0];
  const auto all =
      Sim::create(soc(), softmax,
                  {.knowledge = {aoe::sim::Knowledge::schedule, aoe::sim::Knowledge::format,
                                 aoe::sim::Knowledge::impl}})
          .value();
  CHECK(all.space().index_of("format").has_value());
  CHECK(all.space().index_of("impl_mode").has_value());
  CHECK(all.space().index_of("ub_tile").has_value());
}

TEST_CASE("a tile that does not fit is a compile failure naming the buffer and the sizes") {
  const auto r = Sim::create(soc(), matmul(4096, 4096, 4096, Format::FRACTAL_NZ)).value();
  const auto& space = r.space();
  aoe::Configuration c = r.default_configuration();
  // 256 x 256 fp16 base blocks double-buffered need 2 x 128 KiB of L0A's 64 KiB.
  c[*space.index_of("m_l0")] = *space.parameter(*space.index_of("m_l0")).find(256);
  c[*space.index_of("k_l0")] = *space.parameter(*space.index_of("k_l0")).find(128);
  c[*space.index_of("db_l0")] = 1;
  const auto m = r.evaluate(c);
  CHECK(m.status == aoe::Status::compile);
  CHECK(contains(m.message, "L0A"));
  CHECK(contains(m.message, "131072"));
  CHECK(contains(m.message, "65536"));
  CHECK(contains(m.message, "'mm'"));
}

TEST_CASE("evaluation is deterministic, thread-safe and charges compile time") {
  const auto r =
      Sim::create(soc("Ascend910B2"), matmul(2048, 768, 3072), {.compile_seconds = 2.5}).value();
  const auto c = r.default_configuration();
  const auto a = r.evaluate(c);
  REQUIRE(a.ok());
  CHECK(a.value > 0);
  CHECK(a.cost == doctest::Approx(2.5 + a.value));
  CHECK(r.evaluate(c).value == a.value);
  std::vector<aoe::Configuration> batch;
  aoe::Rng rng(3);
  for (int i = 0; i < 200; ++i) batch.push_back(*r.space().sample(rng));
  std::vector<aoe::Measurement> first, second;
  std::thread t1([&] { first = r.measure(r.space(), batch); });
  std::thread t2([&] { second = r.measure(r.space(), batch); });
  t1.join();
  t2.join();
  REQUIRE(first.size() == batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    CHECK(first[i].status == second[i].status);
    CHECK(first[i].value == second[i].value);
  }
  static_assert(Sim::reports_device_time);
  static_assert(aoe::measure_policy<Sim>);
}

TEST_CASE("the noise model is seeded, jitters around the true time and has outliers") {
  const auto quiet = Sim::create(soc(), matmul(1024, 1024, 1024)).value();
  const double truth = quiet.evaluate(quiet.default_configuration()).value;
  const aoe::SimulatorOptions noisy{.noise = {.jitter = 0.05,
                                              .outlier_probability = 0.05,
                                              .outlier_factor = 3,
                                              .repetitions = 7,
                                              .seed = 11}};
  const auto a = Sim::create(soc(), matmul(1024, 1024, 1024), noisy).value();
  const auto b = Sim::create(soc(), matmul(1024, 1024, 1024), noisy).value();
  int outliers = 0;
  int samples = 0;
  bool varied = false;
  double previous = 0;
  for (int i = 0; i < 300; ++i) {
    const auto ma = a.evaluate(a.default_configuration());
    const auto mb = b.evaluate(b.default_configuration());
    CHECK(ma.value == mb.value);  // same seed, same order: same samples
    CHECK(ma.samples.size() == 7);
    CHECK(ma.value == doctest::Approx(truth).epsilon(0.15));
    varied = varied || (i > 0 && ma.value != previous);
    previous = ma.value;
    for (const double s : ma.samples) {
      ++samples;
      outliers += s > 2 * truth ? 1 : 0;
    }
  }
  CHECK(varied);
  const double rate = static_cast<double>(outliers) / samples;
  CHECK(rate > 0.03);
  CHECK(rate < 0.07);
}

TEST_CASE("the default heuristic is valid for every ResNet-50 and BERT-base operator") {
  std::vector<OperatorDesc> ops = aoe::sim::workloads::resnet50_convolutions(32);
  for (auto& op : aoe::sim::workloads::resnet50_other_operators(32)) ops.push_back(op);
  for (auto& op : aoe::sim::workloads::bert_base_matmuls(16, 128)) ops.push_back(op);
  for (auto& op : aoe::sim::workloads::bert_base_vector_operators(16, 128)) ops.push_back(op);
  for (const auto& name : aoe::sim::Soc::builtin_names()) {
    const auto s = soc(name.c_str());
    for (const auto& op : ops) {
      const auto r =
          Sim::create(s, op,
                      {.knowledge = {aoe::sim::Knowledge::schedule, aoe::sim::Knowledge::format,
                                     aoe::sim::Knowledge::impl}});
      REQUIRE_MESSAGE(r.has_value(), op.name);
      const auto c = r->default_configuration();
      INFO(name, " ", op.name, " ", r->space().to_string(c));
      CHECK(r->space().is_valid(c));
      const auto m = r->evaluate(c);
      CHECK_MESSAGE(m.ok(), m.message);
      CHECK(m.value > s.launch_overhead_seconds);
    }
  }
}

TEST_CASE("a calibrated SoC from JSON changes the simulated times") {
  const std::string path = "/tmp/aoe_simulator_runner_test_soc.json";
  std::ofstream(path) << R"({"base": "Ascend910A", "name": "slow-hbm", "gm_bandwidth": 0.6e12,
                             "vector_cores": 0})";
  const auto slow = aoe::sim::Soc::from_json_file(path);
  std::remove(path.c_str());
  REQUIRE(slow.has_value());
  OperatorDesc add;
  add.type = "Add";
  add.name = "add";
  const TensorDesc t{{64, 1024, 1024}, DataType::float16, Format::ND};
  add.inputs = {t, t};
  add.outputs = {t};
  const auto fast_runner = Sim::create(soc(), add).value();
  const auto slow_runner = Sim::create(*slow, add).value();
  const double fast = fast_runner.evaluate(fast_runner.default_configuration()).value;
  const double slowed = slow_runner.evaluate(slow_runner.default_configuration()).value;
  CHECK(slowed / fast == doctest::Approx(2.0).epsilon(0.05));
  CHECK(slow_runner.soc().name == "slow-hbm");
}

TEST_CASE("every operator family: the default is valid and the oracle finds something as fast") {
  std::vector<OperatorDesc> ops;
  const auto tensor = [](std::vector<std::int64_t> shape, DataType d = DataType::float16,
                         Format f = Format::ND) {
    return TensorDesc{std::move(shape), d, f};
  };
  const auto make = [&](std::string type, std::vector<TensorDesc> in, std::vector<TensorDesc> out) {
    OperatorDesc op;
    op.type = std::move(type);
    op.name = "op" + std::to_string(ops.size());
    op.inputs = std::move(in);
    op.outputs = std::move(out);
    return op;
  };
  ops.push_back(make("MatMul", {tensor({1, 1}), tensor({1, 1})}, {tensor({1, 1})}));
  auto transposed = make("MatMul", {tensor({300, 100}), tensor({70, 300})}, {tensor({100, 70})});
  transposed.attributes["transpose_a"] = true;
  transposed.attributes["transpose_b"] = true;
  ops.push_back(transposed);
  ops.push_back(make("MatMul",
                     {tensor({512, 512}, DataType::int8), tensor({512, 512}, DataType::int8)},
                     {tensor({512, 512}, DataType::int32)}));
  ops.push_back(make("MatMul",
                     {tensor({256, 256}, DataType::float32), tensor({256, 256}, DataType::float32)},
                     {tensor({256, 256}, DataType::float32)}));
  ops.push_back(
      make("BatchMatMul", {tensor({8, 128, 64}), tensor({64, 256})}, {tensor({8, 128, 256})}));
  auto nhwc = make("Conv2D+BiasAdd+Relu",
                   {tensor({2, 17, 17, 40}, DataType::float16, Format::NHWC),
                    tensor({3, 3, 40, 24}, DataType::float16, Format::HWCN), tensor({24})},
                   {tensor({2, 9, 9, 24}, DataType::float16, Format::NHWC)});
  nhwc.attributes["strides"] = std::vector<std::int64_t>{2, 2};
  nhwc.attributes["pads"] = std::vector<std::int64_t>{1, 1, 1, 1};
  nhwc.attributes["data_format"] = std::string("NHWC");
  ops.push_back(nhwc);
  auto dw = make("DepthwiseConv2D", {tensor({4, 32, 28, 28}), tensor({32, 1, 3, 3})},
                 {tensor({4, 32, 28, 28})});
  dw.attributes["pads"] = std::vector<std::int64_t>{1, 1, 1, 1};
  ops.push_back(dw);
  ops.push_back(make("ReduceMean", {tensor({64, 1000})}, {tensor({64})}));
  ops.back().attributes["axes"] = std::vector<std::int64_t>{1};
  ops.push_back(make("ReduceSum", {tensor({8, 100000})}, {tensor({8})}));
  ops.back().attributes["axes"] = std::vector<std::int64_t>{-1};
  ops.push_back(make("LayerNorm", {tensor({512, 1024}), tensor({1024}), tensor({1024})},
                     {tensor({512, 1024})}));
  ops.push_back(make("SoftmaxV2", {tensor({32, 70000})}, {tensor({32, 70000})}));
  ops.push_back(make("TransData", {tensor({1000, 30})},
                     {tensor({1000, 30}, DataType::float16, Format::FRACTAL_NZ)}));
  ops.push_back(make("Cast", {tensor({1 << 20})}, {tensor({1 << 20}, DataType::float32)}));
  ops.push_back(make("Mul+Add+Sigmoid", {tensor({1024, 768}), tensor({768}), tensor({1024, 768})},
                     {tensor({1024, 768})}));
  for (const auto& name : aoe::sim::Soc::builtin_names()) {
    for (const auto& op : ops) {
      const auto r =
          Sim::create(soc(name.c_str()), op,
                      {.knowledge = {aoe::sim::Knowledge::schedule, aoe::sim::Knowledge::format,
                                     aoe::sim::Knowledge::impl}});
      REQUIRE_MESSAGE(r.has_value(), op.type, ": ", r.has_error() ? r.error().message : "");
      INFO(name, " ", op.type, " ", r->space().to_string(r->default_configuration()));
      const auto m = r->evaluate(r->default_configuration());
      CHECK_MESSAGE(m.ok(), m.message);
      CHECK(std::isfinite(m.value));
      double best = m.value;
      aoe::Rng rng(5);
      for (int i = 0; i < 200; ++i) {
        const auto c = r->space().sample(rng);
        REQUIRE(c.has_value());
        const auto s = r->evaluate(*c);
        CHECK((s.ok() || s.status == aoe::Status::compile));
        if (s.ok()) best = std::min(best, s.value);
      }
      CHECK(best > 0);
    }
  }
}

TEST_CASE("profile: the timing model's breakdown adds up to its time, pipes inside the block") {
  std::vector<aoe::OperatorDesc> ops = aoe::sim::workloads::resnet50_convolutions();
  for (auto& o : aoe::sim::workloads::bert_base_vector_operators()) ops.push_back(o);
  for (auto& o : aoe::sim::workloads::bert_base_matmuls()) ops.push_back(o);
  for (const char* soc_name : {"Ascend910A", "Ascend910B1"}) {
    const auto soc = aoe::sim::Soc::builtin(soc_name).value();
    std::size_t profiled = 0;
    for (const auto& op : ops) {
      auto r = aoe::Runner<aoe::device::Simulator>::create(
          soc, op,
          {.knowledge = {aoe::sim::Knowledge::schedule, aoe::sim::Knowledge::format,
                         aoe::sim::Knowledge::impl}});
      REQUIRE(r.has_value());
      aoe::Rng rng(7);
      for (int i = 0; i < 40; ++i) {
        const aoe::Configuration c =
            i == 0 ? r->default_configuration() : r->space().sample_raw(rng);
        aoe::sim::detail::Profile p;
        const auto o = r->profile(c, p);
        const auto t = r->time(c);
        CHECK(o.seconds == t.seconds);  // the same computation
        if (o.buffer != aoe::sim::detail::Buffer::none) continue;
        ++profiled;
        INFO(op.name << " on " << soc_name);
        CHECK(p.seconds == t.seconds);
        CHECK(p.launch + static_cast<double>(p.waves) * p.wave + p.transdata ==
              doctest::Approx(p.seconds).epsilon(1e-9));
        CHECK(p.wave >= p.block * (1 - 1e-12));
        CHECK(p.waves >= 1);
        CHECK(p.blocks >= p.cores);
        for (const auto& s : p.pipes) {
          if (s.busy <= 0) continue;
          CHECK(s.start >= -1e-15);
          CHECK(s.end <= p.block - p.block_overhead + 1e-12 * p.block);
          CHECK(s.busy <= (s.end - s.start) * (1 + 1e-9) + 1e-15);  // a pipe does one thing
        }
      }
    }
    CHECK(profiled > 100);
  }
}

TEST_CASE(
    "measure_latency: each evaluation sleeps that long, charges nothing, bad values refused") {
  const auto plain = Sim::create(soc(), matmul(1024, 1024, 1024)).value();
  const auto slow = Sim::create(soc(), matmul(1024, 1024, 1024), {.measure_latency = 0.02}).value();
  const auto c = plain.default_configuration();
  const auto started = std::chrono::steady_clock::now();
  const auto m = slow.measure(slow.space(), std::vector<aoe::Configuration>(3, c));
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  CHECK(waited >= 3 * 0.02);  // a lower bound: sleeping never takes less
  REQUIRE(m.size() == 3);
  const auto expected = plain.evaluate(c);
  for (const auto& x : m) {
    CHECK(x.value == expected.value);
    CHECK(x.cost == expected.cost);  // device time only: the latency is wall time
  }
  for (const double bad : {-0.5, 3601.0, std::nan("")}) {
    CAPTURE(bad);
    const auto r = Sim::create(soc(), matmul(64, 64, 64), {.measure_latency = bad});
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::invalid_argument));
    CHECK(contains(r.error().message, "measure_latency"));
  }
}

}  // namespace simulator_simulator_runner_test
