//===- EnvParse.cpp - Strict parsers for environment values ---------------===//
#include "EnvParse.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cctype>

namespace hccl::rt::env {

std::optional<uint64_t> parseUnsigned(std::string_view s) {
  if (s.empty())
    return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return std::nullopt;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10)
      return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char &c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool isIpLiteral(std::string_view s) {
  std::string str(s);
  in_addr a4;
  in6_addr a6;
  return inet_pton(AF_INET, str.c_str(), &a4) == 1 ||
         inet_pton(AF_INET6, str.c_str(), &a6) == 1;
}

std::string checkIfnameSpec(std::string_view s) {
  std::string_view rest = s;
  if (!rest.empty() && rest.front() == '^')
    rest.remove_prefix(1);
  if (!rest.empty() && rest.front() == '=')
    rest.remove_prefix(1);
  if (rest.empty())
    return "no interface name after the '^'/'=' prefix";
  size_t index = 1;
  while (true) {
    size_t comma = rest.find(',');
    std::string_view name = rest.substr(0, comma);
    if (name.empty())
      return "interface name " + std::to_string(index) + " is empty";
    if (name.size() > 15)
      return "interface name '" + std::string(name) +
             "' is longer than 15 characters";
    for (char c : name) {
      unsigned char u = static_cast<unsigned char>(c);
      if (!std::isprint(u) || std::isspace(u))
        return "interface name " + std::to_string(index) +
               " contains a space or control character";
      if (c == '/' || c == ':' || c == '=' || c == '^')
        return "interface name '" + std::string(name) +
               "' contains the character '" + std::string(1, c) + "'";
    }
    if (comma == std::string_view::npos)
      break;
    rest.remove_prefix(comma + 1);
    ++index;
  }
  return "";
}

} // namespace hccl::rt::env
