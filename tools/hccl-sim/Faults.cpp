//===- Faults.cpp - --slow-link and --fail-link ---------------------------===//
#include "Faults.h"

#include "RequestArgs.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

namespace hccl::sim {

using tools::bad;

namespace {

std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep))
    out.push_back(cur);
  if (!s.empty() && s.back() == sep)
    out.push_back("");
  return out;
}

int rankField(const std::string &where, const std::string &v) {
  if (v.empty() || v.size() > 7 ||
      v.find_first_not_of("0123456789") != std::string::npos)
    bad(where + ": rank '" + v + "' is not a rank number");
  return std::atoi(v.c_str());
}

double realField(const std::string &where, const std::string &what,
                 const std::string &v, double lo, bool loOpen, double hi) {
  char *end = nullptr;
  double x = v.empty() ? NAN : std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !std::isfinite(x) ||
      (loOpen ? !(x > lo) : !(x >= lo)) || !(x <= hi)) {
    std::ostringstream os;
    os << where << ": " << what << " '" << v << "' must be a number in "
       << (loOpen ? "(" : "[") << lo << ", " << hi << "]";
    bad(os.str());
  }
  return x;
}

} // namespace

std::vector<Jitter> parseJitter(const std::string &text) {
  std::vector<Jitter> out;
  for (const std::string &entry : split(text, ',')) {
    std::string where = "--jitter '" + entry + "'";
    std::vector<std::string> f = split(entry, ':');
    if (f.size() != 4 || f[0] != "nic")
      bad(where + ": expected nic:RANK:PROBABILITY:EXTRA_US");
    Jitter j;
    j.text = entry;
    j.rank = rankField(where, f[1]);
    j.probability = realField(where, "the probability", f[2], 0, true, 1);
    j.extraUs = realField(where, "the extra latency (us)", f[3], 0, true, 1e9);
    out.push_back(j);
  }
  return out;
}

std::vector<LinkFault> parseFaults(const std::string &option,
                                   const std::string &text, bool slow) {
  std::vector<LinkFault> out;
  const std::string forms =
      slow ? "nic:RANK:FRACTION, ub:RANK:FRACTION or hccs:A:B:FRACTION"
           : "nic:RANK, ub:RANK or hccs:A:B";
  for (const std::string &entry : split(text, ',')) {
    std::string where = "--" + option + " '" + entry + "'";
    std::vector<std::string> f = split(entry, ':');
    LinkFault lf;
    lf.text = entry;
    lf.failed = !slow;
    size_t want = 0;
    if (!f.empty() && (f[0] == "nic" || f[0] == "ub"))
      want = slow ? 3 : 2;
    else if (!f.empty() && f[0] == "hccs")
      want = slow ? 4 : 3;
    if (want == 0 || f.size() != want)
      bad(where + ": expected " + forms);
    lf.where = f[0] == "nic"  ? LinkFault::Where::Nic
               : f[0] == "ub" ? LinkFault::Where::Ub
                              : LinkFault::Where::Hccs;
    lf.a = rankField(where, f[1]);
    if (lf.where == LinkFault::Where::Hccs) {
      lf.b = rankField(where, f[2]);
      if (lf.a == lf.b)
        bad(where + ": an hccs link joins two different ranks");
    }
    if (slow) {
      const std::string &v = f.back();
      char *end = nullptr;
      double x = v.empty() ? NAN : std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !(x > 0 && x <= 1))
        bad(where + ": the fraction '" + v +
            "' must be a number in (0, 1] (0.25 = a quarter of the "
            "bandwidth)");
      lf.fraction = x;
    }
    out.push_back(lf);
  }
  return out;
}

} // namespace hccl::sim
