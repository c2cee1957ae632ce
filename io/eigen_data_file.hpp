#pragma once
/// @file Eigen-data files (HDF5, schema version 1, docs/file-format.md): the eigen-data of a
/// plan (eigen_init/eigen_data.hpp), one group per dimension, tied to the factors they were
/// computed from by their size and a checksum, so that a batch job initializes once and solves
/// many times, and eigen-data are never used with other factors.

#include <cstdint>
#include <string>
#include <vector>

#include "eigen_init/eigen_data.hpp"
#include "pscr/operator.hpp"

namespace pscr::io {

/// @brief The `format_version` this code reads and writes.
inline constexpr int eigen_data_format_version = 1;

/// @brief FNV-1a (64 bit) over n as little-endian int64, then the entries of A.diag, A.off,
/// M.diag, M.off as little-endian float64 (complex: real part, then imaginary part). Identifies
/// the factor pair an eigen-data file was computed from; docs/file-format.md has it in numpy.
template <class Scalar>
std::uint64_t factor_checksum(const Factor<Scalar>& factor);

/// @brief Writes eigen-data atomically (see write_problem): group `dim<d+1>` holds
/// per_dimension[d], computed from *factors[d] (d = 0 .. per_dimension.size() − 1; one entry
/// in 2D, two in 3D). Throws InputError if the two lists differ in length, a factor's size is
/// not its partition's size, or the eigen-data are inconsistent with their partition;
/// OutputError if `path` exists and `force` is false (the message says to use --force), or the
/// file cannot be written.
template <class Scalar>
void write_eigen_data(const std::string& path, const std::vector<EigenData<Scalar>>& per_dimension,
                      const std::vector<const Factor<Scalar>*>& factors, bool force);

/// @brief Reads eigen-data for the given factors (one per stored dimension, in order) and
/// validates them: format and version; the scalar type ("real"/"complex" must match Scalar);
/// the number of dimensions, each size and each factor checksum must match `factors` (else the
/// data belong to another problem); the partition rebuilt from `n` and `radix` must match the
/// per-level block counts, every block's entry must have the block's size and component rows;
/// every value is finite. Each failure is an InputError naming the file, group, dataset or
/// attribute, what was expected and what was found. The caller checks the radix it needs
/// (EigenData::partition.radix()).
template <class Scalar>
std::vector<EigenData<Scalar>> read_eigen_data(const std::string& path,
                                               const std::vector<const Factor<Scalar>*>& factors);

/// @brief What an eigen-data file says of itself, read without the factors it belongs to (for
/// `pscr info`): the scalar type and, per dimension, the factor size, the radix and the factor
/// checksum. The data themselves are checked by read_eigen_data.
struct EigenDataHeader {
  struct Dimension {
    std::int64_t n = 0, radix = 0;
    std::uint64_t factor_checksum = 0;
  };
  std::string scalar;  ///< "real" or "complex"
  std::vector<Dimension> dimensions;
};

/// @brief Reads the header of an eigen-data file: format and version, `scalar`, `dimensions`
/// and each group's `n`, `radix` and `factor_checksum`. Throws InputError naming the file and the
/// object when one is missing or malformed.
EigenDataHeader read_eigen_data_header(const std::string& path);

}  // namespace pscr::io
