// ATC's shape profiles: see shape_profiles.hpp.
#include "shape_profiles.hpp"

#include "model_input.hpp"
#include "model_path.hpp"
#include <aoe/graph/input_shape.hpp>
#include <aoe/op/tensor.hpp>

#include <CLI/App.hpp>

#include <algorithm>
#include <charconv>
#include <optional>
#include <ostream>
#include <string_view>
#include <system_error>
#include <utility>

namespace aoe_tool {

namespace {

/// The three flags, in the order ATC documents them.
enum class ProfileKind { batch, image, dims };

struct ProfileFlag {
  ProfileKind kind;
  const char* name;
  std::string CommonOptions::*value;
};

constexpr ProfileFlag profile_flags[] = {
    {ProfileKind::batch, "--dynamic_batch_size", &CommonOptions::dynamic_batch_size},
    {ProfileKind::image, "--dynamic_image_size", &CommonOptions::dynamic_image_size},
    {ProfileKind::dims, "--dynamic_dims", &CommonOptions::dynamic_dims}};

/// The flags of `common` that were given.
std::vector<ProfileFlag> given_flags(const CommonOptions& common) {
  std::vector<ProfileFlag> out;
  for (const auto& f : profile_flags) {
    if (!(common.*f.value).empty()) out.push_back(f);
  }
  return out;
}

/// `text` split at each `sep` (an empty item stays, to be named as bad).
std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(sep, start);
    out.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

/// "1 size", "2 sizes".
std::string count_of(std::size_t n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

/// A size of a profile: a decimal integer in [1, max]; nothing when it is not.
std::optional<std::int64_t> parse_size(std::string_view text, std::int64_t max) {
  std::int64_t v = 0;
  const char* last = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), last, v);
  if (text.empty() || ec != std::errc() || p != last || v < 1 || v > max) return std::nullopt;
  return v;
}

/// Where the -1 of `shapes` are: (input, dimension), in the order of --input_shape.
std::vector<std::pair<std::size_t, std::size_t>> dynamic_positions(const aoe::InputShapes& shapes) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    for (std::size_t d = 0; d < shapes[i].second.size(); ++d) {
      if (shapes[i].second[d] == aoe::dynamic_dimension) out.emplace_back(i, d);
    }
  }
  return out;
}

/// Why the -1 of `shapes` are not where `kind` puts its sizes (ATC: --dynamic_batch_size fills
/// N, the first dimension; --dynamic_image_size H and W, dimensions 2 and 3 of an NCHW input,
/// ONNX's layout; --dynamic_dims any, at most max_dynamic_dims), or empty when they are.
std::string misplaced(ProfileKind kind, const aoe::InputShapes& shapes) {
  const auto positions = dynamic_positions(shapes);
  if (kind == ProfileKind::dims) {
    if (positions.size() <= max_dynamic_dims) return {};
    return std::to_string(positions.size()) + " -1 dimensions; ATC fills at most " +
           std::to_string(max_dynamic_dims) + " per profile";
  }
  for (const auto& [name, dims] : shapes) {
    const auto count = std::count(dims.begin(), dims.end(), aoe::dynamic_dimension);
    if (count == 0) continue;
    const bool fits = kind == ProfileKind::batch
                          ? count == 1 && dims.front() == aoe::dynamic_dimension
                          : dims.size() == 4 && count == 2 && dims[2] == aoe::dynamic_dimension &&
                                dims[3] == aoe::dynamic_dimension;
    if (!fits) {
      return "input '" + name + "': " +
             (kind == ProfileKind::batch
                  ? std::string("--dynamic_batch_size fills N, the first dimension, and only it")
                  : std::string("--dynamic_image_size fills H and W, dimensions 2 and 3 of a 4-D "
                                "NCHW input, both -1")) +
             "; give the sizes of other -1 with --dynamic_dims";
    }
  }
  return {};
}

/// The text of `shapes` as --input_shape writes it: "x:1,3,224,224;mask:1,128".
std::string input_shape_text(const aoe::InputShapes& shapes) {
  std::string out;
  for (const auto& [name, dims] : shapes) {
    if (!out.empty()) out += ';';
    out += name + ':';
    for (std::size_t d = 0; d < dims.size(); ++d) {
      out += (d == 0 ? "" : ",") + std::to_string(dims[d]);
    }
  }
  return out;
}

/// The profile of `sizes` (one profile of the flag `kind`): `shapes` with each -1 filled, and
/// the suffix of its model's name.
ShapeProfile filled_profile(ProfileKind kind, aoe::InputShapes shapes,
                            const std::vector<std::int64_t>& sizes) {
  std::size_t next = 0;
  for (auto& [name, dims] : shapes) {
    for (std::size_t d = 0; d < dims.size(); ++d) {
      if (dims[d] != aoe::dynamic_dimension) continue;
      if (kind == ProfileKind::batch) dims[d] = sizes[0];
      if (kind == ProfileKind::image) dims[d] = sizes[d == 2 ? 0 : 1];
      if (kind == ProfileKind::dims) dims[d] = sizes[next++];
    }
  }
  std::string suffix;
  if (kind == ProfileKind::batch) suffix = "_batch" + std::to_string(sizes[0]);
  if (kind == ProfileKind::image) {
    suffix = "_hw" + std::to_string(sizes[0]) + "x" + std::to_string(sizes[1]);
  }
  if (kind == ProfileKind::dims) {
    suffix = "_dims";
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      suffix += (k == 0 ? "" : "_") + std::to_string(sizes[k]);
    }
  }
  return {.input_shape = input_shape_text(shapes), .suffix = std::move(suffix)};
}

/// The sizes of each profile of `flag` (its text `text`), `per_profile` sizes each: checked
/// against ATC's limits and for repeats. Errors name the flag and the profile.
aoe::Result<std::vector<std::vector<std::int64_t>>> profile_sizes(const ProfileFlag& flag,
                                                                  const std::string& text,
                                                                  std::size_t per_profile) {
  const auto bad = [&](const std::string& what) {
    return aoe::make_error(aoe::Errc::invalid_argument,
                           std::string(flag.name) + "=\"" + text + "\": " + what);
  };
  const bool batch = flag.kind == ProfileKind::batch;
  const std::int64_t max = batch ? max_dynamic_batch : aoe::max_tensor_bytes;
  std::vector<std::vector<std::int64_t>> out;
  const auto items = split(text, batch ? ',' : ';');
  for (std::size_t p = 0; p < items.size(); ++p) {
    const std::string item(items[p]);
    const std::string where = "profile " + std::to_string(p + 1) + " ('" + item + "')";
    std::vector<std::int64_t> sizes;
    for (const auto s : batch ? std::vector<std::string_view>{items[p]} : split(items[p], ',')) {
      const auto v = parse_size(s, max);
      if (!v) {
        return bad(where + ": '" + std::string(s) + "' is not " +
                   (batch ? "an integer in [1, " + std::to_string(max) + "]"
                          : std::string("a positive integer")));
      }
      sizes.push_back(*v);
    }
    if (sizes.size() != per_profile) {
      return bad(where + ": " + count_of(sizes.size(), "size") + "; expected " +
                 std::to_string(per_profile) +
                 (flag.kind == ProfileKind::image ? " (h,w)" : ", one per -1 of --input_shape"));
    }
    const auto seen = std::find(out.begin(), out.end(), sizes);
    if (seen != out.end()) {
      return bad(where + " repeats profile " + std::to_string(seen - out.begin() + 1) +
                 ": expected distinct profiles");
    }
    out.push_back(std::move(sizes));
  }
  if (out.size() < min_profiles || out.size() > max_profiles) {
    return bad(count_of(out.size(), "profile") + "; ATC takes " + std::to_string(min_profiles) +
               " to " + std::to_string(max_profiles));
  }
  return out;
}

}  // namespace

void add_shape_profile_options(CLI::App& app, CommonOptions& opt) {
  add_option_rows(
      app, {{"--dynamic_batch_size", &opt.dynamic_batch_size,
             "operator tuning: batch size profiles \"1,2,4,8\" (2 to 100, each 1 to 2048) filling "
             "the N of --input_shape's -1; every profile tuned in one job"},
            {"--dynamic_image_size", &opt.dynamic_image_size,
             "operator tuning: image size profiles \"h,w;h,w\" (2 to 100) filling the H and W of "
             "--input_shape's -1 (NCHW)"},
            {"--dynamic_dims", &opt.dynamic_dims,
             "operator tuning: dimension profiles \"d0,d1;d0,d1\" (2 to 100) filling every -1 of "
             "--input_shape in order (at most 4)"}});
}

std::string profile_flag(const CommonOptions& common) {
  const auto given = given_flags(common);
  return given.empty() ? std::string() : std::string(given.front().name);
}

aoe::Result<std::vector<ShapeProfile>> shape_profiles(const CommonOptions& common) {
  const auto given = given_flags(common);
  if (given.empty()) return std::vector<ShapeProfile>{};
  const ProfileFlag& flag = given.front();
  auto shapes = aoe::parse_input_shape(common.input_shape, true);
  if (!shapes) return shapes.error();
  const auto bad = [&](const std::string& what) {
    return aoe::make_error(aoe::Errc::invalid_argument, std::string(flag.name) + ": " + what);
  };
  const auto positions = dynamic_positions(*shapes);
  if (positions.empty()) {
    return bad("--input_shape=\"" + common.input_shape +
               "\" has no -1: mark the dimensions the profiles fill with -1");
  }
  if (const auto why = misplaced(flag.kind, *shapes); !why.empty()) {
    return bad("--input_shape=\"" + common.input_shape + "\": " + why);
  }
  const std::size_t per_profile = flag.kind == ProfileKind::batch   ? 1
                                  : flag.kind == ProfileKind::image ? 2
                                                                    : positions.size();
  const auto sizes = profile_sizes(flag, common.*flag.value, per_profile);
  if (!sizes) return sizes.error();
  std::vector<ShapeProfile> out;
  out.reserve(sizes->size());
  for (const auto& s : *sizes) out.push_back(filled_profile(flag.kind, *shapes, s));
  return out;
}

int check_profile_flags(const CommonOptions& common, long ranks, std::ostream& err) {
  const auto given = given_flags(common);
  if (given.empty()) return exit_success;
  if (given.size() > 1) {
    err << "aoe: " << given[0].name << ", " << given[1].name
        << ": one of --dynamic_batch_size, --dynamic_image_size and --dynamic_dims at most "
           "(ATC's flags are mutually exclusive)\n";
    return exit_usage;
  }
  const char* why =
      common.job_type != 2
          ? "operator tuning (--job_type=2) only: OPAT tunes each profile as a model of its own; "
            "subgraph and gradient tuning take one static shape (--input_shape without -1)"
      : !common.model_path.empty() ? "with --model (one model), not --model_path"
      : common.model.empty()       ? "needs --model, the model whose --input_shape has -1"
      : !common.output.empty()
          ? "each profile's tuned model goes to the workspace, --output names one"
      : common.input_shape.empty()
          ? "needs --input_shape, with -1 for each dimension the profiles fill (ATC's rule)"
      : ranks > 1 ? "runs in one process, not as several MPI ranks (each rank reads --model)"
                  : nullptr;
  if (why != nullptr) {
    err << "aoe: " << given[0].name << ": " << why << "\n";
    return exit_usage;
  }
  if (const auto profiles = shape_profiles(common); !profiles) {
    err << "aoe: " << console_text(profiles.error().message, true) << "\n";
    return exit_usage;
  }
  return exit_success;
}

int run_shape_profiles_command(const CommonOptions& common, const OpatFlags& flags,
                               const aoe::Environment& env, const aoe::sim::Soc& soc,
                               const Io& io) {
  const auto profiles = shape_profiles(common);
  if (!profiles) {
    io.err << "aoe: " << console_text(profiles.error().message, true) << "\n";
    return exit_usage;
  }
  std::vector<aoe::Graph> graphs;
  graphs.reserve(profiles->size());
  for (const auto& p : *profiles) {
    CommonOptions one = common;
    one.input_shape = p.input_shape;
    int code = exit_usage;
    auto graph = load_model(one, io, code);
    if (!graph) return code;
    graph->name += p.suffix;
    graphs.push_back(std::move(*graph));
  }
  const std::string flag = profile_flag(common);
  if (common.verbosity() >= 2) {
    io.out << "aoe: " << flag << " " << console_text(common.*given_flags(common).front().value)
           << ": " << graphs.size() << " profiles of " << console_text(common.model)
           << ", one bank\n";
  }
  return run_in_one_job(graphs.size(), [&](std::size_t i, SharedResultFile& shared) {
    CommonOptions one = common;
    one.input_shape = (*profiles)[i].input_shape;
    return run_opat_command(one, flags, env, soc, io, &shared, &graphs[i]);
  });
}

}  // namespace aoe_tool
