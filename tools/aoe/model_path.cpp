// `aoe --model_path=DIR`: see model_path.hpp.
#include "model_path.hpp"

#include "shape_profiles.hpp"
#include "single_op.hpp"
#include <aoe/io/read_input.hpp>
#include <aoe/jobs/result_file.hpp>

#include <boost/json/parse.hpp>

#include <algorithm>
#include <chrono>
#include <ostream>
#include <system_error>
#include <thread>

namespace aoe_tool {

aoe::Result<void> merge_result_file(const std::filesystem::path& own, SharedResultFile& shared) {
  auto text = aoe::detail::read_input_file(own, "the result file this job wrote");
  if (!text) return text.error();
  std::error_code ec;
  const boost::json::value parsed = boost::json::parse(*text, ec);
  if (ec || !parsed.is_object()) {
    return aoe::make_error(aoe::Errc::parse_error, own.string() + ": not the result file's JSON");
  }
  for (const auto& entry : parsed.as_object()) {
    shared.reports[entry.key()] = entry.value();
    if (entry.key().starts_with("report_")) {
      shared.last_timestamp = std::string(entry.key().substr(7, 18));  // YYYYMMDD_HHMMSSMS
    }
  }
  if (shared.file.empty()) {
    shared.file = own;
    return {};
  }
  if (auto w = aoe::detail::write_result_file(shared.reports, shared.file, true); !w) return w;
  std::filesystem::remove(own, ec);
  if (ec) {
    return aoe::make_error(aoe::Errc::io_error, own.string() + ": cannot remove (merged into " +
                                                    shared.file.string() + "): " + ec.message());
  }
  return {};
}

aoe::Result<std::vector<std::filesystem::path>> models_of(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return aoe::make_error(aoe::Errc::not_found,
                           "--model_path=" + dir.string() + ": expected a directory of models");
  }
  std::vector<std::filesystem::path> models;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto ext = it->path().extension();
    if ((ext == ".json" || ext == ".onnx") && it->is_regular_file(ec)) {
      models.push_back(it->path());
    }
  }
  if (ec) {
    return aoe::make_error(aoe::Errc::io_error,
                           "--model_path=" + dir.string() + ": cannot list: " + ec.message());
  }
  if (models.empty()) {
    return aoe::make_error(aoe::Errc::not_found,
                           "--model_path=" + dir.string() + ": no model (*.json, *.onnx) in it");
  }
  std::sort(models.begin(), models.end());
  return models;
}

int run_in_one_job(std::size_t count,
                   const std::function<int(std::size_t, SharedResultFile&)>& run_one) {
  SharedResultFile shared;
  int code = exit_success;
  for (std::size_t i = 0; i < count; ++i) {
    // Two reports of one file are told apart by their timestamp (milliseconds).
    while (!shared.last_timestamp.empty() && aoe::aoe_timestamp() == shared.last_timestamp) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    const int c = run_one(i, shared);
    if (c != exit_success && c != exit_ops_failed) return c;
    if (c == exit_ops_failed) code = c;
  }
  return code;
}

int run_model_path_command(const CommonOptions& common, const OpatFlags& flags,
                           const aoe::Environment& env, const aoe::sim::Soc& soc, const Io& io) {
  const auto models = models_of(common.model_path);
  if (!models) {
    io.err << "aoe: " << console_text(models.error().message, true) << "\n";
    return exit_input;
  }
  if (common.verbosity() >= 2) {
    io.out << "aoe: --model_path " << console_text(common.model_path) << ": " << models->size()
           << " models, one bank\n";
  }
  return run_in_one_job(models->size(), [&](std::size_t i, SharedResultFile& shared) {
    CommonOptions one = common;
    one.model = (*models)[i].string();
    one.model_path.clear();
    return run_opat_command(one, flags, env, soc, io, &shared);
  });
}

int run_opat_job(const CommonOptions& common, const OpatFlags& flags, const aoe::Environment& env,
                 const aoe::sim::Soc& soc, const Io& io) {
  if (!common.singleop.empty()) return run_single_op_command(common, flags, env, soc, io);
  if (!profile_flag(common).empty()) {
    return run_shape_profiles_command(common, flags, env, soc, io);
  }
  if (!common.model_path.empty()) return run_model_path_command(common, flags, env, soc, io);
  return run_opat_command(common, flags, env, soc, io);
}

}  // namespace aoe_tool
