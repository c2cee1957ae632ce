#pragma once
/// @file A problem as the program holds it in memory: the operator, the right-hand sides and,
/// when known, the exact solutions and how the problem was generated. io/ reads and writes it;
/// problems/generate.hpp builds it.

#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/scalar.hpp"
#include "pscr/operator.hpp"

namespace pscr {

/// @brief How a problem was generated, kept so that it can be regenerated (io/ stores it in the
/// file's optional `generator` group). Mesh steps are kept per dimension.
struct GeneratorRecord {
  std::string description;                 ///< the generator's parameters, as `key=value` text
  std::vector<std::vector<double>> steps;  ///< mesh steps h per dimension (may be empty)
};

/// @brief A problem: A u = f for `nrhs` right-hand sides.
/// `f` and `u_exact` hold nrhs grids one after another, each C order with shape op.shape().
template <class Scalar>
struct Problem {
  SeparableOperator<Scalar> op;
  index_t nrhs = 1;
  /// True when the file stores f with a leading right-hand-side axis (nrhs, n1, n2[, n3]),
  /// false for a single (n1, n2[, n3]) grid; the solution is written with the same shape.
  bool batched = false;
  std::vector<Scalar> f;
  std::vector<Scalar> u_exact;  ///< empty, or the manufactured solution (same size as f)
  std::optional<GeneratorRecord> generator;

  const Scalar* rhs(index_t k) const { return f.data() + k * op.grid_size(); }
};

/// @brief A real or a complex problem, as read from a file.
using AnyProblem = std::variant<Problem<double>, Problem<std::complex<double>>>;

}  // namespace pscr
