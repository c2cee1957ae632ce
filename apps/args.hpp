#pragma once
/// @file A small command-line parser for the subcommands of `pscr`: options with values
/// (`--name value` or `--name=value`), flags, positional arguments, generated --help.

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace pscr::app {

/// @brief A bad command line (exit code 2); the message says what was wrong.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// @brief Declares the options of one subcommand, then parses argv against them.
class ArgParser {
 public:
  ArgParser(std::string command, std::string summary)
      : command_(std::move(command)), summary_(std::move(summary)) {}

  /// An option taking a value; `default_value` empty means "no default".
  void option(const std::string& name, const std::string& metavar, const std::string& help,
              const std::string& default_value = "");
  /// A flag (no value).
  void flag(const std::string& name, const std::string& help);
  /// A positional argument (required, in declaration order).
  void positional(const std::string& name, const std::string& help);

  /// Parses the arguments after the subcommand name. Returns false when --help was asked (the
  /// help text is then in help()). Throws UsageError on unknown options, missing values or
  /// missing/extra positionals.
  bool parse(const std::vector<std::string>& args);

  std::string help() const;
  std::string get(const std::string& name) const;  ///< throws UsageError if absent
  bool given(const std::string& name) const;       ///< on the command line (a flag: set)
  std::string positional_value(const std::string& name) const;

  long get_int(const std::string& name, long min_value) const;
  double get_double(const std::string& name) const;

 private:
  struct Option {
    std::string name, metavar, help, default_value;
    bool is_flag = false;
  };
  std::string command_, summary_;
  std::vector<Option> options_;
  std::vector<std::pair<std::string, std::string>> positional_decl_;
  std::map<std::string, std::string> values_;
  std::map<std::string, std::string> positional_values_;
  const Option* find(const std::string& name) const;
};

/// @brief Splits "a,b,c" at commas (no empty items: throws UsageError naming the option).
std::vector<std::string> split_list(const std::string& text, const std::string& option);

}  // namespace pscr::app
