// Eigen-data files: round trips of compute_eigen_data's output (real Poisson and complex
// Helmholtz factors, uniform and random meshes, one and two dimensions), rejection for other
// factors, and rejection of inconsistent files.
#include <gtest/gtest.h>

#include "eigen_init/eigen_init.hpp"
#include "io/eigen_data_file.hpp"
#include "problems/generate.hpp"
#include "tests/io/h5_edit.hpp"
#include "tests/io/io_test_util.hpp"
#include "tests/support/typed.hpp"

namespace pscr {
namespace {

using testing::expect_input_error;
using testing::H5Edit;

/// A test problem's factor: Poisson (real, Dirichlet) or Helmholtz (complex, absorbing left side).
template <class Scalar>
Factor<Scalar> test_factor(index_t n, problems::MeshKind mesh, std::uint64_t seed) {
  problems::DimensionSpec dim;
  dim.n = n;
  dim.mesh.kind = mesh;
  if constexpr (is_complex_v<Scalar>) {
    dim.left = problems::Boundary::absorbing;
    return problems::helmholtz_factor(problems::mesh_steps(dim, seed), dim.left, dim.right, 20.0);
  } else {
    return problems::poisson_factor(problems::mesh_steps(dim, seed), dim.left, dim.right);
  }
}

template <class Scalar>
void expect_same(const EigenData<Scalar>& a, const EigenData<Scalar>& b) {
  EXPECT_EQ(a.partition.size(), b.partition.size());
  EXPECT_EQ(a.partition.radix(), b.partition.radix());
  EXPECT_EQ(a.block_entry, b.block_entry);
  ASSERT_EQ(a.distinct.size(), b.distinct.size());
  for (std::size_t e = 0; e < a.distinct.size(); ++e) {
    EXPECT_EQ(a.distinct[e].lambda, b.distinct[e].lambda) << "entry " << e;
    EXPECT_EQ(a.distinct[e].rows, b.distinct[e].rows) << "entry " << e;
    EXPECT_EQ(a.distinct[e].W, b.distinct[e].W) << "entry " << e;
  }
}

template <class Scalar>
class EigenDataFileTest : public ::testing::Test {};
TYPED_TEST_SUITE(EigenDataFileTest, testing::ScalarTypes);

TYPED_TEST(EigenDataFileTest, RoundTrip) {
  using Scalar = TypeParam;
  testing::TempDir dir;
  std::uint64_t seed = 1;
  for (index_t n : {1, 2, 3, 4, 5, 15, 16, 17, 64}) {
    for (auto mesh : {problems::MeshKind::uniform, problems::MeshKind::random}) {
      const Factor<Scalar> f1 = test_factor<Scalar>(n, mesh, seed);
      const Factor<Scalar> f2 = test_factor<Scalar>(n + 2, mesh, seed + 1);
      const std::vector<EigenData<Scalar>> data = {compute_eigen_data(f1, Partition(n)),
                                                   compute_eigen_data(f2, Partition(n + 2))};
      // 2D keeps the eigen-data of dimension 1, 3D those of dimensions 1 and 2.
      for (std::size_t dims : {1, 2}) {
        const std::vector<EigenData<Scalar>> written(data.begin(), data.begin() + dims);
        std::vector<const Factor<Scalar>*> factors = {&f1, &f2};
        factors.resize(dims);
        const std::string path = dir.file("e" + std::to_string(seed++) + ".h5");
        io::write_eigen_data(path, written, factors, false);
        const auto back = io::read_eigen_data(path, factors);
        ASSERT_EQ(back.size(), dims);
        for (std::size_t d = 0; d < dims; ++d) expect_same(written[d], back[d]);
        // The header (pscr info) says the same without the factors.
        const io::EigenDataHeader header = io::read_eigen_data_header(path);
        EXPECT_EQ(header.scalar, scalar_traits<Scalar>::name);
        ASSERT_EQ(header.dimensions.size(), dims);
        for (std::size_t d = 0; d < dims; ++d) {
          EXPECT_EQ(header.dimensions[d].n, factors[d]->size());
          EXPECT_EQ(header.dimensions[d].radix, written[d].partition.radix());
          EXPECT_EQ(header.dimensions[d].factor_checksum, io::factor_checksum(*factors[d]));
        }
      }
    }
  }
}

TYPED_TEST(EigenDataFileTest, RejectedForOtherFactors) {
  using Scalar = TypeParam;
  testing::TempDir dir;
  const std::string path = dir.file("e.h5");
  const Factor<Scalar> f = test_factor<Scalar>(17, problems::MeshKind::random, 3);
  io::write_eigen_data<Scalar>(path, {compute_eigen_data(f, Partition(17))}, {&f}, false);

  Factor<Scalar> changed = f;
  changed.A.off[5] *= 1.0 + 1e-15;  // a change of a few ulps must be caught
  expect_input_error([&] { io::read_eigen_data<Scalar>(path, {&changed}); },
                     {path, "`factor_checksum` of `dim1`", "different factor entries"});
  const Factor<Scalar> other_size = test_factor<Scalar>(16, problems::MeshKind::random, 3);
  expect_input_error([&] { io::read_eigen_data<Scalar>(path, {&other_size}); },
                     {path, "`n` of `dim1`", "expected 16", "found 17"});
  expect_input_error(
      [&] {
        io::read_eigen_data<Scalar>(path, {&f, &f});
      },
      {path, "`dimensions`", "expected 2", "found 1"});
}

TEST(EigenDataFile, RejectedForOtherScalarType) {
  testing::TempDir dir;
  const std::string path = dir.file("e.h5");
  const Factor<double> f = test_factor<double>(5, problems::MeshKind::uniform, 1);
  io::write_eigen_data<double>(path, {compute_eigen_data(f, Partition(5))}, {&f}, false);
  Factor<std::complex<double>> fc;
  fc.A.diag.assign(f.A.diag.begin(), f.A.diag.end());
  fc.A.off.assign(f.A.off.begin(), f.A.off.end());
  fc.M.diag.assign(f.M.diag.begin(), f.M.diag.end());
  fc.M.off.assign(f.M.off.begin(), f.M.off.end());
  expect_input_error([&] { io::read_eigen_data<std::complex<double>>(path, {&fc}); },
                     {path, "`scalar`", "expected \"complex\"", "found \"real\""});
}

TEST(EigenDataFile, ChecksumIsDocumentedFnv1a) {
  // n = 1, A = [1], M = [2]: FNV-1a over int64 1, float64 1.0, float64 2.0 (docs/file-format.md);
  // the value was computed with the numpy snippet of the documentation.
  Factor<double> f;
  f.A.diag = {1.0};
  f.M.diag = {2.0};
  EXPECT_EQ(io::factor_checksum(f), 0xd8c11bf21e0d3b59ull);
}

/// A good real eigen-data file for a random-mesh Poisson factor of size 17; each test breaks it.
class BadEigenData : public ::testing::Test {
 protected:
  void SetUp() override {
    io::write_eigen_data<double>(path_, {compute_eigen_data(factor_, Partition(17))}, {&factor_},
                                 false);
  }
  void expect_rejected(std::vector<std::string> fragments) {
    fragments.push_back(path_);
    expect_input_error([&] { io::read_eigen_data<double>(path_, {&factor_}); }, fragments);
  }
  testing::TempDir dir_;
  std::string path_ = dir_.file("eigen.h5");
  Factor<double> factor_ = test_factor<double>(17, problems::MeshKind::random, 9);
};

TEST_F(BadEigenData, GoodFileIsAccepted) {
  EXPECT_NO_THROW(io::read_eigen_data<double>(path_, {&factor_}));
}

TEST_F(BadEigenData, ProblemFileIsNotEigenData) {
  H5Edit(path_).put_string_attribute("/", "format", "pscr-problem");
  expect_rejected({"`format`", "expected \"pscr-eigen-data\"", "found \"pscr-problem\""});
}

TEST_F(BadEigenData, MissingDataset) {
  H5Edit(path_).remove("dim1/W");
  expect_rejected({"`dim1/W`", "missing"});
}

TEST_F(BadEigenData, BlockEntryOutOfRange) {
  // 17 = levels of 4 + 1 + 1 blocks (level 1: 5 blocks; level 2: 2; level 3: 1).
  H5Edit(path_).put_doubles("dim1/block_entry", {8}, std::vector<double>(8, 99.0), H5T_STD_I64LE);
  expect_rejected({"`dim1/block_entry`", "expected an entry index in [0,", "found 99"});
}

TEST_F(BadEigenData, LevelCountDiffers) {
  H5Edit(path_).put_doubles("dim1/level_offset", {3}, {0, 5, 8}, H5T_STD_I64LE);
  expect_rejected({"`dim1/level_offset`", "expected 4 offsets (3 levels", "found 3"});
}

TEST_F(BadEigenData, OffsetsDecrease) {
  H5Edit(path_).put_doubles("dim1/level_offset", {4}, {0, 5, 4, 8}, H5T_STD_I64LE);
  expect_rejected({"`dim1/level_offset`", "expected non-decreasing offsets"});
}

TEST_F(BadEigenData, ComponentsTooShort) {
  H5Edit(path_).put_doubles("dim1/W", {3}, {1, 2, 3});
  expect_rejected({"`dim1/W`", "expected", "components", "found 3"});
}

TEST_F(BadEigenData, NonFiniteEigenvalue) {
  H5Edit(path_).put_doubles("dim1/lambda", {1}, {std::nan("")});
  expect_rejected({"`dim1/lambda`", "expected finite values", "nan"});
}

TEST_F(BadEigenData, RadixDiffers) {
  // Radix 2 partitions 17 rows into other blocks: the stored offsets no longer fit.
  H5Edit(path_).put_int_attribute("dim1", "radix", 2);
  expect_rejected({"`dim1/level_offset`", "radix 2"});
}

TEST_F(BadEigenData, HeaderNamesWhatIsMissing) {
  H5Edit(path_).remove_attribute("dim1", "factor_checksum");
  expect_input_error([&] { io::read_eigen_data_header(path_); },
                     {path_, "`factor_checksum`", "missing"});
  H5Edit(path_).put_string_attribute("/", "format", "pscr-problem");
  expect_input_error([&] { io::read_eigen_data_header(path_); }, {path_, "`format`"});
}

TEST_F(BadEigenData, MissingVersion) {
  H5Edit(path_).remove_attribute("/", "format_version");
  expect_rejected({"`format_version`", "missing"});
}

}  // namespace
}  // namespace pscr
