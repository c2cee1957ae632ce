// Benchmark of eigen_init (issue 3): the time of compute_eigen_data for the first dimension of
// 2D problems, n1 = 255 … 8191, real Poisson (Dirichlet, lumped mass) and complex Helmholtz
// (absorbing ends, consistent mass, 10 points per wavelength), uniform and randomly perturbed
// meshes. One warm-up run, then the median of the repeats. Also printed: the number of distinct
// block pencils, the work Σ m² over them (the O(n1²) the method costs), the time per unit of
// that work, and the largest error of the identity W Wᵀ = M⁻¹ on the stored rows of every
// distinct pencil (the production check of Wᵀ M W = I; plain transpose for complex).
//
// Usage: eigen_init_bench [OUTPUT.csv [MAX_N1]]   (defaults bench/results/eigen_init-cpu.csv,
// 8191; --help). Threads: OMP_NUM_THREADS (OPENBLAS_NUM_THREADS is recorded too). Exit code: 0
// done, 1 the output cannot be written, 2 bad arguments.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "bench/cli.hpp"
#include "common/error.hpp"
#include "eigen_init/eigen_init.hpp"
#include "problems/generate.hpp"

namespace {

using pscr::index_t;
using C = std::complex<double>;

/// Column s of M⁻¹ (tridiagonal M) by Gaussian elimination without pivoting.
template <class Scalar>
std::vector<Scalar> inverse_column(const pscr::SymTridiag<Scalar>& M, index_t s) {
  const index_t m = M.size();
  std::vector<Scalar> d(M.diag), x(m, Scalar{});
  x[s] = Scalar(1);
  for (index_t k = 1; k < m; ++k) {
    const Scalar f = M.off[k - 1] / d[k - 1];
    d[k] -= f * M.off[k - 1];
    x[k] -= f * x[k - 1];
  }
  x[m - 1] /= d[m - 1];
  for (index_t k = m - 2; k >= 0; --k) x[k] = (x[k] - M.off[k] * x[k + 1]) / d[k];
  return x;
}

/// max over stored rows r, s of |Σ_l W(r,l) W(s,l) − (M⁻¹)_rs| / max |(M⁻¹)_rr| for the first
/// block of every distinct entry.
template <class Scalar>
double identity_error(const pscr::Factor<Scalar>& f, const pscr::EigenData<Scalar>& data) {
  double worst = 0;
  std::vector<bool> done(data.distinct.size(), false);
  for (int i = 1; i <= data.partition.num_levels(); ++i) {
    const auto& blocks = data.partition.level(i).blocks;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      const index_t e = data.block_entry[i - 1][b];
      if (done[e]) continue;
      done[e] = true;
      const pscr::BlockEigen<Scalar>& be = data.distinct[e];
      const pscr::SymTridiag<Scalar> M = f.M.submatrix(blocks[b].first, blocks[b].last);
      const index_t m = be.size(), nr = static_cast<index_t>(be.rows.size());
      std::vector<std::vector<Scalar>> cols;
      double scale = 0;
      for (index_t s = 0; s < nr; ++s) {
        cols.push_back(inverse_column(M, be.rows[s]));
        scale = std::max(scale, std::abs(cols.back()[be.rows[s]]));
      }
      for (index_t r = 0; r < nr; ++r)
        for (index_t s = 0; s < nr; ++s) {
          Scalar sum{};
          for (index_t l = 0; l < m; ++l) sum += be.row(r)[l] * be.row(s)[l];
          worst = std::max(worst, std::abs(sum - cols[s][be.rows[r]]) / scale);
        }
    }
  }
  return worst;
}

struct Result {
  double median = 0, min = 0, cpu = 0;
  index_t distinct = 0;
  double work = 0;
  double identity = 0;
};

template <class Scalar>
Result run(const pscr::Factor<Scalar>& f, int repeats) {
  const pscr::Partition part(f.size());
  pscr::EigenData<Scalar> data = pscr::compute_eigen_data(f, part);  // warm-up
  std::vector<double> times, cpu;
  for (int k = 0; k < repeats; ++k) {
    const std::clock_t c0 = std::clock();
    const auto t0 = std::chrono::steady_clock::now();
    data = pscr::compute_eigen_data(f, part);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    cpu.push_back(static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
  }
  std::sort(times.begin(), times.end());
  std::sort(cpu.begin(), cpu.end());
  Result r;
  r.cpu = cpu[cpu.size() / 2];
  r.median = times[times.size() / 2];
  r.min = times.front();
  r.distinct = static_cast<index_t>(data.distinct.size());
  for (const auto& e : data.distinct) r.work += static_cast<double>(e.size()) * e.size();
  r.identity = identity_error(f, data);
  return r;
}

}  // namespace

/// The load average of the machine (/proc/loadavg), for the record.
std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return in ? one + " " + five + " " + fifteen : "unknown";
}

/// The value of an environment variable at run time, or "unset".
std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "unset";
}

constexpr const char* kUsage =
    "usage: eigen_init_bench [OUTPUT.csv [MAX_N1]]   (defaults bench/results/eigen_init-cpu.csv, "
    "8191)\n";

int main(int argc, char** argv) {
  namespace pp = pscr::problems;
  if (argc >= 2 && pscr::bench::is_help(argv[1])) {
    std::cout << kUsage
              << "Times compute_eigen_data for dimension 1 of 2D Poisson and Helmholtz problems,\n"
                 "n1 = 255, 511, ... up to MAX_N1 (see the file's header). Threads: "
                 "OMP_NUM_THREADS.\n";
    return 0;
  }
  std::string out = "bench/results/eigen_init-cpu.csv";
  index_t max_n = 8191;
  try {
    if (argc > 3) PSCR_INPUT_ERROR("expected at most 2 arguments, found " << argc - 1);
    for (int a = 1; a < argc; ++a)
      if (argv[a][0] == '-') PSCR_INPUT_ERROR("unknown option '" << argv[a] << "'");
    if (argc > 1) out = argv[1];
    if (argc > 2) max_n = pscr::bench::parse_positive("MAX_N1", argv[2]);
    if (max_n < 255) PSCR_INPUT_ERROR("MAX_N1: expected at least 255, found " << max_n);
  } catch (const pscr::InputError& e) {
    std::cerr << "eigen_init_bench: " << e.what() << '\n' << kUsage;
    return 2;
  }
  std::ofstream csv(out);
  if (!csv) {
    std::cerr << "eigen_init_bench: cannot write " << out << "\n";
    return 1;
  }
  csv << "# eigen_init_bench: compute_eigen_data for dimension 1 of 2D problems (issue 3).\n"
      << "# Machine: the 2-core CI-class machine the project is developed on (shared with other "
         "jobs, so times are noisy); OpenMP threads: "
      << omp_get_max_threads() << "; OPENBLAS_NUM_THREADS: " << environment("OPENBLAS_NUM_THREADS")
      << ". Load average at the start: " << load_average()
      << ". Median and minimum of the repeats after one warm-up.\n"
      << "# cpu_s = median CPU time of the process (all threads), less sensitive to the load of "
         "the\n"
      << "# shared machine than the wall times; work = sum of m^2 over distinct block pencils;\n"
      << "# ns_per_work = 1e9 * cpu_s / work;\n"
      << "# identity_error = max |(W W^T)_rs - (M^-1)_rs| / max (M^-1)_rr over stored rows.\n"
      << "equation,mesh,n1,repeats,median_s,min_s,cpu_s,distinct_blocks,work,ns_per_work,"
         "identity_error\n";
  std::printf("%-9s %-9s %6s %10s %10s %10s %8s %12s %8s %10s\n", "equation", "mesh", "n1",
              "median_s", "min_s", "cpu_s", "distinct", "work", "ns/work", "identity");
  for (index_t n = 255; n <= max_n; n = 2 * n + 1) {
    const int repeats = n <= 1023 ? 7 : (n <= 4095 ? 5 : 3);
    for (const char* mesh : {"uniform", "random"}) {
      pp::DimensionSpec dim;
      dim.mesh.kind = std::string(mesh) == "uniform" ? pp::MeshKind::uniform : pp::MeshKind::random;
      dim.mesh.perturbation = 0.3;
      for (const char* equation : {"poisson", "helmholtz"}) {
        Result r;
        if (std::string(equation) == "poisson") {
          dim.n = n;
          dim.left = dim.right = pp::Boundary::dirichlet;
          const auto steps = pp::mesh_steps(dim, 7);
          r = run(pp::poisson_factor(steps, dim.left, dim.right), repeats);
        } else {
          dim.n = n;
          dim.left = dim.right = pp::Boundary::absorbing;
          const auto steps = pp::mesh_steps(dim, 7);
          const double omega = 2 * std::acos(-1.0) / (10.0 / static_cast<double>(n - 1));
          r = run(pp::helmholtz_factor(steps, dim.left, dim.right, omega), repeats);
        }
        const double ns = r.cpu / r.work * 1e9;
        std::printf("%-9s %-9s %6ld %10.4f %10.4f %10.4f %8ld %12.4g %8.2f %10.2e\n", equation,
                    mesh, static_cast<long>(n), r.median, r.min, r.cpu,
                    static_cast<long>(r.distinct), r.work, ns, r.identity);
        std::fflush(stdout);
        csv << equation << "," << mesh << "," << n << "," << repeats << "," << r.median << ","
            << r.min << "," << r.cpu << "," << r.distinct << "," << r.work << "," << ns << ","
            << r.identity << "\n";
      }
    }
  }
  csv << "# Load average at the end: " << load_average() << "\n";
  return 0;
}
