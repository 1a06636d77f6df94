// The tests' CSV reader: RFC 4180 rows of a CSV text (quoted fields may hold commas, newlines
// and doubled quotes); a last line without its newline is dropped, as a truncated row.
#ifndef AOE_TESTS_SUPPORT_CSV_HPP
#define AOE_TESTS_SUPPORT_CSV_HPP

#include <cstddef>
#include <string>
#include <vector>

namespace aoe::test {

using CsvTable = std::vector<std::vector<std::string>>;

inline CsvTable parse_csv(const std::string& text) {
  CsvTable rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(field);
      field.clear();
    } else if (c == '\n') {
      row.push_back(field);
      field.clear();
      rows.push_back(row);
      row.clear();
    } else {
      field += c;
    }
  }
  return rows;
}

}  // namespace aoe::test

#endif  // AOE_TESTS_SUPPORT_CSV_HPP
