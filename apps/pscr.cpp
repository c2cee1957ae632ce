// `pscr`: generate, inspect and solve separable Poisson/Helmholtz problems stored in HDF5 files.
// Every subcommand has --help; exit codes are in apps/exit_codes.hpp (and `pscr --help`).

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <new>
#include <optional>
#include <sstream>
#include <utility>

#include "apps/args.hpp"
#include "apps/exit_codes.hpp"
#include "common/error.hpp"
#include "common/parse.hpp"
#include "common/version.hpp"
#include "io/eigen_data_file.hpp"
#include "io/file_info.hpp"
#include "io/problem_file.hpp"
#include "io/solution_file.hpp"
#include "problems/generate.hpp"
#include "pscr/fd/choice.hpp"
#include "pscr/reference/solver.hpp"
#ifdef PSCR_WITH_CUDA
#include "common/cuda/check.hpp"
#include "pscr/cuda/solver.hpp"
#endif

namespace pscr::app {
namespace {

constexpr const char* main_help =
    "pscr: a fast direct solver (radix-4 PSCR) for separable Poisson and Helmholtz problems\n"
    "A = A1⊗M2 + M1⊗A2 + c·M1⊗M2 (and the 3D analogue) stored in HDF5 files.\n\n"
    "Usage: pscr <command> [arguments] [options]\n\n"
    "Commands:\n"
    "  generate   write a Poisson or Helmholtz test problem to a file\n"
    "  info       describe a problem or solution file\n"
    "  solve      solve every right-hand side of a problem file\n"
    "  residual   relative residual ‖Au − f‖/‖f‖ of a solution file for its problem\n\n"
    "Run `pscr <command> --help` for a command's options. `pscr --version` prints the version.\n"
    "The file format is documented in docs/file-format.md.\n\n";

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Per-dimension values: one item for every dimension, or one per dimension.
std::vector<std::string> per_dimension(const ArgParser& args, const std::string& name, int dim) {
  auto items = split_list(args.get(name), name);
  if (items.size() == 1) items.assign(dim, items[0]);
  if (static_cast<int>(items.size()) != dim)
    throw UsageError("--" + name + ": expected 1 or " + std::to_string(dim) +
                     " comma-separated values, found " + std::to_string(items.size()) + " in '" +
                     args.get(name) + "'");
  return items;
}

int cmd_generate(const std::vector<std::string>& argv) {
  ArgParser args(
      "generate",
      "Writes a test problem of myllykoski2018 §5.1 (Poisson with lumped piecewise-linear FE,\n"
      "Helmholtz with bilinear/trilinear FE and a second-order absorbing boundary condition)\n"
      "on a uniform, graded or randomly perturbed mesh, reproducible from --seed.");
  args.option("output", "FILE", "problem file to write (required)");
  args.option("equation", "poisson|helmholtz", "the equation", "poisson");
  args.option("dim", "2|3", "number of dimensions", "2");
  args.option("n", "N[,N2[,N3]]",
              "unknowns per dimension (one value for all, or one per dimension)", "63");
  args.option("mesh", "KIND[,...]", "uniform, graded or random, for all or per dimension",
              "uniform");
  args.option("ratio", "R", "graded mesh: largest step / smallest step", "10");
  args.option("perturbation", "P", "random mesh: steps h·(1 + P·U(-1,1)), 0 <= P < 1", "0.3");
  args.option("length", "L", "length of the domain in every dimension", "1");
  args.option(
      "bc", "SPEC",
      "boundary conditions: dirichlet, neumann or absorbing (Helmholtz only); one for every\n"
      "      side, or per dimension as LEFT:RIGHT items separated by commas, e.g.\n"
      "      'dirichlet:neumann,absorbing' (default: dirichlet for Poisson, absorbing for "
      "Helmholtz)");
  args.option("omega", "W", "Helmholtz wave number ω (c = -ω²)", "10");
  args.option("ppw", "P",
              "Helmholtz: choose ω for P mesh points per wavelength on the coarsest step\n"
              "      (ω = 2π/(P·h_max)); instead of --omega");
  args.option("screening", "C", "Poisson: screening coefficient c >= 0 in -Δu + c·u = f", "0");
  args.option("rhs", "random|manufactured",
              "right-hand side: random, or f = A·u* for a random u* kept as u_exact",
              "manufactured");
  args.option("nrhs", "K", "number of right-hand sides", "1");
  args.flag("batched", "store f as (nrhs, n1, n2[, n3]) even when nrhs = 1");
  args.option("seed", "S", "seed of the random mesh, right-hand sides and u*", "1");
  args.flag("force", "overwrite the output file if it exists");
  if (!args.parse(argv)) {
    std::cout << args.help();
    return exit_ok;
  }

  problems::ProblemSpec spec;
  spec.equation = problems::parse_equation(args.get("equation"));
  const long dim = args.get_int("dim", 2);
  if (dim > 3) throw UsageError("--dim expects 2 or 3, found " + std::to_string(dim));
  const auto sizes = per_dimension(args, "n", dim);
  const auto meshes = per_dimension(args, "mesh", dim);
  const bool helmholtz = spec.equation == problems::Equation::helmholtz;
  const std::string bc_text =
      args.given("bc") ? args.get("bc") : (helmholtz ? "absorbing" : "dirichlet");
  auto bcs = split_list(bc_text, "bc");
  if (bcs.size() == 1) bcs.assign(dim, bcs[0]);
  if (static_cast<long>(bcs.size()) != dim)
    throw UsageError("--bc: expected 1 or " + std::to_string(dim) +
                     " comma-separated items, found '" + bc_text + "'");
  for (long d = 0; d < dim; ++d) {
    problems::DimensionSpec ds;
    const std::optional<long long> n = parse_integer(sizes[d]);
    if (!n || *n < 1) throw UsageError("--n expects positive integers, found '" + sizes[d] + "'");
    ds.n = static_cast<index_t>(*n);
    ds.mesh.kind = problems::parse_mesh_kind(meshes[d]);
    ds.mesh.ratio = args.get_double("ratio");
    ds.mesh.perturbation = args.get_double("perturbation");
    ds.mesh.length = args.get_double("length");
    const auto colon = bcs[d].find(':');
    ds.left = problems::parse_boundary(bcs[d].substr(0, colon));
    ds.right =
        problems::parse_boundary(colon == std::string::npos ? bcs[d] : bcs[d].substr(colon + 1));
    spec.dims.push_back(ds);
  }
  // An option that does not apply to the problem asked for is refused, not ignored.
  auto refuse_unless = [&](bool applies, const char* option, const std::string& applies_to) {
    if (args.given(option) && !applies)
      throw UsageError(std::string("--") + option + " applies to " + applies_to + " only");
  };
  auto some_mesh = [&](problems::MeshKind kind) {
    return std::any_of(spec.dims.begin(), spec.dims.end(),
                       [&](const problems::DimensionSpec& ds) { return ds.mesh.kind == kind; });
  };
  refuse_unless(helmholtz, "omega", "--equation helmholtz");
  refuse_unless(helmholtz, "ppw", "--equation helmholtz");
  refuse_unless(!helmholtz, "screening", "--equation poisson (Helmholtz's c is -omega^2)");
  refuse_unless(some_mesh(problems::MeshKind::graded), "ratio", "--mesh graded");
  refuse_unless(some_mesh(problems::MeshKind::random), "perturbation", "--mesh random");
  if (args.given("omega") && args.given("ppw"))
    throw UsageError("--omega and --ppw both set the wave number: give one of them");
  spec.seed = static_cast<std::uint64_t>(args.get_int("seed", 0));
  spec.omega = args.get_double("omega");
  if (helmholtz) {
    // Points per wavelength on the coarsest step, 2π/(ω·h_max): below 2 (Nyquist) the mesh
    // cannot represent the wave, and the discrete solution says nothing of the continuous one.
    double h_max = 0;
    for (std::size_t d = 0; d < spec.dims.size(); ++d)
      for (double h : problems::mesh_steps(spec.dims[d], problems::stream_seed(spec.seed, 1 + d)))
        h_max = std::max(h_max, h);
    if (args.given("ppw")) {
      const double ppw = args.get_double("ppw");
      if (!(ppw > 0)) throw UsageError("--ppw expects a positive number, found " + args.get("ppw"));
      spec.omega = 2 * M_PI / (ppw * h_max);
    }
    const double ppw = 2 * M_PI / (std::abs(spec.omega) * h_max);
    if (ppw < 2)
      std::cerr << "pscr generate: warning: omega = " << spec.omega << " leaves " << ppw
                << " mesh points per wavelength on the coarsest step (h = " << h_max
                << "); below 2 the mesh cannot resolve the wave\n";
  }
  spec.screening = args.get_double("screening");
  spec.rhs = problems::parse_rhs_kind(args.get("rhs"));
  spec.nrhs = args.get_int("nrhs", 1);
  spec.batched = args.given("batched");

  const AnyProblem problem = problems::generate(spec);
  const std::string output = args.get("output");
  io::write_problem(output, problem, args.given("force"));
  std::cout << "wrote " << output << ": " << problems::describe(spec) << "\n";
  return exit_ok;
}

template <class Scalar>
void print_operator(const SeparableOperator<Scalar>& op) {
  std::cout << "  scalar:      " << scalar_traits<Scalar>::name << " (float64"
            << (is_complex_v<Scalar> ? " complex" : "") << ")\n  dimensions:  " << op.dimension()
            << "\n  grid:        ";
  for (int d = 0; d < op.dimension(); ++d) std::cout << (d ? " x " : "") << op.factor(d).size();
  std::cout << "  (" << op.grid_size() << " unknowns)\n  c:           " << op.c() << "\n";
  for (int d = 0; d < op.dimension(); ++d) {
    const auto& m = op.factor(d).M;
    bool diagonal = true;
    for (const auto& x : m.off) diagonal = diagonal && x == Scalar(0);
    std::cout << "  dimension " << d + 1 << ": n = " << op.factor(d).size() << ", M "
              << (diagonal ? "diagonal" : "tridiagonal") << "\n";
  }
}

int cmd_info(const std::vector<std::string>& argv) {
  ArgParser args("info",
                 "Describes a pscr problem, solution or eigen-data file (schema:\n"
                 "docs/file-format.md).");
  args.positional("FILE", "a problem, solution or eigen-data file");
  if (!args.parse(argv)) {
    std::cout << args.help();
    return exit_ok;
  }
  const std::string path = args.positional_value("FILE");
  const io::FileFormat format = io::file_format(path);
  if (format == io::FileFormat::eigen_data) {
    const io::EigenDataHeader header = io::read_eigen_data_header(path);
    std::cout << path << ": pscr eigen-data file (format version " << io::eigen_data_format_version
              << ")\n  scalar:      " << header.scalar << "\n";
    for (std::size_t d = 0; d < header.dimensions.size(); ++d) {
      const auto& dim = header.dimensions[d];
      std::cout << "  dimension " << d + 1 << ": n = " << dim.n << ", radix " << dim.radix
                << ", factor checksum 0x" << std::hex << dim.factor_checksum << std::dec << "\n";
    }
    std::cout << "  serves the problems with these factors in "
              << (header.dimensions.size() == 1 ? "dimension 1" : "dimensions 1 and 2")
              << " (pscr solve --eigen-data)\n";
    return exit_ok;
  }
  if (format == io::FileFormat::solution) {
    const io::AnySolution solution = io::read_solution(path);
    std::visit(
        [&](const auto& s) {
          using Scalar = typename std::decay_t<decltype(s.u)>::value_type;
          std::cout << path << ": pscr solution file (format version "
                    << io::solution_format_version << ")\n"
                    << "  scalar:      " << scalar_traits<Scalar>::name << "\n  u shape:     (";
          for (std::size_t k = 0; k < s.shape.size(); ++k)
            std::cout << (k ? ", " : "") << s.shape[k];
          const auto& r = s.record;
          std::cout << ")\n  problem:     " << r.problem_file << "\n  backend:     " << r.backend
                    << " (" << r.threads << " threads), pscr " << r.pscr_version
                    << "\n  times:       init " << r.init_seconds << " s, solve " << r.solve_seconds
                    << " s, transfers " << r.transfer_seconds << " s\n  residuals:  ";
          for (double x : r.residuals) std::cout << " " << x;
          std::cout << "\n";
        },
        solution);
    return exit_ok;
  }
  const AnyProblem problem = io::read_problem(path);
  std::visit(
      [&](const auto& p) {
        std::cout << path << ": pscr problem file (format version " << io::problem_format_version
                  << ")\n";
        print_operator(p.op);
        std::cout << "  right-hand sides: " << p.nrhs
                  << (p.batched ? " (stored with a leading nrhs axis)" : "")
                  << "\n  exact solution:   " << (p.u_exact.empty() ? "no" : "yes (u_exact)")
                  << "\n";
        if (p.generator) std::cout << "  generator:   " << p.generator->description << "\n";
      },
      problem);
  return exit_ok;
}

/// ‖u − u*‖/‖u*‖ for right-hand side k, or a negative value when there is no exact solution.
template <class Scalar>
double relative_error(const Problem<Scalar>& p, const Scalar* u, index_t k) {
  if (p.u_exact.empty()) return -1;
  const index_t n = p.op.grid_size();
  const Scalar* ue = p.u_exact.data() + k * n;
  std::vector<Scalar> diff(u, u + n);
  for (index_t i = 0; i < n; ++i) diff[i] -= ue[i];
  const double ne = norm2(ue, n);
  return ne > 0 ? norm2(diff.data(), n) / ne : norm2(diff.data(), n);
}

/// --tolerance, checked before any work: a finite number >= 0, or none when not given.
std::optional<double> tolerance_option(const ArgParser& args) {
  if (!args.given("tolerance")) return std::nullopt;
  const double tolerance = args.get_double("tolerance");
  if (!(std::isfinite(tolerance) && tolerance >= 0))
    throw UsageError("--tolerance expects a finite number >= 0, found " + args.get("tolerance"));
  return tolerance;
}

int check_tolerance(std::optional<double> tolerance, double worst) {
  if (!tolerance || !(worst > *tolerance)) return exit_ok;
  std::cerr << "pscr: largest relative residual " << worst << " exceeds --tolerance " << *tolerance
            << "\n";
  return exit_solver;
}

int cmd_residual(const std::vector<std::string>& argv) {
  ArgParser args(
      "residual",
      "Computes the relative residual ‖Au − f‖/‖f‖ of every right-hand side of a solution\n"
      "for its problem (and the error against u_exact when the problem has one).");
  args.positional("PROBLEM", "the problem file");
  args.positional("SOLUTION", "a solution file for it");
  args.option("tolerance", "T", "exit with code 5 if a relative residual exceeds T");
  if (!args.parse(argv)) {
    std::cout << args.help();
    return exit_ok;
  }
  const std::optional<double> tolerance = tolerance_option(args);
  const AnyProblem problem = io::read_problem(args.positional_value("PROBLEM"));
  const io::AnySolution solution = io::read_solution(args.positional_value("SOLUTION"));
  double worst = 0;
  std::visit(
      [&](const auto& p) {
        using Scalar = typename std::decay_t<decltype(p.f)>::value_type;
        const auto* s = std::get_if<io::Solution<Scalar>>(&solution);
        if (s == nullptr)
          PSCR_INPUT_ERROR(args.positional_value("SOLUTION")
                           << ": expected a " << scalar_traits<Scalar>::name
                           << " solution for this " << scalar_traits<Scalar>::name
                           << " problem, found the other scalar type");
        const index_t n = p.op.grid_size();
        if (static_cast<index_t>(s->u.size()) != p.nrhs * n)
          PSCR_INPUT_ERROR(args.positional_value("SOLUTION")
                           << ": expected u with " << p.nrhs * n << " entries (" << p.nrhs
                           << " grids of " << n << "), found " << s->u.size());
        std::cout << "rhs  relative_residual" << (p.u_exact.empty() ? "" : "  relative_error")
                  << "\n";
        for (index_t k = 0; k < p.nrhs; ++k) {
          const double r = p.op.relative_residual(s->u.data() + k * n, p.rhs(k));
          worst = std::max(worst, r);
          std::cout << std::setw(3) << k << "  " << std::scientific << std::setprecision(3) << r;
          if (!p.u_exact.empty())
            std::cout << "        " << relative_error(p, s->u.data() + k * n, k);
          std::cout << "\n";
        }
      },
      problem);
  return check_tolerance(tolerance, worst);
}

/// Solves right-hand sides [k, k + count) into u; returns (solve seconds, transfer seconds).
template <class Scalar>
class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::pair<double, double> solve(index_t count, const Scalar* f, Scalar* u) = 0;
  /// Right-hand sides solved together (progress is reported between such chunks).
  virtual index_t chunk() const { return 1; }
  /// The eigen-data of the plan (dimension 1, then 2 in 3D), to save them.
  virtual const std::vector<EigenData<Scalar>>& eigen_data() const = 0;
  std::string name;
  std::string method = "pscr";  ///< the GPU solver's SolverMethod (the CPU backend runs PSCR)
  int threads = 1;
  double init_seconds = 0;
};

template <class Scalar>
class CpuBackend : public Backend<Scalar> {
 public:
  /// `eigen`: precomputed eigen-data (moved from), or null to compute them.
  CpuBackend(const SeparableOperator<Scalar>& op, int threads,
             std::vector<EigenData<Scalar>>* eigen) {
    reference::SolverOptions options;
    options.threads = threads;
    const auto t0 = Clock::now();
    solver_ = eigen ? std::make_unique<reference::Solver<Scalar>>(op, std::move(*eigen), options)
                    : std::make_unique<reference::Solver<Scalar>>(op, options);
    this->init_seconds = seconds_since(t0);
    this->name = "cpu";
    this->threads = solver_->threads();
  }
  std::pair<double, double> solve(index_t count, const Scalar* f, Scalar* u) override {
    const auto t0 = Clock::now();
    solver_->solve_many(count, f, u);
    return {seconds_since(t0), 0.0};
  }
  const std::vector<EigenData<Scalar>>& eigen_data() const override {
    return solver_->eigen_data();
  }

 private:
  std::unique_ptr<reference::Solver<Scalar>> solver_;
};

#ifdef PSCR_WITH_CUDA
template <class Scalar>
class GpuBackend : public Backend<Scalar> {
 public:
  /// `eigen`: precomputed eigen-data (moved from), or null to compute them.
  GpuBackend(const SeparableOperator<Scalar>& op, SolverMethod method,
             std::vector<EigenData<Scalar>>* eigen) {
    cuda::SolverOptions options;
    options.method = method;
    solver_ = eigen ? std::make_unique<cuda::Solver<Scalar>>(op, std::move(*eigen), options)
                    : std::make_unique<cuda::Solver<Scalar>>(op, options);
    this->init_seconds = solver_->init_seconds();
    this->name = "gpu";
    this->method = to_string(solver_->method());
    this->threads = omp_get_max_threads();  // the CPU threads of the plan's initialization
  }
  std::pair<double, double> solve(index_t count, const Scalar* f, Scalar* u) override {
    solver_->solve_many(count, f, u);
    const auto& s = solver_->last_solve();
    return {s.solve_ms / 1e3, (s.upload_ms + s.download_ms) / 1e3};
  }
  index_t chunk() const override { return solver_->rhs_per_round(); }
  const std::vector<EigenData<Scalar>>& eigen_data() const override {
    return solver_->eigen_data();
  }

 private:
  std::unique_ptr<cuda::Solver<Scalar>> solver_;
};
#endif

/// True when the GPU backend is compiled in and a CUDA device is present.
bool gpu_available() {
#ifdef PSCR_WITH_CUDA
  return cuda::device_count() > 0;
#else
  return false;
#endif
}

/// `method` applies to the GPU backend (cmd_solve checks that the CPU one is asked for PSCR or
/// automatic, which is PSCR there).
template <class Scalar>
std::unique_ptr<Backend<Scalar>> make_backend(const std::string& backend, SolverMethod method,
                                              const SeparableOperator<Scalar>& op, int threads,
                                              std::vector<EigenData<Scalar>>* eigen) {
#ifdef PSCR_WITH_CUDA
  if (backend == "gpu" || (backend == "auto" && gpu_available()))
    return std::make_unique<GpuBackend<Scalar>>(op, method, eigen);
#else
  (void)backend;
  (void)method;
#endif
  return std::make_unique<CpuBackend<Scalar>>(op, threads, eigen);
}

/// Whether two paths name one file: the same file where both exist, else the same path once
/// symbolic links, `.` and `..` are resolved (an output that does not exist yet).
bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code error_a, error_b;
  if (fs::exists(a, error_a) && fs::exists(b, error_b)) return fs::equivalent(a, b, error_a);
  const fs::path canonical_a = fs::weakly_canonical(a, error_a);
  const fs::path canonical_b = fs::weakly_canonical(b, error_b);
  return !error_a && !error_b && canonical_a == canonical_b;
}

/// Writes the plan's eigen-data to a file that did not exist (never replacing one). Returns
/// what the summary says: saved, or kept when another process wrote the file meanwhile.
template <class Scalar>
std::string save_eigen_data(const std::string& path, const Backend<Scalar>& backend,
                            const SeparableOperator<Scalar>& op) {
  try {
    io::write_eigen_data(path, backend.eigen_data(), reference::plan_eigen_factors(op), false);
  } catch (const OutputError&) {
    if (!std::filesystem::exists(path)) throw;
    return "computed; not saved: " + path + " appeared meanwhile and was kept";
  }
  return "computed, saved to " + path;
}

/// What `pscr solve` was asked for, checked before the problem is read.
struct SolveRequest {
  std::string problem_path, output;
  std::string backend;  ///< cpu, gpu or auto
  SolverMethod method = SolverMethod::automatic;
  int threads = 0;         ///< 0: OpenMP's default
  std::string eigen_path;  ///< the --eigen-data file (empty: none)
  bool load = false;       ///< eigen_path exists and is read; else written after the solve
  std::optional<double> tolerance;
  bool force = false, quiet = false;
};

template <class Scalar>
int solve_problem(const SolveRequest& request, const Problem<Scalar>& p) {
  const index_t n = p.op.grid_size();
  const auto t_init = Clock::now();
  std::vector<EigenData<Scalar>> eigen;
  if (request.load)
    eigen = io::read_eigen_data(request.eigen_path, reference::plan_eigen_factors(p.op));
  const double read_seconds = seconds_since(t_init);
  const auto backend = make_backend(request.backend, request.method, p.op, request.threads,
                                    request.load ? &eigen : nullptr);

  io::Solution<Scalar> solution;
  solution.shape = p.op.shape();
  if (p.batched) solution.shape.insert(solution.shape.begin(), p.nrhs);
  solution.u.resize(p.nrhs * n);
  const bool progress = !request.quiet && p.nrhs > 1;
  const auto t_solve = Clock::now();
  auto last_report = t_solve;
  double solve_seconds = 0, transfer_seconds = 0;
  for (index_t k = 0; k < p.nrhs; k += backend->chunk()) {
    const index_t count = std::min(backend->chunk(), p.nrhs - k);
    const auto [solve_s, transfer_s] = backend->solve(count, p.rhs(k), solution.u.data() + k * n);
    solve_seconds += solve_s;
    transfer_seconds += transfer_s;
    if (progress && (seconds_since(last_report) > 0.5 || k + count == p.nrhs)) {
      last_report = Clock::now();
      std::cerr << "\rsolved " << k + count << " of " << p.nrhs << " right-hand sides ("
                << std::fixed << std::setprecision(1) << seconds_since(t_solve) << " s)"
                << std::flush;
    }
  }
  if (progress) std::cerr << "\n";

  auto& r = solution.record;
  r.backend = backend->name;
  r.pscr_version = version;
  r.problem_file = request.problem_path;
  r.threads = backend->threads;
  r.init_seconds = read_seconds + backend->init_seconds;
  r.solve_seconds = solve_seconds;
  r.transfer_seconds = transfer_seconds;
  double worst_error = -1;
  for (index_t k = 0; k < p.nrhs; ++k) {
    r.residuals.push_back(p.op.relative_residual(solution.u.data() + k * n, p.rhs(k)));
    worst_error = std::max(worst_error, relative_error(p, solution.u.data() + k * n, k));
  }
  io::write_solution(request.output, io::AnySolution(solution), request.force);
  std::string eigen_note = "computed";
  if (request.load) {
    std::ostringstream note;
    note << std::scientific << std::setprecision(3) << "loaded from " << request.eigen_path
         << " in " << read_seconds << " s";
    eigen_note = note.str();
  } else if (!request.eigen_path.empty()) {
    eigen_note = save_eigen_data(request.eigen_path, *backend, p.op);
  }

  const double worst = *std::max_element(r.residuals.begin(), r.residuals.end());
  if (!request.quiet) {
    std::cout << "pscr " << version << ": solved " << request.problem_path << " -> "
              << request.output << "\n  grid:      ";
    for (int d = 0; d < p.op.dimension(); ++d)
      std::cout << (d ? " x " : "") << p.op.factor(d).size();
    std::cout << " (" << scalar_traits<Scalar>::name << "), " << p.nrhs << " right-hand side(s)\n"
              << "  backend:   " << r.backend << ", " << r.threads << " CPU thread(s), method "
              << backend->method << "\n"
              << std::scientific << std::setprecision(3) << "  init:      " << r.init_seconds
              << " s (eigen-data " << eigen_note << ")\n  solve:     " << solve_seconds << " s ("
              << solve_seconds / p.nrhs << " s per right-hand side";
    if (r.backend == "gpu") std::cout << ", device time; transfers " << transfer_seconds << " s";
    std::cout << ")\n  residual:  " << worst << " (largest relative ‖Au − f‖/‖f‖)\n";
    if (worst_error >= 0)
      std::cout << "  error:     " << worst_error << " (largest ‖u − u*‖/‖u*‖)\n";
  }
  return check_tolerance(request.tolerance, worst);
}

int cmd_solve(const std::vector<std::string>& argv) {
  ArgParser args("solve",
                 "Solves every right-hand side of a problem file with radix-4 PSCR and writes the\n"
                 "solution file (u, residual per right-hand side, backend, times, version).");
  args.positional("PROBLEM", "the problem file");
  args.option("output", "FILE",
              "solution file to write (required; not the problem or --eigen-data file)");
  args.option(
      "backend", "cpu|gpu|auto",
      "cpu: the CPU backend (OpenMP); gpu: the CUDA backend (exit code 6 if it is not built or\n"
      "      no device is present); auto: the GPU when it is built and present, else the CPU",
      "auto");
  args.option(
      "method", "pscr|fd|auto",
      "pscr: radix-4 PSCR; fd: dense fast diagonalization (GPU backend only; cuBLAS GEMMs with\n"
      "      eigenvectors computed on the CPU, not for the singular pure-Neumann problem);\n"
      "      auto: PSCR in 2D and on the CPU, FD for 3D problems on the GPU where its plan fits,\n"
      "      its setup is estimated under 5 s and certified (the summary names what ran)",
      "auto");
  args.option("threads", "N",
              "CPU threads, at most 4096 (0: OpenMP's default, OMP_NUM_THREADS or all cores)", "0");
  args.option("tolerance", "T", "exit with code 5 if a relative residual exceeds T");
  args.option(
      "eigen-data", "FILE",
      "eigen-data of the plan (docs/file-format.md), to initialize once and solve many times:\n"
      "      if FILE exists it is read (exit code 3 if it belongs to another problem) and\n"
      "      nothing is recomputed; otherwise they are computed and FILE is written after the\n"
      "      solve. FILE is never replaced, also with --force (which is for --output only)");
  args.flag("force", "overwrite the output file if it exists");
  args.flag("quiet", "print nothing but errors");
  if (!args.parse(argv)) {
    std::cout << args.help();
    return exit_ok;
  }
  SolveRequest request;
  request.backend = args.get("backend");
  const std::string& backend = request.backend;
  if (backend != "cpu" && backend != "gpu" && backend != "auto")
    throw UsageError("--backend expects cpu, gpu or auto, found '" + backend + "'");
  const std::string method_name = args.get("method");
  if (method_name == "pscr") {
    request.method = SolverMethod::pscr;
  } else if (method_name == "fd") {
    request.method = SolverMethod::fast_diagonalization;
  } else if (method_name != "auto") {
    throw UsageError("--method expects pscr, fd or auto, found '" + method_name + "'");
  }
  const bool fd = request.method == SolverMethod::fast_diagonalization;
  if (fd && backend == "cpu")
    throw UsageError("--method fd runs on the GPU backend only; use --backend gpu or auto");
  const long threads = args.get_int("threads", 0);
  if (threads > 4096)
    throw UsageError("--threads expects at most 4096 threads, found " + std::to_string(threads));
  request.threads = static_cast<int>(threads);
  request.quiet = args.given("quiet");
  if (request.threads > omp_get_num_procs() && !request.quiet)
    std::cerr << "pscr solve: warning: --threads " << request.threads << " is more than the "
              << omp_get_num_procs() << " processors here; threads beyond them slow the solve\n";
  request.tolerance = tolerance_option(args);
  request.force = args.given("force");
  // Everything that can be checked is checked before the (possibly long) solve.
  const std::string& output = request.output = args.get("output");
  const std::string& path = request.problem_path = args.positional_value("PROBLEM");
  const std::string& eigen_path = request.eigen_path =
      args.given("eigen-data") ? args.get("eigen-data") : "";
  if (args.given("eigen-data") && eigen_path.empty())
    throw UsageError("--eigen-data expects a file path, found an empty string");
  // Inputs are only read: an output over one would lose it, also with --force.
  if (same_file(output, path))
    throw UsageError("--output " + output + " is the problem file " + path +
                     ", which would be lost; choose another output file");
  if (!eigen_path.empty() && same_file(output, eigen_path))
    throw UsageError("--output " + output + " is the --eigen-data file " + eigen_path +
                     "; choose another output file");
  io::check_writable(output, request.force);
  std::error_code missing;
  request.load = !eigen_path.empty() && std::filesystem::exists(eigen_path, missing);
  if (request.load && fd)
    throw UsageError("--method fd does its own setup and cannot use the PSCR eigen-data of " +
                     eigen_path + "; use --method pscr or auto with --eigen-data");
  const bool needs_gpu = backend == "gpu" || (backend == "auto" && fd);
  if (needs_gpu && !gpu_available()) {
    std::cerr << "pscr solve: " << (backend == "gpu" ? "--backend gpu" : "--method fd") << ", but "
              << (built_with_cuda ? "no CUDA device is present"
                                  : "this pscr was built without CUDA")
              << "; use --backend cpu or auto" << (backend == "gpu" ? "" : " with --method pscr")
              << "\n";
    return exit_library;
  }
  if (!eigen_path.empty() && !request.load) io::check_writable(eigen_path, false);
  const AnyProblem problem = io::read_problem(path);
  return std::visit([&](const auto& p) { return solve_problem(request, p); }, problem);
}

int run(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << main_help << exit_code_help;
    return exit_usage;
  }
  const std::string command = argv[1];
  const std::vector<std::string> rest(argv + 2, argv + argc);
  if (command == "-h" || command == "--help" || command == "help") {
    std::cout << main_help << exit_code_help;
    return exit_ok;
  }
  if (command == "--version") {
    std::cout << "pscr " << version << (built_with_cuda ? " (with CUDA)" : " (CPU only)") << "\n";
    return exit_ok;
  }
  if (command == "generate") return cmd_generate(rest);
  if (command == "info") return cmd_info(rest);
  if (command == "residual") return cmd_residual(rest);
  if (command == "solve") return cmd_solve(rest);
  throw UsageError("unknown command '" + command +
                   "' (expected generate, info, solve or residual; see pscr --help)");
}

}  // namespace
}  // namespace pscr::app

int main(int argc, char** argv) {
  using namespace pscr::app;
  try {
    return run(argc, argv);
  } catch (const UsageError& e) {
    std::cerr << "pscr: " << e.what() << "\n";
    return exit_usage;
  } catch (const pscr::InputError& e) {
    std::cerr << "pscr: bad input: " << e.what() << "\n";
    return exit_bad_input;
  } catch (const pscr::OutputError& e) {
    std::cerr << "pscr: output not written: " << e.what() << "\n";
    return exit_output;
  } catch (const pscr::SolverError& e) {
    std::cerr << "pscr: solver failed: " << e.what() << "\n";
    return exit_solver;
  } catch (const pscr::LibraryError& e) {
    std::cerr << "pscr: library failure: " << e.what() << "\n";
    return exit_library;
  } catch (const std::bad_alloc&) {
    std::cerr << "pscr: out of memory: this machine could not give the memory the command needs "
                 "(it grows with the number of grid points times the right-hand sides)\n";
    return exit_library;
  } catch (const std::exception& e) {
    std::cerr << "pscr: internal error: " << e.what() << "\n";
    return exit_internal;
  }
}
