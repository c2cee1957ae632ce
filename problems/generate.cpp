#include "problems/generate.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <random>
#include <sstream>
#include <utility>

#include "common/error.hpp"
#include "eigen_init/eigen_init.hpp"
#include "problems/random.hpp"

namespace pscr::problems {

namespace {

constexpr std::array<std::pair<Equation, const char*>, 2> kEquationNames = {
    {{Equation::poisson, "poisson"}, {Equation::helmholtz, "helmholtz"}}};
constexpr std::array<std::pair<Boundary, const char*>, 3> kBoundaryNames = {
    {{Boundary::dirichlet, "dirichlet"},
     {Boundary::neumann, "neumann"},
     {Boundary::absorbing, "absorbing"}}};
constexpr std::array<std::pair<MeshKind, const char*>, 3> kMeshNames = {
    {{MeshKind::uniform, "uniform"}, {MeshKind::graded, "graded"}, {MeshKind::random, "random"}}};
constexpr std::array<std::pair<RhsKind, const char*>, 2> kRhsNames = {
    {{RhsKind::random, "random"}, {RhsKind::manufactured, "manufactured"}}};

template <class Enum, std::size_t N>
std::string name_of(const std::array<std::pair<Enum, const char*>, N>& names, Enum value) {
  for (const auto& [v, name] : names)
    if (v == value) return name;
  PSCR_INPUT_ERROR("invalid enumerator " << static_cast<int>(value));
}

template <class Enum, std::size_t N>
Enum parse_name(const std::array<std::pair<Enum, const char*>, N>& names, const std::string& text,
                const char* what) {
  for (const auto& [v, name] : names)
    if (text == name) return v;
  std::ostringstream valid;
  for (std::size_t k = 0; k < N; ++k) valid << (k ? ", " : "") << names[k].second;
  PSCR_INPUT_ERROR("unknown " << what << " '" << text << "': expected one of " << valid.str());
}

/// Shortest decimal text that reads back as the same double.
std::string number(double x) {
  std::array<char, 32> buf{};
  const auto result = std::to_chars(buf.data(), buf.data() + buf.size(), x);
  return std::string(buf.data(), result.ptr);
}

int dirichlet_sides(Boundary left, Boundary right) {
  return (left == Boundary::dirichlet ? 1 : 0) + (right == Boundary::dirichlet ? 1 : 0);
}

/// Checks the steps and returns the number of unknowns they leave, n = m + 1 − (Dirichlet sides).
index_t unknowns_of(const std::vector<double>& steps, Boundary left, Boundary right) {
  for (std::size_t k = 0; k < steps.size(); ++k)
    if (!(std::isfinite(steps[k]) && steps[k] > 0))
      PSCR_INPUT_ERROR("mesh step " << k << " must be positive and finite, got " << steps[k]);
  const index_t n = static_cast<index_t>(steps.size()) + 1 - dirichlet_sides(left, right);
  if (steps.empty() || n < 1)
    PSCR_INPUT_ERROR("mesh steps must leave at least one unknown: "
                     << steps.size() << " step(s) with " << to_string(left) << "/"
                     << to_string(right) << " sides leave " << n);
  return n;
}

/// The 1D element matrices of eqs. (31) and (33)–(35), myllykoski2018, assembled over the steps.
/// Unknown i is node k = i + (left is Dirichlet); its left step is h_{k−1} (if k ≥ 1), its right
/// step h_k (if k < m). Each step h adds 1/h to the A diagonal of its end nodes and −1/h off it;
/// `mass_diag`/`mass_off` are its mass weights (lumped 1/2, 0; consistent 1/3, 1/6). The pairs
/// {A, M} `left_end`/`right_end` are added at a non-Dirichlet end (absorbing terms; 0 for Neumann).
template <class Scalar>
Factor<Scalar> assemble_factor(const std::vector<double>& steps, Boundary left, Boundary right,
                               double mass_diag, double mass_off,
                               const std::array<Scalar, 2>& left_end,
                               const std::array<Scalar, 2>& right_end) {
  const index_t n = unknowns_of(steps, left, right);
  const index_t m = static_cast<index_t>(steps.size());
  const index_t offset = left == Boundary::dirichlet ? 1 : 0;
  Factor<Scalar> f;
  f.A.diag.assign(n, Scalar(0));
  f.M.diag.assign(n, Scalar(0));
  f.A.off.resize(n - 1);
  f.M.off.resize(n - 1);
  for (index_t i = 0; i < n; ++i) {
    const index_t k = i + offset;
    if (k >= 1) {
      const double h = steps[k - 1];
      f.A.diag[i] += 1.0 / h;
      f.M.diag[i] += mass_diag * h;
    }
    if (k < m) {
      const double h = steps[k];
      f.A.diag[i] += 1.0 / h;
      f.M.diag[i] += mass_diag * h;
      if (i + 1 < n) {
        f.A.off[i] = -1.0 / h;
        f.M.off[i] = mass_off * h;
      }
    }
  }
  if (left != Boundary::dirichlet) {
    f.A.diag[0] += left_end[0];
    f.M.diag[0] += left_end[1];
  }
  if (right != Boundary::dirichlet) {
    f.A.diag[n - 1] += right_end[0];
    f.M.diag[n - 1] += right_end[1];
  }
  return f;
}

/// Absorbing end terms of eq. (35): A += −iω/2, M += i/(2ω); zero for other sides.
std::array<std::complex<double>, 2> absorbing_terms(Boundary side, double omega) {
  if (side != Boundary::absorbing) return {0.0, 0.0};
  return {std::complex<double>(0.0, -omega / 2), std::complex<double>(0.0, 1.0 / (2 * omega))};
}

Factor<double> real_part(const Factor<std::complex<double>>& f) {
  auto re = [](const std::vector<std::complex<double>>& v) {
    std::vector<double> r(v.size());
    for (std::size_t k = 0; k < v.size(); ++k) r[k] = v[k].real();
    return r;
  };
  return {{re(f.A.diag), re(f.A.off)}, {re(f.M.diag), re(f.M.off)}};
}

void check_omega(double omega) {
  if (!(std::isfinite(omega) && omega > 0))
    PSCR_INPUT_ERROR("Helmholtz wave number omega must be positive and finite, got " << omega);
}

/// A pure Neumann problem (c = 0 and every A_d singular) determines u only up to its null vector
/// z; the solvers return the u with zᵀ M u = 0 (pscr/reference/solver.hpp), so each manufactured
/// u of `count` is made so as they do: u −= z (zᵀ M u) / (zᵀ M z). Other operators: unchanged.
template <class Scalar>
void make_mean_zero(const SeparableOperator<Scalar>& op, Scalar* u, index_t count) {
  const auto space = kronecker_null_space(op);
  if (!space) return;
  const auto shape = op.shape();
  for (index_t r = 0; r < count; ++r) {
    Scalar* ur = u + r * op.grid_size();
    kron_axpy(shape, kron_dot(shape, space->mz, ur) / space->z_m_z, space->z, ur);
  }
}

template <class Scalar>
Problem<Scalar> build(const ProblemSpec& spec, std::vector<Factor<Scalar>> factors, Scalar c,
                      GeneratorRecord record) {
  SeparableOperator<Scalar> op(std::move(factors), c);
  const index_t n = op.grid_size();
  auto values = uniform_values<Scalar>(n * spec.nrhs, stream_seed(spec.seed, 0));
  std::vector<Scalar> f;
  std::vector<Scalar> u_exact;
  if (spec.rhs == RhsKind::random) {
    f = std::move(values);
  } else {
    u_exact = std::move(values);
    make_mean_zero(op, u_exact.data(), spec.nrhs);
    f.resize(u_exact.size());
    for (index_t k = 0; k < spec.nrhs; ++k) op.apply(u_exact.data() + k * n, f.data() + k * n);
  }
  return Problem<Scalar>{std::move(op), spec.nrhs,          spec.batched || spec.nrhs > 1,
                         std::move(f),  std::move(u_exact), std::move(record)};
}

void validate(const ProblemSpec& spec) {
  if (spec.dims.size() != 2 && spec.dims.size() != 3)
    PSCR_INPUT_ERROR("a problem needs 2 or 3 dimensions, got " << spec.dims.size());
  if (spec.nrhs < 1) PSCR_INPUT_ERROR("nrhs must be >= 1, got " << spec.nrhs);
  for (std::size_t d = 0; d < spec.dims.size(); ++d) {
    const auto& dim = spec.dims[d];
    for (const Boundary side : {dim.left, dim.right})
      if (spec.equation == Equation::poisson && side == Boundary::absorbing)
        PSCR_INPUT_ERROR("dimension " << d + 1
                                      << ": the absorbing boundary condition is for Helmholtz "
                                         "only; Poisson expects dirichlet or neumann");
  }
  if (spec.equation == Equation::poisson) {
    if (!(std::isfinite(spec.screening) && spec.screening >= 0))
      PSCR_INPUT_ERROR("Poisson screening c must be >= 0 and finite, got " << spec.screening);
  } else {
    check_omega(spec.omega);
  }
}

}  // namespace

std::string to_string(Equation equation) {
  return name_of(kEquationNames, equation);
}
std::string to_string(Boundary boundary) {
  return name_of(kBoundaryNames, boundary);
}
std::string to_string(MeshKind kind) {
  return name_of(kMeshNames, kind);
}
std::string to_string(RhsKind kind) {
  return name_of(kRhsNames, kind);
}

Equation parse_equation(const std::string& text) {
  return parse_name(kEquationNames, text, "equation");
}
Boundary parse_boundary(const std::string& text) {
  return parse_name(kBoundaryNames, text, "boundary condition");
}
MeshKind parse_mesh_kind(const std::string& text) {
  return parse_name(kMeshNames, text, "mesh kind");
}
RhsKind parse_rhs_kind(const std::string& text) {
  return parse_name(kRhsNames, text, "right-hand side kind");
}

std::vector<double> mesh_steps(const DimensionSpec& dim, std::uint64_t seed) {
  if (dim.n < 1) PSCR_INPUT_ERROR("number of unknowns n must be >= 1, got " << dim.n);
  const MeshSpec& mesh = dim.mesh;
  if (!(std::isfinite(mesh.length) && mesh.length > 0))
    PSCR_INPUT_ERROR("mesh length must be positive and finite, got " << mesh.length);
  const index_t m = dim.n - 1 + dirichlet_sides(dim.left, dim.right);
  if (m < 1)
    PSCR_INPUT_ERROR("n = " << dim.n << " with " << to_string(dim.left) << "/"
                            << to_string(dim.right)
                            << " sides gives no mesh step: expected n >= 2, or a dirichlet side");
  const double h = mesh.length / static_cast<double>(m);
  std::vector<double> steps(m, h);
  if (mesh.kind == MeshKind::uniform) return steps;
  if (mesh.kind == MeshKind::graded) {
    if (!(std::isfinite(mesh.ratio) && mesh.ratio >= 1))
      PSCR_INPUT_ERROR("graded mesh ratio (largest/smallest step) must be >= 1 and finite, got "
                       << mesh.ratio);
    for (index_t k = 0; k < m && m > 1; ++k)
      steps[k] = std::pow(mesh.ratio, static_cast<double>(k) / static_cast<double>(m - 1));
  } else {
    if (!(mesh.perturbation >= 0 && mesh.perturbation < 1))
      PSCR_INPUT_ERROR("random mesh perturbation p must be in [0, 1), got " << mesh.perturbation);
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (auto& s : steps) s = h * (1 + mesh.perturbation * u(gen));
  }
  double sum = 0;
  for (const double s : steps) sum += s;
  for (auto& s : steps) s *= mesh.length / sum;
  return steps;
}

Factor<double> poisson_factor(const std::vector<double>& steps, Boundary left, Boundary right) {
  if (left == Boundary::absorbing || right == Boundary::absorbing)
    PSCR_INPUT_ERROR("Poisson factor: expected dirichlet or neumann sides, got "
                     << to_string(left) << "/" << to_string(right));
  // eq. (31), myllykoski2018: lumped mass; a Neumann end adds nothing beyond its one element.
  return assemble_factor<double>(steps, left, right, 0.5, 0.0, {0.0, 0.0}, {0.0, 0.0});
}

Factor<std::complex<double>> helmholtz_factor(const std::vector<double>& steps, Boundary left,
                                              Boundary right, double omega) {
  check_omega(omega);
  // eqs. (33)–(35), myllykoski2018: consistent mass; absorbing ends get −iω/2 and i/(2ω).
  return assemble_factor<std::complex<double>>(steps, left, right, 1.0 / 3, 1.0 / 6,
                                               absorbing_terms(left, omega),
                                               absorbing_terms(right, omega));
}

std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t stream) {
  // splitmix64 (Steele, Lea, Flood 2014) of the seed, then of the mix with the stream number.
  auto mix = [](std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  return mix(mix(seed) ^ stream);
}

AnyProblem generate(const ProblemSpec& spec) {
  validate(spec);
  GeneratorRecord record{describe(spec), {}};
  for (std::size_t d = 0; d < spec.dims.size(); ++d) {
    try {
      record.steps.push_back(mesh_steps(spec.dims[d], stream_seed(spec.seed, 1 + d)));
    } catch (const InputError& e) {
      PSCR_INPUT_ERROR("dimension " << d + 1 << ": " << e.what());
    }
  }

  if (spec.equation == Equation::poisson) {
    std::vector<Factor<double>> factors;
    for (std::size_t d = 0; d < spec.dims.size(); ++d)
      factors.push_back(poisson_factor(record.steps[d], spec.dims[d].left, spec.dims[d].right));
    return build<double>(spec, std::move(factors), spec.screening, std::move(record));
  }
  bool absorbing = false;
  std::vector<Factor<std::complex<double>>> factors;
  for (std::size_t d = 0; d < spec.dims.size(); ++d) {
    const auto& dim = spec.dims[d];
    absorbing = absorbing || dim.left == Boundary::absorbing || dim.right == Boundary::absorbing;
    factors.push_back(helmholtz_factor(record.steps[d], dim.left, dim.right, spec.omega));
  }
  const double c = -spec.omega * spec.omega;
  if (absorbing) return build<std::complex<double>>(spec, std::move(factors), c, std::move(record));
  std::vector<Factor<double>> real_factors;
  for (const auto& f : factors) real_factors.push_back(real_part(f));
  return build<double>(spec, std::move(real_factors), c, std::move(record));
}

std::string describe(const ProblemSpec& spec) {
  std::ostringstream s;
  s << "equation=" << to_string(spec.equation);
  if (spec.equation == Equation::poisson) {
    s << " screening=" << number(spec.screening);
  } else {
    s << " omega=" << number(spec.omega);
  }
  s << " rhs=" << to_string(spec.rhs) << " nrhs=" << spec.nrhs
    << " batched=" << (spec.batched ? "true" : "false") << " seed=" << spec.seed
    << " dims=" << spec.dims.size();
  for (std::size_t d = 0; d < spec.dims.size(); ++d) {
    const auto& dim = spec.dims[d];
    const std::size_t k = d + 1;
    s << " n" << k << "=" << dim.n << " mesh" << k << "=" << to_string(dim.mesh.kind) << " length"
      << k << "=" << number(dim.mesh.length);
    if (dim.mesh.kind == MeshKind::graded) s << " ratio" << k << "=" << number(dim.mesh.ratio);
    if (dim.mesh.kind == MeshKind::random)
      s << " perturbation" << k << "=" << number(dim.mesh.perturbation);
    s << " left" << k << "=" << to_string(dim.left) << " right" << k << "=" << to_string(dim.right);
  }
  return s.str();
}

namespace {

/// The factor of one dimension of a 2D Helmholtz solve: n unknowns on a random mesh from `seed`,
/// absorbing ends, wave number ω (HelmholtzPencil's own and the other dimension of eigen_shifts).
Factor<std::complex<double>> absorbing_factor(index_t n, std::uint64_t seed, double omega) {
  DimensionSpec dim;
  dim.n = n;
  dim.mesh.kind = MeshKind::random;
  dim.left = dim.right = Boundary::absorbing;
  return helmholtz_factor(mesh_steps(dim, seed), dim.left, dim.right, omega);
}

}  // namespace

HelmholtzPencil::HelmholtzPencil(index_t n, std::uint64_t seed) {
  omega_ = 2.0 * M_PI * static_cast<double>(n + 1) / 10.0;
  factor = absorbing_factor(n, seed, omega_);
  for (index_t i = 0; i < n; ++i)
    lambda_max_ = std::max(lambda_max_, 4 * std::abs(factor.A.diag[i] / factor.M.diag[i]));
}

std::vector<std::complex<double>> HelmholtzPencil::eigen_shifts(index_t count, index_t m,
                                                                std::uint64_t seed) const {
  if (count < 0 || m < 1)
    PSCR_INPUT_ERROR("HelmholtzPencil::eigen_shifts: expected count >= 0 and m >= 1, found count "
                     << count << " and m " << m);
  const Factor<std::complex<double>> other = absorbing_factor(m, seed, omega_);
  std::vector<std::complex<double>> lambda = solve_block_pencil(other.A, other.M, {}).lambda;
  std::sort(lambda.begin(), lambda.end(),
            [](const auto& x, const auto& y) { return x.real() < y.real(); });
  std::vector<std::complex<double>> shifts(count);
  for (index_t k = 0; k < count; ++k) shifts[k] = lambda[k % m] - omega_ * omega_;
  return shifts;
}

std::complex<double> HelmholtzPencil::shift(index_t j, index_t count) const {
  return {
      lambda_max_ * (static_cast<double>(j) + 0.5) / static_cast<double>(count) - omega_ * omega_,
      0.0};
}

}  // namespace pscr::problems
