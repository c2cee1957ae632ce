#pragma once
/// @file The scalar types every typed test runs for (matches PSCR_FOR_EACH_SCALAR).

#include <gtest/gtest.h>

#include <complex>

namespace pscr::testing {
using ScalarTypes = ::testing::Types<double, std::complex<double>>;
}  // namespace pscr::testing
