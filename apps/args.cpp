#include "apps/args.hpp"

#include <limits>
#include <sstream>

#include "common/parse.hpp"

namespace pscr::app {

void ArgParser::option(const std::string& name, const std::string& metavar, const std::string& help,
                       const std::string& default_value) {
  options_.push_back({name, metavar, help, default_value, false});
}

void ArgParser::flag(const std::string& name, const std::string& help) {
  options_.push_back({name, "", help, "", true});
}

void ArgParser::positional(const std::string& name, const std::string& help) {
  positional_decl_.emplace_back(name, help);
}

const ArgParser::Option* ArgParser::find(const std::string& name) const {
  for (const auto& o : options_)
    if (o.name == name) return &o;
  return nullptr;
}

bool ArgParser::parse(const std::vector<std::string>& args) {
  std::vector<std::string> positionals;
  for (std::size_t k = 0; k < args.size(); ++k) {
    const std::string& a = args[k];
    if (a == "-h" || a == "--help") return false;
    if (a.rfind("--", 0) == 0 || (a.size() == 2 && a[0] == '-' && a != "-")) {
      std::string name = a.size() == 2 ? a : a.substr(2);
      std::optional<std::string> value;
      if (const auto eq = name.find('='); eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
      }
      if (name == "-o") name = "output";
      const Option* o = find(name);
      if (o == nullptr)
        throw UsageError("pscr " + command_ + ": unknown option '" + a + "' (see pscr " + command_ +
                         " --help)");
      if (o->is_flag) {
        if (value) throw UsageError("pscr " + command_ + ": --" + name + " takes no value");
        values_[name] = "1";
      } else {
        if (!value) {
          if (k + 1 >= args.size())
            throw UsageError("pscr " + command_ + ": --" + name + " needs a value (" + o->metavar +
                             ")");
          value = args[++k];
        }
        values_[name] = *value;
      }
    } else {
      positionals.push_back(a);
    }
  }
  if (positionals.size() != positional_decl_.size()) {
    std::ostringstream msg;
    msg << "pscr " << command_ << ": expected " << positional_decl_.size() << " argument(s)";
    for (const auto& p : positional_decl_) msg << " " << p.first;
    msg << ", found " << positionals.size() << " (see pscr " << command_ << " --help)";
    throw UsageError(msg.str());
  }
  for (std::size_t k = 0; k < positionals.size(); ++k)
    positional_values_[positional_decl_[k].first] = positionals[k];
  return true;
}

std::string ArgParser::help() const {
  std::ostringstream h;
  h << "Usage: pscr " << command_;
  for (const auto& p : positional_decl_) h << " " << p.first;
  h << " [options]\n\n" << summary_ << "\n";
  if (!positional_decl_.empty()) {
    h << "\nArguments:\n";
    for (const auto& p : positional_decl_) h << "  " << p.first << "\n      " << p.second << "\n";
  }
  h << "\nOptions:\n";
  for (const auto& o : options_) {
    h << "  " << (o.name == "output" ? "-o, --output" : "--" + o.name);
    if (!o.is_flag) h << " " << o.metavar;
    h << "\n      " << o.help;
    if (!o.default_value.empty()) h << " (default: " << o.default_value << ")";
    h << "\n";
  }
  h << "  -h, --help\n      show this help and exit\n";
  return h.str();
}

std::string ArgParser::get(const std::string& name) const {
  if (auto it = values_.find(name); it != values_.end()) return it->second;
  const Option* o = find(name);
  if (o != nullptr && !o->default_value.empty()) return o->default_value;
  throw UsageError("pscr " + command_ + ": --" + name + " is required (see pscr " + command_ +
                   " --help)");
}

bool ArgParser::given(const std::string& name) const {
  return values_.count(name) > 0;
}

std::string ArgParser::positional_value(const std::string& name) const {
  return positional_values_.at(name);
}

long ArgParser::get_int(const std::string& name, long min_value) const {
  const std::string text = get(name);
  const std::optional<long long> v = parse_integer(text);
  if (!v || *v > std::numeric_limits<long>::max())
    throw UsageError("pscr " + command_ + ": --" + name + " expects an integer, found '" + text +
                     "'");
  if (*v < min_value)
    throw UsageError("pscr " + command_ + ": --" + name +
                     " expects an integer >= " + std::to_string(min_value) + ", found " + text);
  return static_cast<long>(*v);
}

double ArgParser::get_double(const std::string& name) const {
  const std::string text = get(name);
  const std::optional<double> v = parse_real(text);
  if (!v)
    throw UsageError("pscr " + command_ + ": --" + name + " expects a number, found '" + text +
                     "'");
  return *v;
}

std::vector<std::string> split_list(const std::string& text, const std::string& option) {
  std::vector<std::string> items;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ',')) {
    if (item.empty()) throw UsageError("--" + option + ": empty item in '" + text + "'");
    items.push_back(item);
  }
  if (items.empty()) throw UsageError("--" + option + ": expected a value, found nothing");
  return items;
}

}  // namespace pscr::app
