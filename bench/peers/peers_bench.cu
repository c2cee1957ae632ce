// peers_bench: times the peers of issue 6 on the GPU, in one run with the device's ceilings.
//   fd  — dense fast diagonalization: cuBLAS GEMM eigen-transforms + batched Thomas
//         (pscr/cuda/fd_solver.hpp), Poisson (real) and Helmholtz (complex), non-uniform meshes;
//   fft — DST-I Poisson solver through cuFFT (bench/peers/fft_poisson.hpp), uniform grids.
// First the ceilings (DGEMM and ZGEMM rate, device copy bandwidth), then the correctness checks
// (GPU against the CPU path of the same algorithm on small odd sizes; the cuFFT solver against
// the CPU FD solve): any failure ends the run with exit code 1. Then the size sweeps. Every
// time is the median of ≥ --reps solves after two warm-up solves, CUDA events on one stream,
// setup (eigenvectors, plans, uploads) excluded; transfers are timed apart. One CSV row per case,
// written as soon as it is measured.
//
// Usage: peers_bench --csv PATH [--quick] [--reps N] [--setup-budget-s S] [--solve-limit-s S]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "bench/cli.hpp"
#include "bench/peers/fft_poisson.hpp"
#include "bench/peers/gpu_support.hpp"
#include "common/cuda/device_buffer.hpp"
#include "problems/generate.hpp"
#include "pscr/cuda/fd_solver.hpp"
#include "pscr/fd/setup.hpp"

namespace pscr::peers {
namespace {

using problems::Boundary;
using problems::Equation;
using problems::MeshKind;

struct Options {
  std::string csv;
  bool quick = false;
  int reps = 10;
  double setup_budget_s = 30.0;  // skip a size whose predicted CPU setup exceeds this
  double solve_limit_s = 2.0;    // stop a sweep after a size whose median solve exceeds this
};

constexpr const char* kUsage =
    "usage: peers_bench --csv PATH [--quick] [--reps N>=10] [--setup-budget-s S] "
    "[--solve-limit-s S]\n";

/// The options, or std::nullopt when --help was asked (the usage is then printed). Throws
/// InputError naming a bad argument.
std::optional<Options> parse(int argc, char** argv) {
  Options o;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (pscr::bench::is_help(a)) {
      std::cout << kUsage
                << "Times the peers of issue 6 (dense fast diagonalization with cuBLAS, cuFFT "
                   "Poisson) on the GPU (see the file's header).\n";
      return std::nullopt;
    }
    auto value = [&]() -> std::string { return pscr::bench::option_value(argc, argv, k); };
    if (a == "--csv") {
      o.csv = value();
    } else if (a == "--quick") {
      o.quick = true;
    } else if (a == "--reps") {
      o.reps = pscr::bench::parse_positive<int>(a, value());
    } else if (a == "--setup-budget-s") {
      o.setup_budget_s = pscr::bench::parse_positive_real(a, value());
    } else if (a == "--solve-limit-s") {
      o.solve_limit_s = pscr::bench::parse_positive_real(a, value());
    } else {
      PSCR_INPUT_ERROR("unknown argument '" << a << "'");
    }
  }
  if (o.csv.empty()) PSCR_INPUT_ERROR("--csv PATH is required");
  if (o.reps < 10) PSCR_INPUT_ERROR("--reps: expected at least 10, found " << o.reps);
  return o;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

/// One CSV row. Empty optionals are written as empty fields.
struct Row {
  Row(std::string solver_in, std::string problem_in, std::string scalar_in, std::string mesh_in,
      std::vector<index_t> shape_in)
      : solver(std::move(solver_in)),
        problem(std::move(problem_in)),
        scalar(std::move(scalar_in)),
        mesh(std::move(mesh_in)),
        shape(std::move(shape_in)) {}
  std::string solver, problem, scalar, mesh;
  std::vector<index_t> shape;
  std::optional<double> setup_s, h2d_ms, d2h_ms;
  int reps = 0;
  std::optional<double> median_ms, min_ms, max_ms, transform_ms, tridiag_ms;
  std::optional<double> flops, bytes, ceiling_gflops, ceiling_gbs;
  std::optional<double> rel_residual, max_rel_err_cpu;
  std::string note;
};

class CsvWriter {
 public:
  CsvWriter(const std::string& path, std::string device) : out_(path), device_(std::move(device)) {
    if (!out_) throw OutputError("peers_bench: cannot open '" + path + "' for writing");
    out_ << "device,solver,problem,scalar,mesh,dim,n1,n2,n3,unknowns,setup_s,h2d_ms,d2h_ms,reps,"
            "median_ms,min_ms,max_ms,transform_ms,tridiag_ms,gflop,gflops,gbytes,gbs,"
            "ceiling_gflops,ceiling_gbs,rel_residual,max_rel_err_cpu,note\n";
    out_.flush();
  }
  void write(const Row& r) {
    auto opt = [](const std::optional<double>& v) {
      if (!v) return std::string();
      std::ostringstream s;
      s.precision(6);
      s << *v;
      return s.str();
    };
    index_t unknowns = 1;
    for (index_t n : r.shape) unknowns *= n;
    // Text fields are quoted when they hold a comma or a quote (RFC 4180).
    auto text = [](const std::string& v) {
      if (v.find_first_of(",\"") == std::string::npos) return v;
      std::string q = "\"";
      for (char ch : v) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
      return q + "\"";
    };
    auto dim_n = [&](std::size_t d) {
      return d < r.shape.size() ? std::to_string(r.shape[d]) : std::string();
    };
    std::optional<double> gflop, gflops, gbytes, gbs;
    if (r.flops) gflop = *r.flops * 1e-9;
    if (r.bytes) gbytes = *r.bytes * 1e-9;
    if (r.flops && r.median_ms) gflops = *r.flops * 1e-6 / *r.median_ms;
    if (r.bytes && r.median_ms) gbs = *r.bytes * 1e-6 / *r.median_ms;
    out_ << text(device_) << ',' << r.solver << ',' << text(r.problem) << ',' << r.scalar << ','
         << r.mesh << ',' << r.shape.size() << ',' << dim_n(0) << ',' << dim_n(1) << ',' << dim_n(2)
         << ',' << unknowns << ',' << opt(r.setup_s) << ',' << opt(r.h2d_ms) << ',' << opt(r.d2h_ms)
         << ',' << r.reps << ',' << opt(r.median_ms) << ',' << opt(r.min_ms) << ',' << opt(r.max_ms)
         << ',' << opt(r.transform_ms) << ',' << opt(r.tridiag_ms) << ',' << opt(gflop) << ','
         << opt(gflops) << ',' << opt(gbytes) << ',' << opt(gbs) << ',' << opt(r.ceiling_gflops)
         << ',' << opt(r.ceiling_gbs) << ',' << opt(r.rel_residual) << ',' << opt(r.max_rel_err_cpu)
         << ',' << text(r.note) << '\n';
    out_.flush();
    std::cout << r.solver << ' ' << r.problem << ' ' << r.scalar << " n=";
    for (std::size_t d = 0; d < r.shape.size(); ++d) std::cout << (d ? "x" : "") << r.shape[d];
    if (r.median_ms) std::cout << "  median " << *r.median_ms << " ms";
    if (gflops) std::cout << "  " << *gflops << " GFLOP/s";
    if (gbs) std::cout << "  " << *gbs << " GB/s";
    if (r.rel_residual) std::cout << "  residual " << *r.rel_residual;
    if (r.max_rel_err_cpu) std::cout << "  err vs CPU " << *r.max_rel_err_cpu;
    if (!r.note.empty()) std::cout << "  [" << r.note << "]";
    std::cout << std::endl;
  }

 private:
  std::ofstream out_;
  std::string device_;
};

/// Times `run` (enqueues one solve on `stream`): two warm-up runs, then `reps` runs (more for
/// fast cases, up to about 0.2 s of solves), each between two events and synchronized.
/// `marks`, when given, are recorded by `run` inside the solve; their times from the start of
/// each run are returned too.
struct Timing {
  int reps = 0;
  double median_ms = 0, min_ms = 0, max_ms = 0;
  std::vector<double> times_ms;              // per run
  std::vector<std::vector<double>> mark_ms;  // [mark][run]: from the run's start to the mark
};

Timing time_solves(cudaStream_t stream, int min_reps, std::vector<cuda::Event>& marks,
                   const std::function<void()>& run) {
  cuda::Event start, stop;
  auto once = [&](std::vector<double>* stages) {
    start.record(stream);
    run();
    stop.record(stream);
    stop.synchronize();
    if (stages != nullptr)
      for (std::size_t k = 0; k < marks.size(); ++k)
        stages[k].push_back(marks[k].elapsed_ms_since(start));
    return static_cast<double>(stop.elapsed_ms_since(start));
  };
  once(nullptr);
  const double warm = once(nullptr);
  const int reps = std::clamp(static_cast<int>(200.0 / std::max(warm, 1e-3)), min_reps, 200);
  Timing t;
  t.reps = reps;
  t.mark_ms.resize(marks.size());
  for (int k = 0; k < reps; ++k) t.times_ms.push_back(once(t.mark_ms.data()));
  t.median_ms = median(t.times_ms);
  t.min_ms = *std::min_element(t.times_ms.begin(), t.times_ms.end());
  t.max_ms = *std::max_element(t.times_ms.begin(), t.times_ms.end());
  return t;
}

__global__ void fill_kernel(double* x, index_t n, double seed) {
  for (index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; k < n;
       k += static_cast<index_t>(gridDim.x) * blockDim.x)
    x[k] = ::sin(seed + 0.001 * static_cast<double>(k % 100003));
}

void fill(cudaStream_t stream, double* x, index_t n, double seed) {
  fill_kernel<<<1024, 256, 0, stream>>>(x, n, seed);
  PSCR_CUDA_CHECK_LAUNCH();
}

/// The ceilings of the roofline, measured here: DGEMM and ZGEMM rates on square matrices (the
/// largest FD shapes), and the device-to-device copy bandwidth (bytes read + written).
struct Ceilings {
  double dgemm_gflops = 0, zgemm_gflops = 0, copy_gbs = 0;
};

Ceilings measure_ceilings(cudaStream_t stream, const Options& opt, CsvWriter& csv) {
  Ceilings c;
  CublasHandle blas;
  PSCR_CUBLAS_CHECK(cublasSetStream(blas.get(), stream));
  std::vector<cuda::Event> none;
  {
    const int n = opt.quick ? 2048 : 8192;
    const index_t nn = static_cast<index_t>(n) * n;
    cuda::DeviceBuffer<double> a(nn), b(nn), d(nn);
    fill(stream, a.data(), nn, 1.0);
    fill(stream, b.data(), nn, 2.0);
    const double one = 1.0, zero = 0.0;
    const Timing t = time_solves(stream, opt.reps, none, [&] {
      PSCR_CUBLAS_CHECK(cublasDgemm(blas.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a.data(),
                                    n, b.data(), n, &zero, d.data(), n));
    });
    Row r{"ceiling", "dgemm", "real", "", {n, n}};
    r.reps = t.reps;
    r.median_ms = t.median_ms, r.min_ms = t.min_ms, r.max_ms = t.max_ms;
    r.flops = 2.0 * n * static_cast<double>(n) * n;
    c.dgemm_gflops = *r.flops * 1e-6 / t.median_ms;
    r.note = "C = A B with n1 x n1 matrices";
    csv.write(r);
  }
  {
    const int n = opt.quick ? 1024 : 4096;
    const index_t nn = static_cast<index_t>(n) * n;
    cuda::DeviceBuffer<double> a(2 * nn), b(2 * nn), d(2 * nn);
    fill(stream, a.data(), 2 * nn, 3.0);
    fill(stream, b.data(), 2 * nn, 4.0);
    const cuDoubleComplex one = make_cuDoubleComplex(1, 0), zero = make_cuDoubleComplex(0, 0);
    const Timing t = time_solves(stream, opt.reps, none, [&] {
      PSCR_CUBLAS_CHECK(cublasZgemm(blas.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one,
                                    reinterpret_cast<const cuDoubleComplex*>(a.data()), n,
                                    reinterpret_cast<const cuDoubleComplex*>(b.data()), n, &zero,
                                    reinterpret_cast<cuDoubleComplex*>(d.data()), n));
    });
    Row r{"ceiling", "zgemm", "complex", "", {n, n}};
    r.reps = t.reps;
    r.median_ms = t.median_ms, r.min_ms = t.min_ms, r.max_ms = t.max_ms;
    r.flops = 8.0 * n * static_cast<double>(n) * n;
    c.zgemm_gflops = *r.flops * 1e-6 / t.median_ms;
    r.note = "C = A B with n1 x n1 matrices; 8 real flops per complex multiply-add";
    csv.write(r);
  }
  {
    const index_t count = (opt.quick ? 64 : 1024) * (index_t{1} << 20) / index_t{sizeof(double)};
    cuda::DeviceBuffer<double> a(count), b(count);
    fill(stream, a.data(), count, 5.0);
    const Timing t = time_solves(stream, opt.reps, none, [&] {
      PSCR_CUDA_CHECK(
          cudaMemcpyAsync(b.data(), a.data(), a.bytes(), cudaMemcpyDeviceToDevice, stream));
    });
    Row r{"ceiling", "copy", "real", "", {count}};
    r.reps = t.reps;
    r.median_ms = t.median_ms, r.min_ms = t.min_ms, r.max_ms = t.max_ms;
    r.bytes = 2.0 * static_cast<double>(a.bytes());
    c.copy_gbs = *r.bytes * 1e-6 / t.median_ms;
    r.note = "device-to-device cudaMemcpy of n1 doubles; read + write bytes";
    csv.write(r);
  }
  return c;
}

problems::ProblemSpec make_spec(Equation eq, MeshKind mesh, const std::vector<index_t>& shape,
                                std::uint64_t seed, double screening = 0.0) {
  problems::ProblemSpec s;
  s.equation = eq;
  s.screening = screening;
  s.seed = seed;
  const Boundary side = eq == Equation::helmholtz ? Boundary::absorbing : Boundary::dirichlet;
  for (index_t n : shape) {
    problems::DimensionSpec d;
    d.n = n;
    d.mesh.kind = mesh;
    d.left = side;
    d.right = side;
    s.dims.push_back(d);
  }
  return s;
}

std::string problem_name(const problems::ProblemSpec& s) {
  std::ostringstream name;
  if (s.equation == Equation::poisson) {
    name << "poisson";
    if (s.screening != 0) name << " (c=" << s.screening << ")";
  } else {
    name << "helmholtz (omega=" << s.omega << ")";
  }
  return name.str();
}

template <class Scalar>
real_t<Scalar> max_rel_diff(const std::vector<Scalar>& x, const std::vector<Scalar>& ref) {
  real_t<Scalar> diff = 0, scale = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    diff = std::max(diff, std::abs(x[k] - ref[k]));
    scale = std::max(scale, std::abs(ref[k]));
  }
  // NaN anywhere makes the comparison fail.
  for (const Scalar& v : x)
    if (!is_finite(v)) return std::numeric_limits<real_t<Scalar>>::infinity();
  return scale > 0 ? diff / scale : diff;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Result of one case: what the sweep needs to decide on the next size.
struct CaseResult {
  bool ran = false;
  double median_ms = 0;
  double setup_s = 0;
  double max_rel_err = 0;
};

class Bench {
 public:
  Bench(const Options& opt, CsvWriter& csv, Ceilings ceilings)
      : opt_(opt), csv_(csv), ceil_(ceilings) {}

  /// One FD case. With `check`, also solves on the CPU (fd_solve) and records the difference.
  template <class Scalar>
  CaseResult fd_case(const problems::ProblemSpec& spec, bool check) {
    const Problem<Scalar> p = std::get<Problem<Scalar>>(problems::generate(spec));
    const auto shape = p.op.shape();
    Row row{"fd", problem_name(spec), scalar_traits<Scalar>::name, mesh_name(spec), shape};
    row.ceiling_gflops = is_complex_v<Scalar> ? ceil_.zgemm_gflops : ceil_.dgemm_gflops;
    row.ceiling_gbs = ceil_.copy_gbs;
    const std::size_t grid_bytes = static_cast<std::size_t>(p.op.grid_size()) * sizeof(Scalar);
    if (!fits(FdGpuSolver<Scalar>::device_bytes(shape) + 2 * grid_bytes, row)) return {};

    const auto t0 = std::chrono::steady_clock::now();
    const FdSetup<Scalar> setup = fd_setup(p.op);
    row.setup_s = seconds_since(t0);
    row.note = "eigen: " + setup.eig[0].method;
    FdGpuSolver<Scalar> solver(setup);
    std::vector<cuda::Event> marks(2);
    CaseResult res = run_case<Scalar>(p, row, marks, [&](const Scalar* f, Scalar* u) {
      solver.solve(stream_.get(), f, u, &marks[0], &marks[1]);
    });
    row.flops = solver.cost().flops;
    row.bytes = solver.cost().bytes;
    if (check) {
      std::vector<Scalar> ref(p.op.grid_size());
      fd_solve(setup, p.f.data(), ref.data());
      res.max_rel_err = max_rel_diff(last_u<Scalar>(), ref);
      row.max_rel_err_cpu = res.max_rel_err;
      row.note += "; check against the CPU FD solve";
    }
    res.setup_s = *row.setup_s;
    csv_.write(row);
    return res;
  }

  /// One cuFFT case (uniform mesh, Dirichlet Poisson). With `check`, compares with the CPU FD
  /// solve of the same problem.
  CaseResult fft_case(const problems::ProblemSpec& spec, bool check) {
    const Problem<double> p = std::get<Problem<double>>(problems::generate(spec));
    const auto shape = p.op.shape();
    Row row{"fft", problem_name(spec), "real", mesh_name(spec), shape};
    row.ceiling_gflops = ceil_.dgemm_gflops;
    row.ceiling_gbs = ceil_.copy_gbs;
    const std::size_t grid_bytes = static_cast<std::size_t>(p.op.grid_size()) * sizeof(double);
    // cuFFT's work area is of the order of the complex array: count the workspace twice.
    if (!fits(2 * FftPoissonSolver::device_bytes(shape) + 2 * grid_bytes, row)) return {};
    const auto t0 = std::chrono::steady_clock::now();
    FftPoissonSolver solver(p.op);
    row.setup_s = seconds_since(t0);
    std::vector<cuda::Event> marks;
    CaseResult res = run_case<double>(
        p, row, marks, [&](const double* f, double* u) { solver.solve(stream_.get(), f, u); });
    row.flops = solver.cost().flops;
    row.bytes = solver.cost().bytes;
    row.note = "cuFFT D2Z DST-I";
    res.setup_s = *row.setup_s;
    if (check) {
      std::vector<double> ref(p.op.grid_size());
      fd_solve(fd_setup(p.op), p.f.data(), ref.data());
      res.max_rel_err = max_rel_diff(last_u<double>(), ref);
      row.max_rel_err_cpu = res.max_rel_err;
      row.note += "; check against the CPU FD solve";
    }
    csv_.write(row);
    return res;
  }

  /// A sweep over sizes: stops after a size whose median solve exceeds the limit, and skips
  /// (with a row saying why) sizes whose CPU setup, extrapolated as n^power from the last size,
  /// would exceed the budget, or that throw (the error lands in the row's note).
  void sweep(const std::vector<index_t>& sizes, int dim,
             const std::function<CaseResult(index_t)>& run_size,
             const std::function<double(index_t)>& setup_power, const std::string& solver,
             const std::string& what) {
    std::optional<std::pair<index_t, double>> last;  // (n, setup seconds)
    for (index_t n : sizes) {
      if (last) {
        const double predicted =
            last->second *
            std::pow(static_cast<double>(n) / static_cast<double>(last->first), setup_power(n));
        if (predicted > opt_.setup_budget_s) {
          Row r{solver, what, "", "", std::vector<index_t>(dim, n)};
          std::ostringstream note;
          note << "skipped: predicted CPU setup " << predicted << " s > budget "
               << opt_.setup_budget_s << " s";
          r.note = note.str();
          csv_.write(r);
          break;
        }
      }
      CaseResult res;
      try {
        res = run_size(n);
      } catch (const Error& e) {
        // A size that fails (e.g. cuFFT cannot allocate its work area) ends this sweep only.
        Row r{solver, what, "", "", std::vector<index_t>(dim, n)};
        r.note = std::string("failed: ") + e.what();
        csv_.write(r);
        break;
      }
      if (!res.ran) break;
      last = std::make_pair(n, res.setup_s);
      if (res.median_ms > 1e3 * opt_.solve_limit_s) break;
    }
  }

 private:
  static std::string mesh_name(const problems::ProblemSpec& spec) {
    return problems::to_string(spec.dims[0].mesh.kind);
  }

  /// False (and a row saying so) when `need` bytes are more than 90% of the free device memory.
  bool fits(std::size_t need, Row& row) {
    std::size_t free_bytes = 0, total = 0;
    PSCR_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
    if (static_cast<double>(need) <= 0.9 * static_cast<double>(free_bytes)) return true;
    std::ostringstream note;
    note << "skipped: needs " << need / double(1 << 30) << " GiB of device memory, "
         << free_bytes / double(1 << 30) << " GiB free";
    row.note = note.str();
    csv_.write(row);
    return false;
  }

  template <class Scalar>
  const std::vector<Scalar>& last_u() const {
    return std::get<std::vector<Scalar>>(u_);
  }

  /// Uploads f (timed), times the solves, downloads u (timed), computes the relative residual
  /// on the host; fills the row's timings.
  template <class Scalar>
  CaseResult run_case(const Problem<Scalar>& p, Row& row, std::vector<cuda::Event>& marks,
                      const std::function<void(const Scalar*, Scalar*)>& solve) {
    cudaStream_t s = stream_.get();
    const index_t size = p.op.grid_size();
    cuda::DeviceBuffer<Scalar> d_f(size), d_u(size);
    cuda::Event a, b;
    a.record(s);
    PSCR_CUDA_CHECK(
        cudaMemcpyAsync(d_f.data(), p.f.data(), d_f.bytes(), cudaMemcpyHostToDevice, s));
    b.record(s);
    b.synchronize();
    row.h2d_ms = b.elapsed_ms_since(a);

    const Timing t = time_solves(s, opt_.reps, marks, [&] { solve(d_f.data(), d_u.data()); });
    row.reps = t.reps;
    row.median_ms = t.median_ms;
    row.min_ms = t.min_ms;
    row.max_ms = t.max_ms;
    if (marks.size() == 2) {  // FD: marks after the forward transforms and the tridiagonal solves
      std::vector<double> tridiag, transform;
      for (int k = 0; k < t.reps; ++k) {
        tridiag.push_back(t.mark_ms[1][k] - t.mark_ms[0][k]);
        transform.push_back(t.times_ms[k] - tridiag.back());
      }
      row.tridiag_ms = median(tridiag);
      row.transform_ms = median(transform);
    }

    std::vector<Scalar> u(size);
    a.record(s);
    PSCR_CUDA_CHECK(cudaMemcpyAsync(u.data(), d_u.data(), d_u.bytes(), cudaMemcpyDeviceToHost, s));
    b.record(s);
    b.synchronize();
    row.d2h_ms = b.elapsed_ms_since(a);
    row.rel_residual = p.op.relative_residual(u.data(), p.f.data());
    u_ = std::move(u);
    CaseResult res;
    res.ran = true;
    res.median_ms = t.median_ms;
    return res;
  }

  const Options& opt_;
  CsvWriter& csv_;
  Ceilings ceil_;
  cuda::Stream stream_;
  std::variant<std::vector<double>, std::vector<std::complex<double>>> u_;
};

std::vector<index_t> powers(index_t first, index_t last, index_t offset) {
  std::vector<index_t> v;
  for (index_t n = first; n <= last; n *= 2) v.push_back(n + offset);
  return v;
}

int run(const Options& opt) {
  if (cuda::device_count() == 0) {
    std::cerr << "peers_bench: no CUDA device\n";
    return 1;
  }
  cudaDeviceProp prop{};
  PSCR_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  const std::string device = prop.name;
  std::cout << "device: " << device << ", " << prop.totalGlobalMem / double(1 << 30)
            << " GiB; host cores: " << std::thread::hardware_concurrency() << std::endl;
  CsvWriter csv(opt.csv, device);

  // The ceilings, then the correctness checks (GPU against the CPU path on small, odd,
  // non-square sizes), then the sweeps.
  cuda::Stream stream;
  const Ceilings ceilings = measure_ceilings(stream.get(), opt, csv);
  Bench bench(opt, csv, ceilings);
  const double tol = 1e-10;
  int failures = 0;
  auto expect = [&](const CaseResult& r, const char* what) {
    if (!r.ran || !(r.max_rel_err <= tol)) {
      std::cerr << "CHECK FAILED: " << what << ": max relative difference to the CPU result "
                << r.max_rel_err << " (tolerance " << tol << ")\n";
      ++failures;
    }
  };
  expect(bench.fd_case<double>(make_spec(Equation::poisson, MeshKind::random, {37, 29}, 11), true),
         "fd 2D Poisson 37x29");
  expect(bench.fd_case<std::complex<double>>(
             make_spec(Equation::helmholtz, MeshKind::random, {33, 21}, 12), true),
         "fd 2D Helmholtz 33x21");
  expect(
      bench.fd_case<double>(make_spec(Equation::poisson, MeshKind::graded, {13, 11, 9}, 13), true),
      "fd 3D Poisson 13x11x9");
  expect(bench.fd_case<std::complex<double>>(
             make_spec(Equation::helmholtz, MeshKind::random, {9, 12, 7}, 14), true),
         "fd 3D Helmholtz 9x12x7");
  expect(bench.fft_case(make_spec(Equation::poisson, MeshKind::uniform, {37, 29}, 15, 2.5), true),
         "fft 2D Poisson 37x29 (c = 2.5)");
  expect(bench.fft_case(make_spec(Equation::poisson, MeshKind::uniform, {13, 11, 9}, 16), true),
         "fft 3D Poisson 13x11x9");
  if (failures > 0) {
    std::cerr << "peers_bench: " << failures << " correctness check(s) failed; no timings\n";
    return 1;
  }

  const index_t max2 = opt.quick ? 256 : 16384, max3 = opt.quick ? 64 : 512;
  // CPU setup cost: dstemr does O(n²) work per dimension but measures about n^2.3–2.5 at these
  // sizes (its n² outputs outgrow the caches); the dense eigensolvers are O(n³).
  auto power_real = [](index_t) { return 2.5; };
  auto power_dense = [](index_t) { return 3.0; };
  std::uint64_t seed = 100;
  bench.sweep(
      powers(32, max2, 0), 2,
      [&](index_t n) {
        return bench.fd_case<double>(make_spec(Equation::poisson, MeshKind::random, {n, n}, seed++),
                                     false);
      },
      power_real, "fd", "poisson");
  bench.sweep(
      powers(32, max2 / 2, -1), 2,
      [&](index_t n) {
        return bench.fd_case<std::complex<double>>(
            make_spec(Equation::helmholtz, MeshKind::random, {n, n}, seed++), false);
      },
      power_dense, "fd", "helmholtz");
  bench.sweep(
      powers(32, max3, -1), 3,
      [&](index_t n) {
        return bench.fd_case<double>(
            make_spec(Equation::poisson, MeshKind::random, {n, n, n}, seed++), false);
      },
      power_real, "fd", "poisson");
  std::vector<index_t> helmholtz3 = powers(32, max3, -1);
  if (!opt.quick) helmholtz3.insert(helmholtz3.end() - 1, 361);  // the paper's largest 3D case
  bench.sweep(
      helmholtz3, 3,
      [&](index_t n) {
        return bench.fd_case<std::complex<double>>(
            make_spec(Equation::helmholtz, MeshKind::random, {n, n, n}, seed++), false);
      },
      power_dense, "fd", "helmholtz");
  // cuFFT on uniform grids: the paper's sizes (n = 2^k) and the FFT-friendly n = 2^k − 1
  // (transform length 2(n + 1) a power of two).
  for (index_t offset : {index_t{0}, index_t{-1}}) {
    bench.sweep(
        powers(32, max2, offset), 2,
        [&](index_t n) {
          return bench.fft_case(make_spec(Equation::poisson, MeshKind::uniform, {n, n}, seed++),
                                false);
        },
        power_real, "fft", "poisson");
    bench.sweep(
        powers(32, max3, offset), 3,
        [&](index_t n) {
          return bench.fft_case(make_spec(Equation::poisson, MeshKind::uniform, {n, n, n}, seed++),
                                false);
        },
        power_real, "fft", "poisson");
  }
  return 0;
}

}  // namespace
}  // namespace pscr::peers

int main(int argc, char** argv) {
  std::optional<pscr::peers::Options> opt;
  try {
    opt = pscr::peers::parse(argc, argv);
  } catch (const pscr::InputError& e) {
    std::cerr << "peers_bench: " << e.what() << '\n' << pscr::peers::kUsage;
    return 2;
  }
  if (!opt) return 0;  // --help
  try {
    return pscr::peers::run(*opt);
  } catch (const std::exception& e) {
    std::cerr << "peers_bench: " << e.what() << "\n";
    return 1;
  }
}
