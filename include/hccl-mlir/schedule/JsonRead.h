//===- JsonRead.h - The one JSON reading layer ------------------*- C++ -*-===//
//
// Plans, exported graphs, rank tables and link-parameter files are read with
// these functions, so a value means the same and an error reads the same
// in each: "<json path>: <problem>", e.g. "programs[0].ranks: expected an
// integer in 1..1048576, found -4". Every value is type-checked before it is
// read, so nlohmann never throws here; parsing runs without exceptions.
// Shared by lib/schedule and lib/graph (both MLIR-free).
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_SCHEDULE_JSONREAD_H
#define HCCL_MLIR_SCHEDULE_JSONREAD_H

#include "hccl-mlir/schedule/Result.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace hccl::sched::jsonread {

using Json = nlohmann::json;
constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max();

/// "<path>.<key>", or "<key>" at the top (path "").
std::string join(const std::string &path, const std::string &key);
/// "<path>[<i>]".
std::string at(const std::string &path, size_t i);
/// What a value is, for "found ...": its JSON type, or a number's text.
std::string describe(const Json &v);

/// Parses a document that must be a JSON object; errors read "<what>:
/// malformed JSON" or "<what>: expected a JSON object at the top" (without
/// "<what>: " when it is empty, as for any path).
Status parseObject(std::string_view text, const std::string &what, Json &out);

/// `j` is an object whose keys are all in `allowed`; an unknown key reads
/// "<path>.<key>: unknown key (expected a, b, c)".
Status object(const Json &j, const std::string &path,
              std::initializer_list<const char *> allowed);

/// An integer in lo..hi ("expected an integer in lo..hi, found x", or
/// ">= lo" when hi is kNoLimit).
Status integer(const Json &v, const std::string &path, int64_t lo, int64_t hi,
               int64_t &out);
/// A finite number >= lo (> lo when `strict`).
Status number(const Json &v, const std::string &path, double lo, bool strict,
              double &out);
Status string(const Json &v, const std::string &path, std::string &out);
/// An array of integers in lo..hi.
Status intArray(const Json &v, const std::string &path, int64_t lo, int64_t hi,
                std::vector<int64_t> &out);
/// An array of strings.
Status stringArray(const Json &v, const std::string &path,
                   std::vector<std::string> &out);

/// Field forms: a missing key reads "<path>.<key>: missing" when
/// `required`, and leaves `out` as it is otherwise.
Status intField(const Json &o, const char *key, const std::string &path,
                int64_t lo, int64_t hi, int64_t &out, bool required);
Status numberField(const Json &o, const char *key, const std::string &path,
                   double lo, bool strict, double &out, bool required);
Status stringField(const Json &o, const char *key, const std::string &path,
                   std::string &out, bool required);
/// Present: true and `it` at the value; missing: a "missing" error when
/// `required`, else ok with `present` false.
Status field(const Json &o, const char *key, const std::string &path,
             bool required, Json::const_iterator &it, bool &present);

} // namespace hccl::sched::jsonread

#endif // HCCL_MLIR_SCHEDULE_JSONREAD_H
