// Crawford's reduction and implicit QL with tracked rows (declarations in reduction.hpp).
#include "eigen_init/reduction.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <sstream>

#include "common/error.hpp"

namespace pscr::eigen_detail {

namespace {

/// |Re x| + |Im x|: a norm within a factor √2 of |x|, without hypot.
template <class Scalar>
real_t<Scalar> abs1(const Scalar& x) {
  if constexpr (is_complex_v<Scalar>) {
    return std::abs(x.real()) + std::abs(x.imag());
  } else {
    return std::abs(x);
  }
}

/// Principal square root of a complex number of moderate size (|z|² must not overflow, which
/// holds for the scaled arguments here): libm's csqrt guards the range with hypot, which
/// dominated the complex reduction.
inline std::complex<double> sqrt_moderate(const std::complex<double>& z) {
  const double x = z.real(), y = z.imag();
  const double r = std::sqrt(x * x + y * y);
  if (r == 0) return {0.0, 0.0};
  const double t = std::sqrt((r + std::abs(x)) / 2);
  if (x >= 0) return {t, y / (2 * t)};
  return {std::abs(y) / (2 * t), std::copysign(t, y)};
}

/// Largest |c|² + |s|² accepted for a complex orthogonal rotation (the factor by which it can
/// amplify rounding errors): beyond it the pencil is treated as near-defective. The complex
/// path uses these stages for eigenvalue estimates only, which inverse iteration then refines
/// and checks on the pencil itself, so the limits only stop a breakdown: Crawford's reduction
/// (whose transformation is also the pencil's scaling) 1e6, implicit QL 1e10.
constexpr double kMaxGrowthCrawford = 1e6;
constexpr double kMaxGrowthQL = 1e10;

/// The rotation G = [c −s; s c], c = f/r, s = g/r, r = √(f² + g²): Gᵀ maps (f, g) to (r, 0)
/// (c f + s g = r, −s f + c g = 0). Plain squares, so c² + s² = 1 also for complex values.
template <class Scalar>
struct Rotation {
  Scalar c, s, r;
};

template <class Scalar>
Rotation<Scalar> make_rotation(const Scalar& f, const Scalar& g, const char* where,
                               double max_growth) {
  if constexpr (is_complex_v<Scalar>) {
    const real_t<Scalar> scale = std::max(abs1(f), abs1(g));
    if (scale == 0) return {Scalar(1), Scalar(0), Scalar(0)};
    const Scalar fs = f / scale, gs = g / scale;
    const Scalar rs = sqrt_moderate(fs * fs + gs * gs);
    const real_t<Scalar> rs2 = std::norm(rs);
    if (!(rs2 * max_growth >= std::norm(fs) + std::norm(gs))) {
      std::ostringstream msg;
      msg << "eigen_init: near-defective complex symmetric block: " << where
          << " needs a complex orthogonal rotation with |c|² + |s|² = "
          << (std::norm(fs) + std::norm(gs)) / rs2 << " > " << max_growth;
      throw SolverError(msg.str());
    }
    const Scalar inv = Scalar(1) / rs;
    return {fs * inv, gs * inv, rs * scale};
  } else {
    (void)where;
    (void)max_growth;
    // √(f² + g²) without hypot's care unless the squares leave the safe range.
    const Scalar sum = f * f + g * g;
    const Scalar r = (sum > 1e-280 && sum < 1e280) ? std::sqrt(sum) : std::hypot(f, g);
    if (r == 0) return {Scalar(1), Scalar(0), Scalar(0)};
    const Scalar inv = Scalar(1) / r;
    return {f * inv, g * inv, r};
  }
}

/// Bulge chases of Crawford's reduction that advance together (see crawford_reduce).
constexpr int kChases = 4;

/// A bulge chase of Crawford's reduction in flight: the bulge C'(p, p+2) at position p.
template <class Scalar>
struct Chase {
  index_t p;
  Scalar bulge;
};

}  // namespace

template <class Scalar>
void crawford_reduce(const SymTridiag<Scalar>& A, const SymTridiag<Scalar>& M,
                     const std::vector<index_t>& rows, std::vector<Scalar>& d,
                     std::vector<Scalar>& e, std::vector<Scalar>& Z) {
  const index_t m = A.size();
  const index_t nz = static_cast<index_t>(rows.size());
  d = A.diag;
  e.assign(m, Scalar{});
  std::copy(A.off.begin(), A.off.end(), e.begin());
  // The tracked rows of X transposed (m × nz, row-major), so that the 2 columns a rotation
  // mixes are contiguous; copied to Z at the end.
  std::vector<Scalar> Xt(m * nz, Scalar{});
  for (index_t k = 0; k < nz; ++k) Xt[rows[k] * nz + k] = Scalar(1);

  real_t<Scalar> m_norm = 0;
  for (const Scalar& x : M.diag) m_norm = std::max(m_norm, std::abs(x));

  // The bulge chases in flight, oldest (deepest) first. Each rotation is a chain of dependent
  // operations (square root, division) bound by latency, so up to kChases chases advance
  // together, one rotation each per round, and their latencies overlap. The rotation at p reads
  // and writes e[p … p+2], d[p+1 … p+2] and rows p+1, p+2 of Xt only; a chase takes its step
  // at p once the next older one is past p+2, and step j once the newest is past j+1, so every
  // entry sees the same operations in the same order as one chase after another would make:
  // the result is bitwise the same.
  Chase<Scalar> chases[kChases];
  int active = 0;
  auto rotate = [&](Chase<Scalar>& ch) {
    const index_t p = ch.p;
    const Rotation<Scalar> g =
        make_rotation(e[p], ch.bulge, "Crawford's reduction", kMaxGrowthCrawford);
    const index_t i = p + 1, q = p + 2;
    const Scalar a_i = d[i], b_i = e[i], a_q = d[q];
    const Scalar cc = g.c * g.c, ss = g.s * g.s, cs = g.c * g.s;
    d[i] = cc * a_i + Scalar(2) * cs * b_i + ss * a_q;
    d[q] = ss * a_i - Scalar(2) * cs * b_i + cc * a_q;
    e[i] = (cc - ss) * b_i + cs * (a_q - a_i);
    e[p] = g.r;
    if (q + 1 < m) {
      ch.bulge = g.s * e[q];
      e[q] = g.c * e[q];
    } else {
      ch.bulge = Scalar{};
    }
    Scalar* xi = Xt.data() + i * nz;
    Scalar* xq = Xt.data() + q * nz;
    for (index_t k = 0; k < nz; ++k) {
      const Scalar zi = xi[k], zq = xq[k];
      xi[k] = g.c * zi + g.s * zq;
      xq[k] = g.c * zq - g.s * zi;
    }
    ch.p = i;
  };
  auto round = [&] {
    for (int c = 0; c < active; ++c)
      if (c == 0 || chases[c - 1].p >= chases[c].p + 3) rotate(chases[c]);
    int kept = 0;
    for (int c = 0; c < active; ++c)
      if (chases[c].bulge != Scalar{} && chases[c].p + 2 < m) chases[kept++] = chases[c];
    active = kept;
  };

  Scalar beta{};  // the coupling M'(j, j+1) left by the steps below row j
  for (index_t j = m - 1; j >= 0; --j) {
    while (active > 0 && (active == kChases || chases[active - 1].p < j + 2)) round();
    Scalar bulge{};  // C'(j, j+2)
    Scalar pivot = M.diag[j];
    if (beta != Scalar{}) {
      // Column j −= β·column j+1 (and the same on rows): removes M'(j, j+1), as M' is the
      // identity below row j; A' gains the bulge (j, j+2).
      const Scalar a1 = d[j + 1];
      d[j] = d[j] - Scalar(2) * beta * e[j] + beta * beta * a1;
      if (j + 2 < m) bulge = -beta * e[j + 1];
      e[j] = e[j] - beta * a1;
      pivot -= beta * beta;
      for (index_t k = 0; k < nz; ++k) Xt[j * nz + k] -= beta * Xt[(j + 1) * nz + k];
    }
    // Scale column j so that M'(j, j) = 1: the reversed Cholesky pivot δ_j = √pivot.
    bool ok;
    if constexpr (is_complex_v<Scalar>) {
      ok = std::abs(pivot) > 64 * eps<Scalar>() * m_norm && is_finite(pivot);
    } else {
      ok = pivot > 64 * eps<Scalar>() * m_norm && is_finite(pivot);
    }
    if (!ok) {
      std::ostringstream msg;
      msg << "eigen_init: expected a "
          << (is_complex_v<Scalar> ? "non-singular" : "positive definite") << " M block of size "
          << m << ", found the Cholesky pivot " << pivot << " at row " << j << " (‖M‖ ≈ " << m_norm
          << ")";
      throw SolverError(msg.str());
    }
    const Scalar scale = Scalar(1) / std::sqrt(pivot);
    d[j] *= scale * scale;
    e[j] *= scale;
    bulge *= scale;
    for (index_t k = 0; k < nz; ++k) Xt[j * nz + k] *= scale;
    if (j > 0) {
      e[j - 1] *= scale;
      beta = M.off[j - 1] * scale;
    }
    // Chase the bulge C'(j, j+2) down with rotations of rows/columns (p+1, p+2), p = j, j+1, …
    if (bulge != Scalar{} && j + 2 < m) chases[active++] = {j, bulge};
  }
  while (active > 0) round();
  Z.resize(nz * m);
  for (index_t j = 0; j < m; ++j)
    for (index_t k = 0; k < nz; ++k) Z[k * m + j] = Xt[j * nz + k];
}

template <class Scalar>
void implicit_ql(std::vector<Scalar>& d, std::vector<Scalar>& e, std::vector<Scalar>& Z,
                 index_t nz) {
  using Real = real_t<Scalar>;
  const index_t m = static_cast<index_t>(d.size());
  const int max_iter = is_complex_v<Scalar> ? 60 : 40;
  std::vector<Scalar> cs(2 * m);  // the rotations of one sweep, applied to Z after it
  for (index_t l = 0; l < m; ++l) {
    int iter = 0;
    for (;;) {
      index_t mm = l;
      for (; mm < m - 1; ++mm) {
        const Real dd = abs1(d[mm]) + abs1(d[mm + 1]);
        if (abs1(e[mm]) <= eps<Scalar>() * dd) break;
      }
      if (mm == l) break;
      if (++iter > max_iter) {
        std::ostringstream msg;
        msg << "eigen_init: implicit QL did not converge for eigenvalue " << l << " of a block of "
            << "size " << m << " in " << max_iter << " iterations";
        throw SolverError(msg.str());
      }
      // Wilkinson shift from the leading 2×2 of the unreduced part.
      Scalar g = (d[l + 1] - d[l]) / (Scalar(2) * e[l]);
      Scalar r = std::sqrt(g * g + Scalar(1));
      g = d[mm] - d[l] + e[l] / (abs1(g + r) >= abs1(g - r) ? g + r : g - r);
      Scalar s = 1, c = 1, p = 0;
      index_t i = mm - 1;
      bool split = false;
      for (; i >= l; --i) {
        const Scalar f = s * e[i], b = c * e[i];
        const Rotation<Scalar> rot = make_rotation(g, f, "implicit QL", kMaxGrowthQL);
        e[i + 1] = rot.r;
        if (rot.r == Scalar{}) {
          // Underflow: the matrix splits here.
          d[i + 1] -= p;
          e[mm] = Scalar{};
          split = true;
          break;
        }
        s = rot.s;
        c = rot.c;
        g = d[i + 1] - p;
        r = (d[i] - g) * s + Scalar(2) * c * b;
        p = s * r;
        d[i + 1] = g + p;
        g = c * r - b;
        cs[2 * i] = c;
        cs[2 * i + 1] = s;
      }
      // Columns (i+1, i) for i = mm−1 down to the last rotation made.
      const index_t last = split ? i + 1 : l;
      for (index_t k = 0; k < nz; ++k) {
        Scalar* z = Z.data() + k * m;
        for (index_t j = mm - 1; j >= last; --j) {
          const Scalar cj = cs[2 * j], sj = cs[2 * j + 1];
          const Scalar zi = z[j + 1], zj = z[j];
          z[j + 1] = cj * zi + sj * zj;
          z[j] = cj * zj - sj * zi;
        }
      }
      if (split && i >= l) continue;
      d[l] -= p;
      e[l] = g;
      e[mm] = Scalar{};
    }
  }
}

#define PSCR_INSTANTIATE(Scalar)                                                              \
  template void crawford_reduce(const SymTridiag<Scalar>&, const SymTridiag<Scalar>&,         \
                                const std::vector<index_t>&, std::vector<Scalar>&,            \
                                std::vector<Scalar>&, std::vector<Scalar>&);                  \
  template void implicit_ql(std::vector<Scalar>&, std::vector<Scalar>&, std::vector<Scalar>&, \
                            index_t);
PSCR_FOR_EACH_SCALAR(PSCR_INSTANTIATE)
#undef PSCR_INSTANTIATE

}  // namespace pscr::eigen_detail
