// ONNX import speed: reads each real model of ../shared/models (or the files given) several
// times with aoe::load_onnx (parse, checker, shape inference with data propagation, constant
// folding, mapping, patterns) and prints JSON:
//   {"results": [{"model", "file_bytes", "input_shape", "nodes_in_file", "graph_nodes",
//                 "fused_operators", "repetitions", "load_seconds_median", "load_seconds_min",
//                 "load_seconds_max"}]}
//
//   onnx_load_bench [--repetitions N] [MODEL.onnx INPUT_SHAPE]...
//   (default: the PaddleOCR detector at x:1,3,640,640 and classifier at x:1,3,48,192)
#include <aoe/graph/fusion.hpp>
#include <aoe/onnx.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  int repetitions = 20;
  std::vector<std::pair<std::string, std::string>> models;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--repetitions" && i + 1 < argc) {
      repetitions = std::max(1, std::atoi(argv[++i]));
    } else if (i + 1 < argc) {
      models.emplace_back(a, argv[++i]);
    } else {
      std::cerr << "usage: onnx_load_bench [--repetitions N] [MODEL.onnx INPUT_SHAPE]...\n";
      return 2;
    }
  }
  if (models.empty()) {
#ifdef AOE_SOURCE_DIR
    const fs::path dir = fs::path(AOE_SOURCE_DIR) / ".." / "shared" / "models";
#else
    const fs::path dir = fs::path("..") / "shared" / "models";
#endif
    models = {{(dir / "ch_PP-OCRv4_det_infer.onnx").string(), "x:1,3,640,640"},
              {(dir / "ch_ppocr_mobile_v2.0_cls_infer.onnx").string(), "x:1,3,48,192"}};
  }
  boost::json::array results;
  for (const auto& [file, shape] : models) {
    const auto shapes = aoe::parse_input_shape(shape);
    if (!shapes) {
      std::cerr << "onnx_load_bench: " << shapes.error().message << "\n";
      return 2;
    }
    std::ifstream in(file, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    onnx::ModelProto proto;
    if (!in || !proto.ParseFromString(ss.str())) {
      std::cerr << "onnx_load_bench: " << file << ": cannot read the model\n";
      return 3;
    }
    std::vector<double> seconds;
    std::size_t graph_nodes = 0;
    std::size_t fused = 0;
    for (int r = 0; r < repetitions; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      const auto g = aoe::load_onnx(file, {.input_shapes = *shapes, .name = ""});
      seconds.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      if (!g) {
        std::cerr << "onnx_load_bench: " << g.error().message << "\n";
        return 3;
      }
      graph_nodes = g->nodes.size();
      fused = aoe::fuse(*g).size();
    }
    std::sort(seconds.begin(), seconds.end());
    boost::json::object o;
    o["model"] = fs::path(file).filename().string();
    o["file_bytes"] = static_cast<std::int64_t>(fs::file_size(file));
    o["input_shape"] = shape;
    o["nodes_in_file"] = proto.graph().node_size();
    o["graph_nodes"] = static_cast<std::int64_t>(graph_nodes);
    o["fused_operators"] = static_cast<std::int64_t>(fused);
    o["repetitions"] = repetitions;
    o["load_seconds_median"] = seconds[seconds.size() / 2];
    o["load_seconds_min"] = seconds.front();
    o["load_seconds_max"] = seconds.back();
    results.push_back(std::move(o));
  }
  boost::json::object out;
  out["results"] = std::move(results);
  std::cout << boost::json::serialize(out) << "\n";
  return 0;
}
