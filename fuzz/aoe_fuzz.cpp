// libFuzzer targets for every JSON input `aoe` reads (docs/reliability.md#fuzzing). One binary,
// the target chosen by AOE_FUZZ_TARGET (fuzz/run.sh sets it):
//   model           aoe::parse_graph (the JSON model loader)
//   knowledge_bank  aoe::KnowledgeBank::entries (an operator bank file)
//   graph_bank      aoe::GraphBank::entries (SGAT's JSON-lines bank)
//   gdat_bank       aoe::gdat::GradientFusionBank::records (GDAT's bank)
//   profile         aoe::gdat::parse_gradient_profile
//   cluster         aoe::gdat::parse_cluster
//   kernel_tuner    aoe::replay::load_kernel_tuner_cache (via the strict parser)
//   t4              aoe::replay::load_t4_results (via the strict parser)
// Bank readers read files: the input is written to a file under $TMPDIR first. Every target
// must return an error or a value for any input: a crash, a leak or undefined behaviour is a
// finding (ASan + UBSan).
#include <aoe/graph/loader.hpp>
#include <aoe/io/parse_json.hpp>
#include <aoe/jobs/gdat/cluster_loader.hpp>
#include <aoe/jobs/gdat/gradient_fusion_bank.hpp>
#include <aoe/jobs/gdat/profile_loader.hpp>
#include <aoe/jobs/sgat/graph_bank.hpp>
#include <aoe/measure/replay/kernel_tuner_cache.hpp>
#include <aoe/measure/replay/t4_results.hpp>
#include <aoe/repo/knowledge_bank.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace {

enum class Target {
  model,
  knowledge_bank,
  graph_bank,
  gdat_bank,
  profile,
  cluster,
  kernel_tuner,
  t4
};

constexpr std::pair<std::string_view, Target> targets[] = {
    {"model", Target::model},
    {"knowledge_bank", Target::knowledge_bank},
    {"graph_bank", Target::graph_bank},
    {"gdat_bank", Target::gdat_bank},
    {"profile", Target::profile},
    {"cluster", Target::cluster},
    {"kernel_tuner", Target::kernel_tuner},
    {"t4", Target::t4}};

Target target = Target::model;
std::filesystem::path root;  // a private directory for the bank files

void write(const std::filesystem::path& file, std::string_view data) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary | std::ios::trunc)
      .write(data.data(), static_cast<std::streamsize>(data.size()));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  const char* name = std::getenv("AOE_FUZZ_TARGET");
  const std::string t = name != nullptr ? name : "";
  const auto found = std::find_if(std::begin(targets), std::end(targets),
                                  [&t](const auto& entry) { return t == entry.first; });
  if (found == std::end(targets)) {
    std::fprintf(stderr,
                 "aoe_fuzz: set AOE_FUZZ_TARGET to model, knowledge_bank, graph_bank, gdat_bank, "
                 "profile, cluster, kernel_tuner or t4\n");
    std::exit(2);
  }
  target = found->second;
  const char* tmp = std::getenv("TMPDIR");
  root = std::filesystem::path(tmp != nullptr ? tmp : "/tmp") /
         ("aoe_fuzz_" + t + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(root);
  std::atexit([] {  // libFuzzer ends a run with exit(): the bank files go with it
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  switch (target) {
    case Target::model: {
      (void)aoe::parse_graph(text, "fuzz.json");
      break;
    }
    case Target::knowledge_bank: {
      const aoe::BankScope scope;
      aoe::KnowledgeBank bank({.custom_root = root});
      write(bank.custom_file(scope, aoe::KnowledgeKind::schedule), text);
      (void)bank.entries(scope, aoe::KnowledgeKind::schedule);
      break;
    }
    case Target::graph_bank: {
      aoe::GraphBank bank({.root = root});
      write(bank.file("Ascend910A"), text);
      (void)bank.entries("Ascend910A");
      break;
    }
    case Target::gdat_bank: {
      aoe::gdat::GradientFusionBank bank(root, "Ascend910A");
      write(bank.file(), text);
      (void)bank.records();
      break;
    }
    case Target::profile: {
      (void)aoe::gdat::parse_gradient_profile(text, "fuzz.json");
      break;
    }
    case Target::cluster: {
      (void)aoe::gdat::parse_cluster(text, "fuzz.json");
      break;
    }
    case Target::kernel_tuner:
    case Target::t4: {
      auto v = aoe::detail::parse_json(text, "fuzz.json");
      if (!v) break;
      if (target == Target::kernel_tuner) {
        (void)aoe::replay::load_kernel_tuner_cache(*v, "fuzz.json");
      } else {
        (void)aoe::replay::load_t4_results(*v, "fuzz.json");
      }
      break;
    }
  }
  return 0;
}
