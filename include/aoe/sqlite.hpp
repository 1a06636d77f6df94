// OpenAOE's SQLite tuning database (target aoe::sqlite; docs/database.md): a repository that
// keeps every trial, resumes interrupted runs and exports runs to CSV and JSON lines.
#ifndef AOE_SQLITE_HPP
#define AOE_SQLITE_HPP

#include "aoe/export/trial_table_file.hpp"
#include "aoe/repo/sqlite/export.hpp"
#include "aoe/repo/sqlite/tuning_database.hpp"

#endif  // AOE_SQLITE_HPP
