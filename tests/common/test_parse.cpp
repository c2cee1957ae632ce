// common/parse.hpp: a number is read only when the whole text is one.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/parse.hpp"

namespace pscr {
namespace {

TEST(ParseInteger, WholeTextOnly) {
  EXPECT_EQ(parse_integer("42"), 42);
  EXPECT_EQ(parse_integer("-7"), -7);
  EXPECT_EQ(parse_integer("+3"), 3);
  EXPECT_EQ(parse_integer("9223372036854775807"), std::numeric_limits<long long>::max());
  for (const char* bad :
       {"", " ", "12x", "x12", "1.5", "1e3", "0x10", "12 ", "--3", "9223372036854775808"})
    EXPECT_FALSE(parse_integer(bad).has_value()) << "'" << bad << "'";
}

TEST(ParseReal, WholeTextOnly) {
  EXPECT_EQ(parse_real("0.25"), 0.25);
  EXPECT_EQ(parse_real("-1e-3"), -1e-3);
  EXPECT_EQ(parse_real("7"), 7.0);
  // What std::stod reads whole: infinities and NaN too, left to the caller's range check.
  EXPECT_TRUE(std::isinf(*parse_real("inf")));
  EXPECT_TRUE(std::isnan(*parse_real("nan")));
  for (const char* bad : {"", "abc", "1.5.2", "1e", "2 ", "1e3.5", "0.1x", "1e999"})
    EXPECT_FALSE(parse_real(bad).has_value()) << "'" << bad << "'";
}

}  // namespace
}  // namespace pscr
