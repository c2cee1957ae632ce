// GPU PSCR benchmark (issue 6): the paper's sizes (myllykoski2018 Tables 1–4) on non-uniform
// (random) meshes, the median solve time over repeated solves after warm-up (initialization
// excluded, host↔device transfers timed apart), the achieved GB/s and GFLOP/s next to the
// device's measured copy bandwidth and FP64 rate, and the share of each kind of stage.
//
// Usage: pscr_gpu_bench --csv FILE [--quick] [--reps N] [--max-solve-s S] [--only SWEEP]
//                       [--sizes N[,N...]] [--stages fused|separate|both]
//   sweeps: poisson2d (n = 32…16384), helmholtz2d (31…8191), poisson3d (31…511),
//           helmholtz3d (31…511); the largest 2D Poisson, 2D and 3D Helmholtz sizes are the
//           issue's "if memory allows" ones, beyond the paper's tables (empty paper_ms and
//           speedup_vs_paper); --quick: the sizes up to 512 (2D) and 63 (3D); --sizes: only
//           these sizes of the sweeps run (each must be a size of one of them), or with --only
//           any sizes of that sweep's problem, in increasing order (empty paper_ms where the
//           paper has no such size);
//   stages: the fused stages wherever they apply (SolverOptions::fusion = StageFusion::always),
//           the separate stages (never), or both, one PSCR row each (default both); the default
//           (automatic) is one of the two per size and GPU (segment_stage_pays in
//           pscr/cuda/stage_fusion.hpp, chosen from these rows). In 3D one more row, "default": the
//           solver with default options (SolverMethod::automatic; column method says what it
//           chose: pscr or fast_diagonalization), what a user gets without asking.
// Exit code: 0 when every solve's residual, computed again on the host, is below its bound
// (column residual_bound: 1e-11 Poisson, 1e-9 Helmholtz, or the rounding floor
// SeparableOperator::residual_rounding_floor where that is larger: it grows with ‖A‖‖u‖/‖f‖; on
// the random 2D Poisson meshes 1.1e-11 at n = 1024, 1.2e-10 at 16384, about 10 times the
// residual of the CPU backend), 1 otherwise, 2 for bad arguments.
//
// Per size: the problem (random mesh, random f, Helmholtz ω = 2π(n+1)/10: 10 points per
// wavelength, absorbing sides), the plan (init_s), one profiled host solve (h2d, d2h, stage shares,
// residual and refinement), then 2 warm-up and `reps` timed solves from device pointers on one
// stream, CUDA events around each (no refinement: the PSCR solve alone, as in the paper). The
// default row's init_s includes its method choice and setup (FD: eigenvectors on the CPU).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bench/cli.hpp"
#include "common/cuda/check.hpp"
#include "common/cuda/device_buffer.hpp"
#include "common/cuda/launch.cuh"
#include "common/error.hpp"
#include "problems/generate.hpp"
#include "pscr/cuda/solver.hpp"

namespace {

using pscr::index_t;

struct Sweep {
  std::string name;
  pscr::problems::Equation equation;
  int dim;
  std::vector<index_t> sizes;
  /// GTX 1080 Ti execution times (Tables 1–4), transfers excluded, for the first sizes; the
  /// last size has none (the paper's 11 GB card did not hold it).
  std::vector<double> paper_s;
  double goal_ms;  ///< issue 6's goal on an H100 at the largest size
  index_t goal_n;
};

std::vector<Sweep> sweeps() {
  using pscr::problems::Equation;
  return {
      {"poisson2d",
       Equation::poisson,
       2,
       {32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384},
       {0.0003, 0.0003, 0.0005, 0.0005, 0.0014, 0.0053, 0.0266, 0.1157, 0.5617},
       12.0,
       8192},
      {"helmholtz2d",
       Equation::helmholtz,
       2,
       {31, 63, 127, 255, 511, 1023, 2047, 4095, 8191},
       {0.0003, 0.0003, 0.0005, 0.0011, 0.0043, 0.0159, 0.0712, 0.2916},
       10.0,
       4095},
      {"poisson3d",
       Equation::poisson,
       3,
       {31, 44, 63, 90, 127, 180, 255, 361, 511},
       {0.0017, 0.0029, 0.0047, 0.0182, 0.0396, 0.1109, 0.2734, 1.3070, 3.6158},
       70.0,
       511},
      {"helmholtz3d",
       Equation::helmholtz,
       3,
       {31, 44, 63, 90, 127, 180, 255, 361, 511},
       {0.0030, 0.0075, 0.0137, 0.0570, 0.1358, 0.4161, 1.0900, 5.1603},
       70.0,
       361},
  };
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

/// FP64 FMA throughput: 8 independent chains per thread.
__global__ void fma_kernel(double* out, int iterations, double a, double b) {
  double x[8];
  for (int k = 0; k < 8; ++k) x[k] = threadIdx.x + k;
  for (int i = 0; i < iterations; ++i)
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = fma(x[k], a, b);
  double s = 0;
  for (int k = 0; k < 8; ++k) s += x[k];
  if (s == 1.2345) out[0] = s;  // keeps the loop alive
}

struct Ceilings {
  double copy_gbs = 0;     ///< device-to-device copy, bytes read + written per second
  double fp64_gflops = 0;  ///< FMA throughput
};

Ceilings measure_ceilings(cudaStream_t stream) {
  Ceilings c;
  const std::size_t bytes = std::size_t{1} << 30;
  pscr::cuda::DeviceBuffer<char> a(bytes), b(bytes);
  pscr::cuda::Event e0, e1;
  std::vector<double> t;
  for (int r = 0; r < 6; ++r) {
    e0.record(stream);
    PSCR_CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice, stream));
    e1.record(stream);
    e1.synchronize();
    if (r > 0) t.push_back(e1.elapsed_ms_since(e0));
  }
  c.copy_gbs = 2.0 * bytes / (median(t) * 1e-3) / 1e9;
  pscr::cuda::DeviceBuffer<double> out(1);
  const int blocks = pscr::cuda::multiprocessors() * 8, threads = 256, iterations = 1 << 14;
  t.clear();
  for (int r = 0; r < 4; ++r) {
    e0.record(stream);
    fma_kernel<<<blocks, threads, 0, stream>>>(out.data(), iterations, 0.999999, 1e-7);
    PSCR_CUDA_CHECK_LAUNCH();
    e1.record(stream);
    e1.synchronize();
    if (r > 0) t.push_back(e1.elapsed_ms_since(e0));
  }
  c.fp64_gflops = 2.0 * 8.0 * iterations * blocks * threads / (median(t) * 1e-3) / 1e9;
  return c;
}

std::string device_name() {
  int device = 0;
  PSCR_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  PSCR_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  return prop.name;
}

struct Row {
  std::string note, method;
  double init_s = 0, h2d_ms = 0, d2h_ms = 0, host_solve_ms = 0, refine_ms = 0;
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int reps = 0;
  double gflop = 0, gbytes = 0;
  double share[6] = {0, 0, 0, 0, 0, 0};
  double residual = NAN, initial_residual = NAN, host_residual = NAN;
  double rounding_floor = 0;  ///< SeparableOperator::residual_rounding_floor of the host solve
  index_t refinements = 0, pivoted = 0, round = 0;
  double device_mib = 0;
};

/// The plan's options for a row: PSCR profiled, one right-hand side per round, fused stages
/// wherever they apply or separate stages; or ("default") the solver's defaults.
pscr::cuda::SolverOptions options_for(const std::string& variant) {
  pscr::cuda::SolverOptions options;
  if (variant == "default") return options;
  options.method = pscr::SolverMethod::pscr;
  options.profile = true;
  options.rhs_per_round = 1;
  options.fusion =
      variant == "fused" ? pscr::cuda::StageFusion::always : pscr::cuda::StageFusion::never;
  return options;
}

template <class Scalar>
Row run_case(const pscr::Problem<Scalar>& p, int reps, const std::string& variant) {
  Row row;
  const index_t n = p.op.grid_size();
  pscr::cuda::Solver<Scalar> solver(p.op, options_for(variant));
  row.method = pscr::to_string(solver.method());
  row.init_s = solver.init_seconds();
  row.round = solver.rhs_per_round();
  row.device_mib = solver.device_bytes() / 1048576.0;
  row.gflop = solver.flops_per_rhs() * 1e-9;
  row.gbytes = solver.bytes_per_rhs() * 1e-9;

  // One host solve: transfers, stage shares of its PSCR solves (the timed solves below do no
  // refinement), residual (device) and refinement (refine_ms: their device time).
  std::vector<Scalar> u(n);
  solver.solve(p.f.data(), u.data());
  const auto& s = solver.last_solve();
  row.h2d_ms = s.upload_ms;
  row.d2h_ms = s.download_ms;
  row.host_solve_ms = s.solve_ms;
  row.residual = s.residual;
  row.initial_residual = s.initial_residual;
  row.refinements = s.refinements;
  row.pivoted = s.pivoted;
  row.refine_ms = s.stages.refine_ms;
  const double parts[6] = {s.stages.rhs_ms,    s.stages.tridiag_ms, s.stages.sum_ms,
                           s.stages.update_ms, s.stages.fused_ms,   s.stages.other_ms};
  double total = 0;
  for (double v : parts) total += v;
  for (int k = 0; k < 6; ++k) row.share[k] = total > 0 ? parts[k] / total : 0;
  row.host_residual = p.op.relative_residual(u.data(), p.f.data());
  row.rounding_floor =
      p.op.residual_rounding_floor(pscr::norm2(u.data(), n), pscr::norm2(p.f.data(), n));

  // Timed PSCR solves from device pointers.
  pscr::cuda::Stream stream;
  pscr::cuda::DeviceBuffer<Scalar> d_f(n), d_u(n);
  d_f.copy_from_host(p.f.data());
  pscr::cuda::Event e0, e1;
  std::vector<double> times;
  for (int r = 0; r < reps + 2; ++r) {
    e0.record(stream.get());
    solver.solve_device(stream.get(), 1, d_f.data(), d_u.data());
    e1.record(stream.get());
    e1.synchronize();
    if (r >= 2) times.push_back(e1.elapsed_ms_since(e0));
  }
  row.reps = reps;
  row.median_ms = median(times);
  row.min_ms = *std::min_element(times.begin(), times.end());
  row.max_ms = *std::max_element(times.begin(), times.end());
  return row;
}

pscr::problems::ProblemSpec spec_for(const Sweep& sw, index_t n) {
  using pscr::problems::Boundary;
  pscr::problems::ProblemSpec spec;
  spec.equation = sw.equation;
  const Boundary side = sw.equation == pscr::problems::Equation::helmholtz ? Boundary::absorbing
                                                                           : Boundary::dirichlet;
  for (int d = 0; d < sw.dim; ++d) {
    pscr::problems::DimensionSpec dim;
    dim.n = n;
    dim.mesh.kind = pscr::problems::MeshKind::random;
    dim.left = dim.right = side;
    spec.dims.push_back(dim);
  }
  spec.omega = 2.0 * M_PI * static_cast<double>(n + 1) / 10.0;
  spec.seed = 2018;
  return spec;
}

}  // namespace

constexpr const char* kUsage =
    "usage: pscr_gpu_bench --csv FILE [--quick] [--reps N] [--max-solve-s S] "
    "[--only poisson2d|helmholtz2d|poisson3d|helmholtz3d] [--sizes N[,N...]] "
    "[--stages fused|separate|both]\n";

int main(int argc, char** argv) {
  std::string csv, only, stages = "both";
  std::set<index_t> sizes;  // empty: every size of a sweep
  bool quick = false;
  int reps = 10;
  double max_solve_s = 2.0;
  try {
    for (int a = 1; a < argc; ++a) {
      const std::string arg = argv[a];
      if (pscr::bench::is_help(arg)) {
        std::cout << kUsage
                  << "Times GPU PSCR solves of the paper's 2D and 3D Poisson and Helmholtz "
                     "sweeps (see the file's header).\n";
        return 0;
      }
      auto value = [&]() -> std::string { return pscr::bench::option_value(argc, argv, a); };
      if (arg == "--csv") {
        csv = value();
      } else if (arg == "--quick") {
        quick = true;
      } else if (arg == "--reps") {
        reps = pscr::bench::parse_positive<int>(arg, value());
      } else if (arg == "--max-solve-s") {
        max_solve_s = pscr::bench::parse_positive_real(arg, value());
      } else if (arg == "--only") {
        only = value();
        const std::vector<Sweep> all = sweeps();
        if (std::none_of(all.begin(), all.end(), [&](const Sweep& sw) { return sw.name == only; }))
          PSCR_INPUT_ERROR(
              "--only: expected poisson2d, helmholtz2d, poisson3d or helmholtz3d, "
              "found '"
              << only << "'");
      } else if (arg == "--sizes") {
        std::istringstream list(value());
        for (std::string item; std::getline(list, item, ',');)
          sizes.insert(pscr::bench::parse_positive("--sizes", item));
      } else if (arg == "--stages") {
        stages = value();
        if (stages != "fused" && stages != "separate" && stages != "both")
          PSCR_INPUT_ERROR("--stages: expected fused, separate or both, found '" << stages << "'");
      } else {
        PSCR_INPUT_ERROR("unknown argument '" << arg << "'");
      }
    }
    if (csv.empty()) PSCR_INPUT_ERROR("--csv FILE is required");
  } catch (const pscr::InputError& e) {
    std::cerr << "pscr_gpu_bench: " << e.what() << '\n' << kUsage;
    return 2;
  }
  for (const index_t n : sizes) {
    bool found = !only.empty();  // --only: any size of its problem
    for (const Sweep& sw : sweeps())
      found = found || std::count(sw.sizes.begin(), sw.sizes.end(), n) > 0;
    if (!found) {
      std::fprintf(stderr,
                   "pscr_gpu_bench: --sizes %ld: no sweep has this size (name the sweep with "
                   "--only to run sizes it does not list)\n",
                   static_cast<long>(n));
      return 2;
    }
  }
  if (pscr::cuda::device_count() == 0) {
    std::fprintf(stderr, "pscr_gpu_bench: no CUDA device\n");
    return 1;
  }
  std::ofstream out(csv);
  out << "device,problem,scalar,mesh,dim,n,stages,unknowns,init_s,h2d_ms,d2h_ms,host_solve_ms,"
         "refine_ms,reps,median_ms,min_ms,max_ms,paper_ms,speedup_vs_paper,goal_ms,gflop,gflops,"
         "gbytes,gbs,"
         "copy_gbs,fp64_gflops,frac_copy,frac_fp64,share_rhs,share_tridiag,share_sum,"
         "share_update,share_fused,share_other,residual,initial_residual,host_residual,"
         "residual_bound,refinements,pivoted,rhs_per_round,device_mib,method,note\n";
  const std::string device = device_name();
  pscr::cuda::Stream stream;
  const Ceilings ceil = measure_ceilings(stream.get());
  std::printf("device %s: copy %.0f GB/s, FP64 FMA %.0f GFLOP/s\n", device.c_str(), ceil.copy_gbs,
              ceil.fp64_gflops);
  std::printf("%-12s %6s %-8s %10s %10s %10s %8s %8s %7s %9s %4s %s\n", "problem", "n", "stages",
              "median_ms", "paper_ms", "speedup", "GB/s", "GFLOP/s", "%copy", "residual", "ref",
              "method");
  bool ok = true;
  std::vector<std::string> goals;
  for (const Sweep& sw : sweeps()) {
    if (!only.empty() && only != sw.name) continue;
    // The sweep's sizes, or those of --sizes (with --only, also sizes the sweep does not list).
    std::vector<index_t> run_sizes;
    for (const index_t n : sw.sizes)
      if (sizes.empty() || sizes.count(n) > 0) run_sizes.push_back(n);
    if (!only.empty())
      for (const index_t n : sizes)
        if (std::count(sw.sizes.begin(), sw.sizes.end(), n) == 0) run_sizes.push_back(n);
    std::sort(run_sizes.begin(), run_sizes.end());
    for (const index_t n : run_sizes) {
      if (quick && n > (sw.dim == 2 ? 512 : 63)) break;
      // The paper's time where the sweep lists n (its k-th size).
      const std::size_t k = static_cast<std::size_t>(
          std::find(sw.sizes.begin(), sw.sizes.end(), n) - sw.sizes.begin());
      const bool helm = sw.equation == pscr::problems::Equation::helmholtz;
      index_t unknowns = 1;
      for (int d = 0; d < sw.dim; ++d) unknowns *= n;
      std::optional<pscr::AnyProblem> any;
      std::string gen_note;
      try {
        any = pscr::problems::generate(spec_for(sw, n));
      } catch (const std::exception& e) {
        gen_note = e.what();
      }
      bool stop = false;
      for (const std::string variant : {"fused", "separate", "default"}) {
        if (variant == "default" ? sw.dim != 3 : stages != "both" && stages != variant) continue;
        Row row;
        row.note = gen_note;
        if (row.note.empty()) {
          try {
            if (helm) {
              row = run_case(std::get<pscr::Problem<std::complex<double>>>(*any), reps, variant);
            } else {
              row = run_case(std::get<pscr::Problem<double>>(*any), reps, variant);
            }
          } catch (const pscr::Error& e) {
            row.note = e.what();
          } catch (const std::bad_alloc&) {
            row.note = "host memory exhausted";
          }
        }
        for (char& ch : row.note)
          if (ch == ',' || ch == '\n') ch = ';';
        const bool has_paper = k < sw.paper_s.size();
        const double paper_ms = has_paper ? sw.paper_s[k] * 1e3 : 0.0;
        // Empty paper and speed-up fields where the paper has no time.
        const std::string paper_field = has_paper ? std::to_string(paper_ms) : "";
        const std::string speedup_field =
            has_paper && row.median_ms > 0 ? std::to_string(paper_ms / row.median_ms) : "";
        const double gflops = row.median_ms > 0 ? row.gflop / (row.median_ms * 1e-3) : 0;
        const double gbs = row.median_ms > 0 ? row.gbytes / (row.median_ms * 1e-3) : 0;
        const double bound = std::max(helm ? 1e-9 : 1e-11, row.rounding_floor);
        const bool good = row.note.empty() && row.host_residual <= bound;
        if (!good) ok = false;
        const bool goal = n == sw.goal_n;
        out << device << ',' << (helm ? "helmholtz" : "poisson") << ','
            << (helm ? "complex" : "real") << ",random," << sw.dim << ',' << n << ',' << variant
            << ',' << unknowns << ',' << row.init_s << ',' << row.h2d_ms << ',' << row.d2h_ms << ','
            << row.host_solve_ms << ',' << row.refine_ms << ',' << row.reps << ',' << row.median_ms
            << ',' << row.min_ms << ',' << row.max_ms << ',' << paper_field << ',' << speedup_field
            << ',' << (goal ? std::to_string(sw.goal_ms) : "") << ',' << row.gflop << ',' << gflops
            << ',' << row.gbytes << ',' << gbs << ',' << ceil.copy_gbs << ',' << ceil.fp64_gflops
            << ',' << gbs / ceil.copy_gbs << ',' << gflops / ceil.fp64_gflops << ',' << row.share[0]
            << ',' << row.share[1] << ',' << row.share[2] << ',' << row.share[3] << ','
            << row.share[4] << ',' << row.share[5] << ',' << row.residual << ','
            << row.initial_residual << ',' << row.host_residual << ',' << bound << ','
            << row.refinements << ',' << row.pivoted << ',' << row.round << ',' << row.device_mib
            << ',' << row.method << ',' << row.note << '\n';
        out.flush();
        std::printf("%-12s %6ld %-8s %10.3f %10.1f %10.1f %8.0f %8.1f %6.1f%% %9.1e %4ld %s%s%s\n",
                    sw.name.c_str(), static_cast<long>(n), variant.c_str(), row.median_ms, paper_ms,
                    row.median_ms > 0 ? paper_ms / row.median_ms : 0.0, gbs, gflops,
                    100 * gbs / ceil.copy_gbs, row.host_residual,
                    static_cast<long>(row.refinements), row.method.c_str(),
                    good ? "" : "  RESIDUAL ABOVE BOUND", row.note.empty() ? "" : "  ");
        if (!row.note.empty()) std::printf("    %s\n", row.note.c_str());
        if (goal) {
          char line[200];
          std::snprintf(line, sizeof line,
                        "%-12s n=%ld %-8s (%s): %.2f ms (goal %.0f ms on an H100): %s",
                        sw.name.c_str(), static_cast<long>(n), variant.c_str(), row.method.c_str(),
                        row.median_ms, sw.goal_ms,
                        row.median_ms > 0 && row.median_ms <= sw.goal_ms ? "met" : "MISSED");
          goals.push_back(line);
        }
        if (!row.note.empty()) {
          std::printf("    (sweep stopped: the larger sizes would fail alike)\n");
          stop = true;
        }
        if (row.median_ms * 1e-3 > max_solve_s) {
          std::printf("    (sweep stopped: median above %.1f s)\n", max_solve_s);
          stop = true;
        }
      }
      if (stop) break;
    }
  }
  std::printf("goals (%s):\n", device.c_str());
  for (const auto& g : goals) std::printf("  %s\n", g.c_str());
  return ok ? 0 : 1;
}
