// JSON text to a value, with a syntax error that names `source:line:column` and says when the
// text looks truncated: shared by the model loader and the inputs of the jobs.
#ifndef AOE_GRAPH_DETAIL_PARSE_JSON_HPP
#define AOE_GRAPH_DETAIL_PARSE_JSON_HPP

#include "aoe/core/error.hpp"

#include <boost/json/stream_parser.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace aoe::detail {

/// Parses JSON text; a syntax error names `source:line:column`.
[[nodiscard]] inline Result<boost::json::value> parse_json(std::string_view text,
                                                           std::string_view source) {
  boost::json::stream_parser p;
  boost::system::error_code ec;
  const std::size_t used = p.write(text.data(), text.size(), ec);
  if (!ec) p.finish(ec);
  if (ec) {
    const std::size_t at = used < text.size() ? used : text.size();
    std::size_t line = 1;
    std::size_t column = 1;
    for (std::size_t i = 0; i < at; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return make_error(Errc::parse_error,
                      std::string(source) + ":" + std::to_string(line) + ":" +
                          std::to_string(column) + ": expected well-formed JSON (" + ec.message() +
                          (at >= text.size() ? "; the file looks truncated" : "") + ")");
  }
  return p.release();
}

}  // namespace aoe::detail

#endif  // AOE_GRAPH_DETAIL_PARSE_JSON_HPP
