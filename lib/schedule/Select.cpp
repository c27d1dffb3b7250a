//===- Select.cpp - HCCL_ALGO parsing and algorithm selection -------------===//
#include "hccl-mlir/schedule/Select.h"

#include "hccl-mlir/schedule/Cost.h"
#include "hccl-mlir/schedule/Generate.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace hccl::sched {
namespace {

std::string trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a])))
    ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1])))
    --b;
  return std::string(s.substr(a, b - a));
}

std::string lower(std::string s) {
  for (char &c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  return out;
}

bool serves(const std::vector<Algorithm> &v, Algorithm a) {
  return std::find(v.begin(), v.end(), a) != v.end();
}

} // namespace

std::string hcclAlgoNameList() {
  return "ring, H-D_R, NHR, NB, pipeline, pairwise, fullmesh, NA (HCCL), or "
         "ring, mesh, mesh_oneshot, rhd, rd, tree, star, pairwise";
}

Result<LevelChoice> parseLevelAlgorithm(std::string_view name) {
  std::string l = lower(trim(name));
  LevelChoice c;
  if (l == "na")
    return c;
  if (l == "h-d_r" || l == "nhr") {
    c.algorithm = Algorithm::RHD;
    return c;
  }
  if (l == "nb") {
    c.algorithm = Algorithm::RecursiveDoubling;
    return c;
  }
  if (l == "fullmesh") {
    c.algorithm = Algorithm::MeshTwoShot;
    return c;
  }
  if (l == "pipeline") {
    c.algorithm = Algorithm::Ring;
    c.pipeline = true;
    return c;
  }
  if (l != "hierarchical")
    if (auto a = parseAlgorithm(l)) {
      c.algorithm = *a;
      return c;
    }
  return Result<LevelChoice>::error("unknown algorithm '" + trim(name) +
                                    "' (valid: " + hcclAlgoNameList() + ")");
}

Result<HcclAlgoSpec> parseHcclAlgo(std::string_view text) {
  using R = Result<HcclAlgoSpec>;
  HcclAlgoSpec spec;
  std::string all = trim(text);
  if (all.empty())
    return R::error("HCCL_ALGO: empty value (expected e.g. "
                    "\"level0:NA;level1:H-D_R\")");
  bool sawGlobal = false;
  for (const std::string &item : split(all, '/')) {
    if (item.empty())
      return R::error("HCCL_ALGO: empty item in '" + all + "'");
    std::string levels = item;
    std::vector<Collective> targets;
    bool global = true;
    size_t eq = item.find('=');
    if (eq != std::string::npos) {
      std::string op = trim(item.substr(0, eq));
      auto c = parseCollective(op);
      if (!c)
        return R::error("HCCL_ALGO: unknown collective '" + op + "' in '" +
                        item + "' (valid: " + collectiveNameList() + ")");
      targets.push_back(*c);
      levels = item.substr(eq + 1);
      global = false;
    } else {
      if (sawGlobal)
        return R::error("HCCL_ALGO: more than one item without a collective "
                        "in '" +
                        all + "'");
      sawGlobal = true;
      for (int i = 0; i < kNumCollectives; ++i)
        targets.push_back(static_cast<Collective>(i));
    }
    AlgoLevels lv;
    lv.set = true;
    lv.global = global;
    bool seen[2] = {false, false};
    for (const std::string &part : split(levels, ';')) {
      if (part.empty())
        continue; // tolerate "level0:NA;"
      size_t colon = part.find(':');
      if (colon == std::string::npos)
        return R::error("HCCL_ALGO: expected 'levelN:ALGORITHM', found '" +
                        part + "'");
      std::string level = lower(trim(part.substr(0, colon)));
      int idx = -1;
      if (level == "level0")
        idx = 0;
      else if (level == "level1")
        idx = 1;
      else if (level == "level2" || level == "level3")
        return R::error("HCCL_ALGO: " + level +
                        " (inter-superpod) is not "
                        "supported; use level0 (intra-server) and level1 "
                        "(inter-server)");
      else
        return R::error("HCCL_ALGO: unknown level '" +
                        trim(part.substr(0, colon)) +
                        "' (valid: level0, level1)");
      if (seen[idx])
        return R::error("HCCL_ALGO: " + level + " given twice in '" + item +
                        "'");
      seen[idx] = true;
      auto choice = parseLevelAlgorithm(part.substr(colon + 1));
      if (!choice)
        return R::error("HCCL_ALGO: " + level + ": " + choice.message());
      (idx == 0 ? lv.level0 : lv.level1) = *choice;
    }
    if (!seen[0] && !seen[1])
      return R::error("HCCL_ALGO: no level given in '" + item + "'");
    for (Collective c : targets) {
      // A per-collective item overrides the global one.
      if (global && spec.perCollective[static_cast<int>(c)].set)
        continue;
      spec.perCollective[static_cast<int>(c)] = lv;
    }
  }
  return spec;
}

Result<Selection> selectAlgorithm(const SelectRequest &req,
                                  const Topology &topo) {
  using R = Result<Selection>;
  Collective c = req.collective;
  GroupPlacement pl =
      req.placement ? *req.placement
                    : serverMajorPlacement(req.p, req.ranksPerServer > 0
                                                      ? req.ranksPerServer
                                                      : topo.devicesPerServer);
  if (pl.p < 1)
    return R::error("select: p must be >= 1");
  Selection sel;
  ClosedFormRequest cf;
  cf.collective = c;
  cf.bytes = req.bytes;
  cf.elemBytes = req.elemBytes;
  cf.pieces = req.pieces;

  auto price = [&](Algorithm a, Algorithm l0, Algorithm l1,
                   bool podSplit) -> double {
    cf.algorithm = a;
    cf.level0 = l0;
    cf.level1 = l1;
    cf.podSplit = podSplit;
    auto t = placedClosedFormCost(cf, pl, topo);
    return t ? *t : NAN;
  };
  // A priced option once: one rank per server makes a hierarchy its
  // inter-server level alone, which runs as that flat algorithm.
  auto consider = [&](Algorithm a, Algorithm l0, Algorithm l1,
                      bool podSplit = false) {
    if (!podSplit && a == Algorithm::Hierarchical && pl.ranksPerServer == 1)
      a = l1;
    if (a != Algorithm::Hierarchical)
      l0 = l1 = Algorithm::Ring;
    for (const Candidate &o : sel.candidates)
      if (o.algorithm == a && o.level0 == l0 && o.level1 == l1 &&
          o.podSplit == podSplit)
        return;
    double t = price(a, l0, l1, podSplit);
    if (!std::isnan(t))
      sel.candidates.push_back({a, l0, l1, t, podSplit});
  };
  // Every option the override allows (all of them without one).
  std::vector<Algorithm> flatAlgs, l0s, l1s;
  for (Algorithm a : algorithmsFor(c))
    if (a != Algorithm::Hierarchical)
      flatAlgs.push_back(a);
  l0s = levelAlgorithmsFor(c, 0);
  l1s = levelAlgorithmsFor(c, 1);
  bool allowFlat = true, allowHier = pl.hierarchical() && !l0s.empty();

  const AlgoLevels *ov =
      req.override ? &req.override->forCollective(c) : nullptr;
  if (ov && ov->set) {
    sel.overridden = true;
    auto restrict = [&](const LevelChoice &lc, std::vector<Algorithm> &set,
                        int level) -> Status {
      if (!lc.algorithm)
        return Status::ok();
      Algorithm a = *lc.algorithm;
      if ((c == Collective::Broadcast || c == Collective::Reduce) &&
          a == Algorithm::MeshTwoShot)
        a = Algorithm::Star;
      if (serves(set, a)) {
        set = {a};
        return Status::ok();
      }
      if (ov->global)
        return Status::ok(); // not applicable to this collective: automatic
      return Status::error(std::string("HCCL_ALGO: level") +
                           std::to_string(level) + " algorithm '" +
                           algorithmName(*lc.algorithm) + "' cannot serve " +
                           collectiveName(c));
    };
    if (pl.servers > 1) {
      // Across servers the levels speak: hierarchical, each level
      // restricted.
      if (ov->level1.pipeline) {
        l0s = {Algorithm::Ring};
        l1s = {Algorithm::Ring};
      }
      if (Status s = restrict(ov->level0, l0s, 0); !s)
        return R(s);
      if (Status s = restrict(ov->level1, l1s, 1); !s)
        return R(s);
      // Flat algorithms stay candidates only for collectives without a
      // hierarchical form (all-to-all: level1 pairwise / level0 fullmesh).
      allowFlat = l0s.empty() || levelAlgorithmsFor(c, 0).empty();
      if (allowFlat) {
        const LevelChoice &lc = ov->level1.algorithm ? ov->level1 : ov->level0;
        if (Status s = restrict(lc, flatAlgs, 1); !s)
          return R(s);
      }
    } else {
      // One server: level0 picks the flat algorithm.
      if (Status s = restrict(ov->level0, flatAlgs, 0); !s)
        return R(s);
      allowHier = false;
    }
  }
  if (allowFlat)
    for (Algorithm a : flatAlgs)
      consider(a, Algorithm::Ring, Algorithm::Ring);
  if (allowHier)
    for (Algorithm l0 : l0s)
      for (Algorithm l1 : l1s)
        consider(Algorithm::Hierarchical, l0, l1);
  // Super pods: the same levels split at the pod (level 0 over the pod's
  // bus). HCCL_ALGO's levels name the server split only.
  if (pl.podHierarchical() && !sel.overridden)
    for (Algorithm l0 : levelAlgorithmsFor(c, 0))
      for (Algorithm l1 : levelAlgorithmsFor(c, 1))
        consider(Algorithm::Hierarchical, l0, l1, /*podSplit=*/true);
  if (sel.candidates.empty())
    return R::error(pl.servers > 1 && pl.ranksPerServer == 0
                        ? "no flat algorithm is allowed, and the group's "
                          "ranks are not spread evenly over the servers"
                        : "no algorithm is allowed");
  const Candidate *best = &sel.candidates.front();
  for (const Candidate &cand : sel.candidates)
    if (cheaperBeyondRounding(cand.seconds, best->seconds))
      best = &cand;
  sel.algorithm = best->algorithm;
  sel.level0 = best->level0;
  sel.level1 = best->level1;
  sel.seconds = best->seconds;
  sel.podSplit = best->podSplit;
  return sel;
}

} // namespace hccl::sched
