// Text for XML-family documents (the HTML report, SVG plots): the one escape both use.
#ifndef AOE_EXPORT_XML_TEXT_HPP
#define AOE_EXPORT_XML_TEXT_HPP

#include <string>
#include <string_view>

namespace aoe {

/// `s` with &, <, >, " and ' escaped for text and attribute values of HTML, SVG and XML.
[[nodiscard]] inline std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace aoe

#endif  // AOE_EXPORT_XML_TEXT_HPP
