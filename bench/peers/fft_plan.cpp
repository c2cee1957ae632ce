#include "bench/peers/fft_plan.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/error.hpp"

namespace pscr::peers {

namespace {

int to_int(index_t v, const char* what) {
  if (v < 1 || v > std::numeric_limits<int>::max())
    PSCR_INPUT_ERROR("fft peer: expected " << what << " in [1, " << std::numeric_limits<int>::max()
                                           << "] for cuFFT, found " << v);
  return static_cast<int>(v);
}

DstStep contiguous_step(index_t outer, index_t n) {
  DstStep s;
  s.outer = outer;
  s.n = n;
  s.len = to_int(2 * (n + 1), "a transform length");
  s.batch = to_int(outer, "a batch");
  s.istride = 1;
  s.idist = s.len;
  s.ostride = 1;
  s.odist = s.len / 2 + 1;
  return s;
}

DstStep strided_step(index_t outer, index_t n, index_t inner, DstSource source) {
  DstStep s;
  s.outer = outer;
  s.n = n;
  s.inner = inner;
  s.contiguous = false;
  s.source = source;
  s.len = to_int(2 * (n + 1), "a transform length");
  const int lines = to_int(outer * inner, "a batch");
  s.batch = lines;
  s.istride = lines;
  s.idist = 1;
  s.ostride = lines;
  s.odist = 1;
  return s;
}

/// The step h of a uniform Dirichlet Poisson factor; InputError if `f` is not one.
double uniform_step(const Factor<double>& f, int dim) {
  const index_t n = f.size();
  const double h = f.M.diag[0];
  auto close = [](double x, double ref) { return std::abs(x - ref) <= 1e-12 * std::abs(ref); };
  bool ok = h > 0;
  for (index_t i = 0; ok && i < n; ++i)
    ok = close(f.M.diag[i], h) && close(f.A.diag[i], 2.0 / h) &&
         (i + 1 == n || (f.M.off[i] == 0.0 && close(f.A.off[i], -1.0 / h)));
  if (!ok)
    PSCR_INPUT_ERROR("fft peer: expected a uniform Dirichlet Poisson factor in dimension "
                     << dim + 1 << " (A = tridiag(-1, 2, -1)/h, M = h I), found A(0, 0) = "
                     << f.A.diag[0] << ", M(0, 0) = " << h);
  return h;
}

}  // namespace

DstPipeline dst_pipeline(const std::vector<index_t>& shape) {
  if (shape.size() != 2 && shape.size() != 3)
    PSCR_INPUT_ERROR("fft peer: expected a 2D or 3D grid, found " << shape.size() << " dimensions");
  DstPipeline p;
  const index_t n1 = shape[0], n2 = shape[1];
  index_t grid = 1;
  for (index_t n : shape) grid *= n;
  if (shape.size() == 2) {
    p.steps.push_back(contiguous_step(n1, n2));
    // Input (0, i, j) of step 1: spectrum [n1][n2+2] of step 0, coefficient j at entry j + 1.
    p.steps.push_back(strided_step(1, n1, n2, {1, 0, n2 + 2, 1}));
  } else {
    const index_t n3 = shape[2];
    p.steps.push_back(contiguous_step(n1 * n2, n3));
    // Input (i, j, k) of step 1: spectrum [n1·n2][n3+2] of step 0, at (i·n2 + j)(n3+2) + k + 1.
    p.steps.push_back(strided_step(n1, n2, n3, {1, n2 * (n3 + 2), n3 + 2, 1}));
    // Input (j, i, k) of step 2: spectrum [n2+2][n1][n3] of step 1, at (j+1)·n1·n3 + i·n3 + k.
    p.steps.push_back(strided_step(n2, n1, n3, {n1 * n3, n1 * n3, n3, 1}));
  }
  const index_t n_last = shape.back();
  const index_t back = grid / n1;  // the last spectrum is [n1+2][grid/n1]: row 0 is skipped
  p.from_f = {0, n_last, 1, 0};
  p.from_spectrum = {back, n_last, 1, 0};
  p.extract_offset = back;
  for (const DstStep& s : p.steps) {
    p.ext_size = std::max(p.ext_size, 2 * (s.n + 1) * s.outer * s.inner);
    p.spec_size = std::max(p.spec_size, (s.n + 2) * s.outer * s.inner);
  }
  return p;
}

DstScaling dst_scaling(const SeparableOperator<double>& op) {
  const int dim = op.dimension();
  const auto shape = op.shape();
  DstScaling s;
  s.c = op.c();
  std::vector<std::vector<double>> lambda(dim);
  for (int d = 0; d < dim; ++d) {
    const index_t n = shape[d];
    const double h = uniform_step(op.factor(d), d);
    s.factor *= 2.0 / (static_cast<double>(n + 1) * h);
    for (index_t k = 1; k <= n; ++k) {
      const double v = std::sin(M_PI * static_cast<double>(k) / (2.0 * static_cast<double>(n + 1)));
      lambda[d].push_back(4.0 * v * v / (h * h));
    }
  }
  s.last = lambda.back();
  if (dim == 2) {
    s.lead = lambda[0];
  } else {
    for (double a : lambda[0])
      for (double b : lambda[1]) s.lead.push_back(a + b);
  }
  return s;
}

}  // namespace pscr::peers
