// Benchmark of the CPU backend of radix-4 PSCR against the CPU column of myllykoski2018
// (Tables 1–4: one core of an Intel i5-6600, double precision, initialization excluded).
//
// For each case: build the problem (uniform mesh, random right-hand side), build the solver
// (init time, reported apart), one warm-up solve, then `repeat` timed solves; report the median
// and the minimum, GFLOP/s from the solver's own flop count, the relative residual, and the
// speed-up of each thread count over 1 thread.
//
// Usage: pscr_cpu_bench [--cases LIST] [--threads LIST] [--repeat R] [--machine NAME]
//                       [--csv FILE] [--refine on|off]
//   LIST of cases: comma-separated names such as p2-512, p3-63, h2-511, h3-63, or the groups
//   "paper" (every case of the paper's CPU tables that fits in memory) and "quick".
//   --refine off times PSCR alone (as the paper does); on (default) includes the solver's residual
//   check and its refinement steps, if any.
// Output: a CSV table on stdout (and appended to --csv FILE when given).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench/cli.hpp"
#include "common/error.hpp"
#include "problems/generate.hpp"
#include "pscr/reference/solver.hpp"

namespace {

struct Case {
  std::string name;
  bool helmholtz;
  int dim;
  pscr::index_t n;
  double paper_seconds;  // CPU column of the paper's table, 0 if not listed
};

// Tables 1–4 of myllykoski2018, CPU column (Intel i5-6600, one core).
const std::vector<Case>& all_cases() {
  static const std::vector<Case> cases = {
      {"p2-512", false, 2, 512, 0.0200},   {"p2-1024", false, 2, 1024, 0.0829},
      {"p2-2048", false, 2, 2048, 0.4005}, {"p2-4096", false, 2, 4096, 1.6845},
      {"h2-511", true, 2, 511, 0.0593},    {"h2-1023", true, 2, 1023, 0.2292},
      {"h2-2047", true, 2, 2047, 1.2619},  {"h2-4095", true, 2, 4095, 5.7642},
      {"p3-63", false, 3, 63, 0.0478},     {"p3-127", false, 3, 127, 0.7523},
      {"p3-255", false, 3, 255, 6.5014},   {"h3-63", true, 3, 63, 0.1327},
      {"h3-127", true, 3, 127, 2.1733},    {"h3-255", true, 3, 255, 20.007},
      {"p2-8192", false, 2, 8192, 8.0182}, {"p3-31", false, 3, 31, 0.0058},
      {"h3-31", true, 3, 31, 0.0150},
  };
  return cases;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

pscr::problems::ProblemSpec spec_of(const Case& c) {
  using pscr::problems::Boundary;
  pscr::problems::ProblemSpec spec;
  spec.equation =
      c.helmholtz ? pscr::problems::Equation::helmholtz : pscr::problems::Equation::poisson;
  const Boundary side = c.helmholtz ? Boundary::absorbing : Boundary::dirichlet;
  for (int d = 0; d < c.dim; ++d) spec.dims.push_back({c.n, {}, side, side});
  // Helmholtz: 10 points per wavelength on the unit interval, ω = 2π (n + 1) / 10.
  spec.omega = 2.0 * M_PI * static_cast<double>(c.n + 1) / 10.0;
  spec.rhs = pscr::problems::RhsKind::random;
  spec.seed = 7;
  return spec;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

struct Row {
  Case c;
  int threads;
  double init = 0, med = 0, min = 0, cpu = 0, gflops = 0, residual = 0;
  long pivoted = 0, refinements = 0;
  std::string kernels;
  double load = 0;
};

/// CPU time of the process (all threads), seconds.
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// The 1-minute load average: how busy the machine was (the timings are only meaningful when it
/// is below the number of cores minus the threads used).
double load_average() {
  std::ifstream in("/proc/loadavg");
  double load = -1;
  in >> load;
  return load;
}

template <class Scalar>
std::vector<Row> run_case(const Case& c, const std::vector<int>& threads, int repeat, bool refine) {
  auto any = pscr::problems::generate(spec_of(c));
  auto& p = std::get<pscr::Problem<Scalar>>(any);
  std::vector<Row> rows;
  std::vector<Scalar> u(p.f.size());
  for (int t : threads) {
    pscr::reference::SolverOptions opt;
    opt.threads = t;
    if (!refine) opt.max_refinements = 0;
    pscr::reference::Solver<Scalar> solver(p.op, opt);
    const double load = load_average();
    solver.solve(p.f.data(), u.data());  // warm-up
    std::vector<double> times, cpu;
    double flops = 0;
    for (int r = 0; r < repeat; ++r) {
      const double c0 = cpu_seconds();
      solver.solve(p.f.data(), u.data());
      cpu.push_back(cpu_seconds() - c0);
      times.push_back(solver.last_solve().seconds);
      flops = solver.last_solve().flops;
    }
    Row row;
    row.c = c;
    row.threads = t;
    row.init = solver.init_seconds();
    row.med = median(times);
    row.min = *std::min_element(times.begin(), times.end());
    row.cpu = median(cpu);
    row.pivoted = static_cast<long>(solver.last_solve().pivoted);
    row.refinements = static_cast<long>(solver.last_solve().refinements);
    row.load = load;
    row.kernels = solver.kernels();
    row.gflops = flops / row.med * 1e-9;
    row.residual = static_cast<double>(p.op.relative_residual(u.data(), p.f.data()));
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

constexpr const char* kUsage =
    "usage: pscr_cpu_bench [--cases LIST] [--threads LIST] [--repeat R] [--machine NAME] "
    "[--csv FILE] [--refine on|off]\n";

int main(int argc, char** argv) {
  std::string cases_arg = "quick";
  std::string threads_arg = "1,2";
  std::string machine = "unknown";
  std::string csv;
  int repeat = 5;
  bool refine = true;
  std::vector<std::string> names;
  std::vector<int> threads;
  try {
    for (int a = 1; a < argc; ++a) {
      const std::string arg = argv[a];
      if (pscr::bench::is_help(arg)) {
        std::cout << kUsage
                  << "Times the CPU backend against the CPU tables of myllykoski2018 (see the "
                     "file's header);\ncases: p2-N, h2-N, p3-N, h3-N of the paper, or the groups "
                     "paper and quick (default).\n";
        return 0;
      }
      auto value = [&]() -> std::string { return pscr::bench::option_value(argc, argv, a); };
      if (arg == "--cases") {
        cases_arg = value();
      } else if (arg == "--threads") {
        threads_arg = value();
      } else if (arg == "--repeat") {
        repeat = pscr::bench::parse_positive<int>(arg, value());
      } else if (arg == "--machine") {
        machine = value();
      } else if (arg == "--csv") {
        csv = value();
      } else if (arg == "--refine") {
        const std::string mode = value();
        if (mode != "on" && mode != "off")
          PSCR_INPUT_ERROR("--refine: expected on or off, found '" << mode << "'");
        refine = mode == "on";
      } else {
        PSCR_INPUT_ERROR("unknown argument '" << arg << "'");
      }
    }
    for (const auto& item : split(cases_arg)) {
      if (item == "paper") {
        for (const char* n :
             {"p2-512", "p2-1024", "p2-2048", "p2-4096", "h2-511", "h2-1023", "h2-2047", "h2-4095",
              "p3-63", "p3-127", "p3-255", "h3-63", "h3-127", "h3-255"})
          names.push_back(n);
      } else if (item == "quick") {
        for (const char* n : {"p2-512", "p2-1024", "h2-511", "p3-63", "h3-63"}) names.push_back(n);
      } else if (std::none_of(all_cases().begin(), all_cases().end(),
                              [&](const Case& c) { return c.name == item; })) {
        PSCR_INPUT_ERROR("--cases: unknown case '" << item << "'");
      } else {
        names.push_back(item);
      }
    }
    for (const auto& t : split(threads_arg))
      threads.push_back(pscr::bench::parse_positive<int>("--threads", t));
    if (names.empty() || threads.empty())
      PSCR_INPUT_ERROR("expected at least one case and one thread count");
  } catch (const pscr::InputError& e) {
    std::cerr << "pscr_cpu_bench: " << e.what() << '\n' << kUsage;
    return 2;
  }

  const std::string header =
      "machine,case,equation,dim,n,unknowns,threads,init_s,solve_median_s,solve_min_s,cpu_median_s,"
      "gflops,speedup_vs_1thread,paper_cpu_s,paper_over_ours,residual,pivoted,refinements,load,"
      "kernels,refine";
  std::cout << header << "\n";
  std::ofstream out;
  if (!csv.empty()) {
    const bool exists = std::ifstream(csv).good();
    out.open(csv, std::ios::app);
    if (!exists) out << header << "\n";
  }
  try {
    for (const auto& name : names) {
      const auto it = std::find_if(all_cases().begin(), all_cases().end(),
                                   [&](const Case& c) { return c.name == name; });
      const auto rows = it->helmholtz ? run_case<std::complex<double>>(*it, threads, repeat, refine)
                                      : run_case<double>(*it, threads, repeat, refine);
      double t1 = 0;
      for (const auto& r : rows)
        if (r.threads == 1) t1 = r.med;
      for (const auto& r : rows) {
        std::ostringstream line;
        double unknowns = 1;
        for (int d = 0; d < r.c.dim; ++d) unknowns *= static_cast<double>(r.c.n);
        line << machine << "," << r.c.name << "," << (r.c.helmholtz ? "helmholtz" : "poisson")
             << "," << r.c.dim << "," << r.c.n << "," << unknowns << "," << r.threads << ","
             << r.init << "," << r.med << "," << r.min << "," << r.cpu << "," << r.gflops << ","
             << (t1 > 0 ? t1 / r.med : 0.0) << "," << r.c.paper_seconds << ","
             << (r.c.paper_seconds > 0 ? r.c.paper_seconds / r.med : 0.0) << "," << r.residual
             << "," << r.pivoted << "," << r.refinements << "," << r.load << "," << r.kernels << ","
             << (refine ? "on" : "off");
        std::cout << line.str() << std::endl;
        if (out) out << line.str() << std::endl;
      }
    }
  } catch (const pscr::Error& e) {
    std::cerr << "pscr_cpu_bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
