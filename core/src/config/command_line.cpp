#include "libreyolo/core/config/command_line.hpp"

#include <boost/program_options.hpp>

#include <algorithm>
#include <map>

#include "libreyolo/core/error.hpp"
#include "option_spelling.hpp"
#include "user_value.hpp"

namespace po = boost::program_options;

namespace libreyolo::core::config {
namespace {

// key=value -> --key=value; --key-name -> --key_name. Boost.Program_options then does the
// rest (both --key value and --key=value, implicit values for bare boolean flags).
std::vector<std::string> to_gnu_style(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const auto& arg : args) {
    std::string token = arg;
    const auto eq = token.find('=');
    if (token.rfind("--", 0) != 0 && token.rfind('-', 0) != 0 && eq != std::string::npos &&
        eq > 0) {
      token = "--" + token;
    }
    if (token.rfind("--", 0) == 0) {
      const auto end = token.find('=');
      std::replace(token.begin() + 2, end == std::string::npos ? token.end() : token.begin() + end,
                   '-', '_');
    }
    out.push_back(token);
  }
  return out;
}

// The user's spelling of an option token, for error messages.
std::string key_of(const std::string& token) {
  std::string key = token;
  while (!key.empty() && key.front() == '-') key.erase(0, 1);
  return key.substr(0, key.find('='));
}

// `epochs=` (an unset shell variable: epochs=$EPOCHS): Boost would call it a syntax error
// ("should follow immediately after the equal sign"); it is an option without a value.
void refuse_empty_values(const std::vector<std::string>& args, const OptionTable& table) {
  for (const auto& arg : args) {
    const auto eq = arg.find('=');
    if (eq == std::string::npos || eq + 1 != arg.size() || key_of(arg).empty()) continue;
    parse_user_value(table.require(key_of(arg), "the command line"), "", "the command line");  // throws
  }
}

}  // namespace

CommandLine parse_command_line(const std::vector<std::string>& args, const OptionTable& table) {
  po::options_description described;
  auto add = [&](const std::string& name, OptionType type) {
    auto* value = po::value<std::string>();
    if (type == OptionType::boolean) value->implicit_value("true");
    described.add_options()(name.c_str(), value);
  };
  for (const auto& spec : table.specs()) add(spec.name, spec.type);
  for (const auto& [alias, target] : table.aliases()) add(alias, table.find(target)->type);
  described.add_options()("positional__", po::value<std::vector<std::string>>());
  po::positional_options_description positional;
  positional.add("positional__", -1);

  refuse_empty_values(args, table);
  const auto gnu = to_gnu_style(args);
  po::parsed_options parsed(&described);
  try {
    parsed = po::command_line_parser(gnu)
                 .options(described)
                 .positional(positional)
                 .style(po::command_line_style::unix_style ^ po::command_line_style::allow_guessing)
                 .run();
  } catch (const po::unknown_option& e) {
    table.require(key_of(e.get_option_name()), "the command line");  // throws with a suggestion
    throw;
  } catch (const po::error& e) {
    throw Error("could not read the command line", e.what(),
                "write options as key=value or --key value");
  }

  CommandLine result;
  std::map<std::string, std::string> spelling_of;  // canonical name -> the user's first spelling
  for (const auto& option : parsed.options) {
    if (option.string_key == "positional__") {
      result.positionals.insert(result.positionals.end(), option.value.begin(),
                                option.value.end());
      continue;
    }
    const auto& spec = table.require(option.string_key, "the command line");
    refuse_second_spelling(spec.name, option.string_key, spelling_of, "the command line");
    if (option.value.empty() && spec.type == OptionType::boolean) {
      result.options.emplace_back(spec.name, "true");  // a bare flag: --exist_ok
      continue;
    }
    if (option.value.empty()) {
      throw Error("option '" + spec.name + "' has no value on the command line",
                  "expected " + describe_type(spec), "write " + spec.name + "=<value>");
    }
    result.options.emplace_back(spec.name, option.value.front());
  }
  return result;
}

}  // namespace libreyolo::core::config
