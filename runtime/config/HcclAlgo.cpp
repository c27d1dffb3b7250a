//===- HcclAlgo.cpp - HCCL_ALGO as HCCL accepts it ------------------------===//
//
// HCCL accepts more in HCCL_ALGO than the host runtime can act on: a level2
// (super-pod) level, NHR_V1 and AHC algorithms, and sections for operations
// the runtime builds from other collectives (scatter=, alltoallvc= ...).
// Such values must not stop init: each part without an equivalent here is
// dropped with a warning, NHR_V1 runs as NHR, and what is left goes to
// lib/schedule's parser. Values HCCL rejects too (unknown level or
// algorithm names, syntax errors) stay errors.
//
//===----------------------------------------------------------------------===//
#include "EnvParse.h"
#include "config/Config.h"

namespace hccl::rt {
namespace {

std::vector<std::string> splitOn(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t p = s.find(sep, start);
    out.emplace_back(s.substr(start, p == std::string_view::npos
                                         ? std::string_view::npos
                                         : p - start));
    if (p == std::string_view::npos)
      return out;
    start = p + 1;
  }
}

std::string trimmed(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos)
    return "";
  size_t e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

/// HCCL operation names whose HCCL_ALGO section has no counterpart here:
/// these calls run as other collectives (docs/compatibility.md).
bool isHcclOnlyOp(const std::string &op) {
  static const char *const kOps[] = {
      "scatter", "alltoallvc", "allgatherv",    "reducescatterv",
      "send",    "recv",       "batchsendrecv", "gather"};
  for (const char *o : kOps)
    if (op == o)
      return true;
  return false;
}

} // namespace

std::string setHcclAlgo(std::string_view value, const std::string &source,
                        Config &c) {
  std::vector<std::string> items;
  std::vector<std::string> notes;
  for (const std::string &rawItem : splitOn(value, '/')) {
    std::string item = trimmed(rawItem);
    std::string prefix, levels = item;
    size_t eq = item.find('=');
    if (eq != std::string::npos) {
      std::string op = env::lower(trimmed(item.substr(0, eq)));
      if (isHcclOnlyOp(op)) {
        notes.push_back("section '" + item + "' has no effect here (" + op +
                        " runs as other collectives)");
        continue;
      }
      prefix = item.substr(0, eq + 1);
      levels = item.substr(eq + 1);
    }
    std::vector<std::string> kept;
    for (const std::string &rawPart : splitOn(levels, ';')) {
      std::string part = trimmed(rawPart);
      if (part.empty())
        continue;
      size_t colon = part.find(':');
      if (colon == std::string::npos) {
        kept.push_back(part); // the parser words the syntax error
        continue;
      }
      std::string level = env::lower(trimmed(part.substr(0, colon)));
      std::string algo = trimmed(part.substr(colon + 1));
      std::string algoLower = env::lower(algo);
      if (level == "level2" || level == "level3") {
        notes.push_back("'" + part +
                        "' has no effect here (no super-pod level on the "
                        "host runtime)");
        continue;
      }
      if (algoLower == "ahc" || algoLower == "ahc_broke") {
        notes.push_back("'" + part + "': " + algo +
                        " is not available here; that level is chosen "
                        "automatically");
        continue;
      }
      if (algoLower == "nhr_v1") {
        notes.push_back("'" + part + "': NHR_V1 runs as NHR here");
        algo = "NHR";
      }
      kept.push_back(part.substr(0, colon) + ":" + algo);
    }
    if (kept.empty()) {
      if (!item.empty())
        notes.push_back("'" + item +
                        "' names no level this runtime has; automatic choice");
      continue;
    }
    std::string joined;
    for (const std::string &k : kept)
      joined += (joined.empty() ? "" : ";") + k;
    items.push_back(prefix + joined);
  }
  std::string filtered;
  for (const std::string &i : items)
    filtered += (filtered.empty() ? "" : "/") + i;
  for (const std::string &n : notes)
    c.warnings.push_back(source + "=" + std::string(value) + ": " + n);
  c.algo.clear();
  c.algoSpec.reset();
  if (filtered.empty())
    return ""; // nothing left: the automatic choice, with the warnings above
  sched::Result<sched::HcclAlgoSpec> spec = sched::parseHcclAlgo(filtered);
  if (!spec)
    return spec.message() + " (syntax: level0:NA;level1:H-D_R or "
                            "allreduce=level0:NA;level1:ring/allgather=...)";
  c.algo = filtered;
  c.algoSpec = spec.take();
  return "";
}

} // namespace hccl::rt
