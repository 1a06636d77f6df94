// aoe::write_table_file: a TrialTable written to a file atomically (docs/database.md#export).
// Apart from trial_table.hpp so that <aoe.hpp> does not parse <filesystem>; <aoe/sqlite.hpp>
// includes it.
#ifndef AOE_EXPORT_TRIAL_TABLE_FILE_HPP
#define AOE_EXPORT_TRIAL_TABLE_FILE_HPP

#include "aoe/core/error.hpp"
#include "aoe/export/trial_table.hpp"
#include "aoe/io/atomic_file.hpp"

#include <filesystem>
#include <sstream>

namespace aoe {

/// Writes `table` to `file` as `format`, atomically (aoe::write_file_atomically: the file is
/// the old one or the complete new one, never half-written); the error names the file.
[[nodiscard]] inline Result<void> write_table_file(const TrialTable& table,
                                                   const std::filesystem::path& file,
                                                   TableFormat format) {
  std::ostringstream out;
  table.write(out, format);
  return write_file_atomically(file, out.str());
}

}  // namespace aoe

#endif  // AOE_EXPORT_TRIAL_TABLE_FILE_HPP
