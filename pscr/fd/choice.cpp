#include "pscr/fd/choice.hpp"

#include <limits>
#include <sstream>

namespace pscr {

const char* to_string(SolverMethod method) {
  switch (method) {
    case SolverMethod::pscr:
      return "pscr";
    case SolverMethod::fast_diagonalization:
      return "fast_diagonalization";
    case SolverMethod::automatic:
      break;
  }
  return "automatic";
}

namespace fd {

namespace {

// Seconds per n³ of one dense setup dimension: zggev and the bilinear Gram–Schmidt, 8.76 s for
// two dimensions of 511 (3D Helmholtz 511³ in peers-h200.csv; 2.75 s at 361, 0.74 s at 255, so
// the model overestimates below 511). dsygvd (real, non-diagonal M) is given the same rate: an
// overestimate. The certificate (certify) adds Wᵀ M W, n³/2 multiply-adds, inside this margin.
constexpr double kDensePerCube = 3.3e-8;
// Seconds per n² of dstemr (MRRR, single-threaded): 12.3 s at n = 8192 (2D Poisson), 0.02 s per
// dimension at 511; the larger rate is used. Plus the certificate's n³/2 real multiply-adds at
// an assumed 1 GFlop/s.
constexpr double kMrrrPerSquare = 1.9e-7;
constexpr double kCertifyPerCube = 1e-9;

}  // namespace

double fd_setup_seconds(const std::vector<index_t>& shape, const std::vector<bool>& dense) {
  double s = 0;
  for (std::size_t d = 0; d + 1 < shape.size(); ++d) {
    const double n = static_cast<double>(shape[d]);
    const bool is_dense = d < dense.size() && dense[d];
    s +=
        is_dense ? kDensePerCube * n * n * n : kMrrrPerSquare * n * n + kCertifyPerCube * n * n * n;
  }
  return s;
}

std::size_t fd_device_bytes(const std::vector<index_t>& shape, std::size_t scalar_bytes,
                            index_t host_grids) {
  index_t size = 1, systems = 1, w = 0;
  for (index_t n : shape) size *= n;
  for (std::size_t d = 0; d + 1 < shape.size(); ++d) {
    systems *= shape[d];
    w += shape[d] * shape[d];
  }
  const index_t factors = 4 * (shape.back() + 1);
  return static_cast<std::size_t>((2 + host_grids) * size + w + factors + systems) * scalar_bytes +
         kCublasWorkspaceBytes + sizeof(int);
}

Choice choose_method(const ChoiceInput& in) {
  std::ostringstream why;
  const auto pscr = [&](const std::string& reason) { return Choice{SolverMethod::pscr, reason}; };
  if (in.shape.size() != 3) return pscr("2D: PSCR is as fast or faster (issue 6 measurements)");
  if (in.pscr_options)
    return pscr("options only PSCR honors are set (rounds, refinement, profile, pivoting, fused)");
  if (in.singular) return pscr("singular pure-Neumann problem: FD has no mean-zero handling");
  const index_t int_max = std::numeric_limits<int>::max();
  if (in.shape[0] * in.shape[1] > int_max || in.shape[1] * in.shape[2] > int_max)
    return pscr("grid too large for cuBLAS's int sizes");
  const double setup = fd_setup_seconds(in.shape, in.dense);
  if (setup > in.setup_budget_s) {
    why << "FD setup estimated at " << setup << " s, over the budget of " << in.setup_budget_s
        << " s";
    return pscr(why.str());
  }
  const std::size_t need = fd_device_bytes(in.shape, in.scalar_bytes, in.host_grids);
  if (static_cast<double>(need) > 0.9 * static_cast<double>(in.free_device_bytes)) {
    why << "FD needs " << static_cast<double>(need) / (1 << 20) << " MiB of device memory, "
        << static_cast<double>(in.free_device_bytes) / (1 << 20) << " MiB free (90% usable)";
    return pscr(why.str());
  }
  why << "3D: FD is faster; setup estimated at " << setup << " s";
  return Choice{SolverMethod::fast_diagonalization, why.str()};
}

}  // namespace fd
}  // namespace pscr
