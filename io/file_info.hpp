#pragma once
/// @file What kind of pscr file a path holds, and whether an output path may be written.

#include <string>

namespace pscr::io {

enum class FileFormat { problem, solution, eigen_data };

/// @brief The kind of a pscr HDF5 file, from its root attribute `format` (a file without it is
/// taken for a hand-written problem file). Throws InputError if the file is missing, not HDF5, or
/// has another `format`.
FileFormat file_format(const std::string& path);

/// @brief Throws OutputError unless `path` can be written as an output: not a directory, not an
/// existing file unless `force`, and in an existing writable directory. Commands call it before
/// long work so that a bad output path fails at once; the writers check again.
void check_writable(const std::string& path, bool force);

}  // namespace pscr::io
