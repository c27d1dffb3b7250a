//===- EnvParse.h - Strict parsers for environment values -------*- C++ -*-===//
//
// Small helpers shared by the config loader: decimal integers without signs,
// whitespace or overflow; case-insensitive keywords. Each returns nullopt on
// anything it does not accept, and the caller words the error.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_CONFIG_ENVPARSE_H
#define HCCL_RUNTIME_CONFIG_ENVPARSE_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hccl::rt::env {

/// Digits only ("0012" is 12); no sign, no spaces, no suffix; nullopt on
/// overflow of uint64_t.
std::optional<uint64_t> parseUnsigned(std::string_view s);

/// ASCII lower-case copy.
std::string lower(std::string_view s);

/// True if `s` is an IPv4 or IPv6 address literal.
bool isIpLiteral(std::string_view s);

/// Checks an HCCL_SOCKET_IFNAME value: optional "^" (exclude), optional "="
/// (exact names), then a comma-separated list of interface names (1..15
/// characters each, no spaces, '/', ':' or '='). Returns "" when valid,
/// else what is wrong.
std::string checkIfnameSpec(std::string_view s);

} // namespace hccl::rt::env

#endif // HCCL_RUNTIME_CONFIG_ENVPARSE_H
