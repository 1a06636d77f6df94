// aoe-bench --protocol's file (see protocol.hpp).
#include "protocol.hpp"

#include <aoe/io/parse_json.hpp>
#include <aoe/io/read_input.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <utility>

namespace aoe_bench {

namespace {

aoe::ErrorInfo bad(const std::string& path, const std::string& pointer, const std::string& what) {
  return aoe::ErrorInfo(aoe::Errc::parse_error,
                        "--protocol: " + path + ": " + pointer + ": " + what);
}

/// Member `name` of `o` as text; `where` is the object's JSON pointer.
aoe::Result<std::string> text_member(const boost::json::object& o, const char* name,
                                     const std::string& where, const std::string& path) {
  const auto* v = o.if_contains(name);
  if (v == nullptr) return bad(path, where + "/" + name, "missing");
  const auto* s = v->if_string();
  if (s == nullptr || s->empty()) return bad(path, where + "/" + name, "expected a non-empty text");
  return std::string(*s);
}

aoe::Result<std::vector<ProtocolSpace>> read_spaces(const boost::json::object& root,
                                                    const std::string& path) {
  const auto* spaces = root.if_contains("spaces");
  if (spaces == nullptr || !spaces->is_array() || spaces->as_array().empty()) {
    return bad(path, "/spaces", "expected a non-empty array of {\"file\", \"family\", \"device\"}");
  }
  std::vector<ProtocolSpace> out;
  std::set<std::string> files;
  for (std::size_t i = 0; i < spaces->as_array().size(); ++i) {
    const std::string where = "/spaces/" + std::to_string(i);
    const auto* o = spaces->as_array()[i].if_object();
    if (o == nullptr) return bad(path, where, "expected an object");
    ProtocolSpace s;
    for (auto [field, name] : {std::pair{&s.file, "file"}, std::pair{&s.family, "family"},
                               std::pair{&s.device, "device"}}) {
      auto t = text_member(*o, name, where, path);
      if (!t) return t.error();
      *field = std::move(*t);
    }
    if (!files.insert(s.file).second) {
      return bad(path, where + "/file", "'" + s.file + "' is listed twice");
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

aoe::Result<Protocol> read_protocol(const std::string& path) {
  auto text = aoe::detail::read_input_file(path, "an aoe-bench protocol, docs/research.md");
  if (!text) return text.error();
  auto parsed = aoe::detail::parse_json(*text, path);
  if (!parsed) return parsed.error();
  const auto* root = parsed->if_object();
  if (root == nullptr) return bad(path, "/", "expected a JSON object");
  Protocol p;
  p.path = path;
  auto family = text_member(*root, "held_out_family", "", path);
  if (!family) return family.error();
  auto device = text_member(*root, "held_out_device", "", path);
  if (!device) return device.error();
  auto spaces = read_spaces(*root, path);
  if (!spaces) return spaces.error();
  p.held_out_family = std::move(*family);
  p.held_out_device = std::move(*device);
  p.spaces = std::move(*spaces);
  const auto any = [&](auto pred) { return std::any_of(p.spaces.begin(), p.spaces.end(), pred); };
  if (!any([&](const ProtocolSpace& s) { return s.family == p.held_out_family; })) {
    return bad(path, "/held_out_family", "no space is of family '" + p.held_out_family + "'");
  }
  if (!any([&](const ProtocolSpace& s) { return s.device == p.held_out_device; })) {
    return bad(path, "/held_out_device", "no space is on device '" + p.held_out_device + "'");
  }
  if (!any([&](const ProtocolSpace& s) { return !p.held_out(s); })) {
    return bad(path, "/spaces", "every space is held out: the tuning part would be empty");
  }
  return p;
}

}  // namespace aoe_bench
