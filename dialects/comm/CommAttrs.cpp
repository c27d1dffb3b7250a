//===- CommAttrs.cpp - comm attributes: links, topology, algorithms -------===//
#include "hccl-mlir/Dialect/Comm/CommDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace mlir;
using namespace mlir::comm;
namespace sched = hccl::sched;

#include "hccl-mlir/Dialect/Comm/CommEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "hccl-mlir/Dialect/Comm/CommAttrs.cpp.inc"

void CommDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "hccl-mlir/Dialect/Comm/CommAttrs.cpp.inc"
      >();
}

/// Shortest decimal that reads back as the same double ("56", "1.5").
static std::string formatNumber(double v) {
  char buf[64];
  for (int prec = 6; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof(buf), "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v)
      break;
  }
  std::string s(buf);
  // MLIR's lexer reads "1e+06" as integer 1 followed by garbage: spell
  // exponents with a mantissa point.
  if (s.find('e') != std::string::npos && s.find('.') == std::string::npos)
    s.insert(s.find('e'), ".0");
  return s;
}

/// A number written as an integer ("56") or a float ("1.5", "1.0e6").
static ParseResult parseNumber(AsmParser &parser, double &out) {
  int64_t i;
  OptionalParseResult r = parser.parseOptionalInteger(i);
  if (r.has_value()) {
    if (failed(*r))
      return failure();
    out = static_cast<double>(i);
    return success();
  }
  return parser.parseFloat(out);
}

/// A number, or a bracketed list of them (the caches' knees).
static ParseResult parseNumbers(AsmParser &parser,
                                SmallVectorImpl<double> &out) {
  if (failed(parser.parseOptionalLSquare())) {
    double v = 0;
    if (parseNumber(parser, v))
      return failure();
    out.push_back(v);
    return success();
  }
  return parser.parseCommaSeparatedList([&]() -> ParseResult {
    double v = 0;
    if (parseNumber(parser, v))
      return failure();
    out.push_back(v);
    return success();
  }) || parser.parseRSquare()
             ? failure()
             : success();
}

/// One number bare, several in brackets (parseNumbers reads both).
static void printNumbers(AsmPrinter &p, ArrayRef<double> v) {
  if (v.size() == 1) {
    p << formatNumber(v[0]);
    return;
  }
  p << "[";
  llvm::interleaveComma(v, p, [&](double x) { p << formatNumber(x); });
  p << "]";
}

//===----------------------------------------------------------------------===//
// LinkAttr
//===----------------------------------------------------------------------===//

LogicalResult LinkAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               LinkClass, APFloat bandwidthF, APFloat latencyF,
                               int64_t ports) {
  double bandwidth = bandwidthF.convertToDouble();
  double latency = latencyF.convertToDouble();
  // inf would be printed as a keyword the parser does not read back, and
  // would price every transfer at zero or infinity.
  if (!std::isfinite(bandwidth) || !std::isfinite(latency))
    return emitError() << "link bandwidth and latency must be finite, found "
                       << formatNumber(bandwidth) << " GB/s and "
                       << formatNumber(latency) << " us";
  if (!(bandwidth > 0))
    return emitError() << "link bandwidth must be > 0 GB/s, found "
                       << formatNumber(bandwidth);
  if (!(latency >= 0))
    return emitError() << "link latency must be >= 0 us, found "
                       << formatNumber(latency);
  if (ports < 1 || ports > 64)
    return emitError() << "link ports must be in 1..64, found " << ports;
  return success();
}

// #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>
Attribute LinkAttr::parse(AsmParser &parser, Type) {
  StringRef cls;
  double bw = 0, lat = 0;
  int64_t ports = 0;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeyword(&cls))
    return {};
  std::optional<LinkClass> lc = symbolizeLinkClass(cls);
  if (!lc) {
    parser.emitError(loc) << "unknown link class '" << cls
                          << "'; expected one of hccs, pcie, roce, tcp, shm";
    return {};
  }
  if (parser.parseComma() || parser.parseKeyword("bandwidth") ||
      parser.parseEqual() || parseNumber(parser, bw) || parser.parseComma() ||
      parser.parseKeyword("latency") || parser.parseEqual() ||
      parseNumber(parser, lat) || parser.parseComma() ||
      parser.parseKeyword("ports") || parser.parseEqual() ||
      parser.parseInteger(ports) || parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    *lc, APFloat(bw), APFloat(lat), ports);
}

void LinkAttr::print(AsmPrinter &p) const {
  p << "<" << stringifyLinkClass(getLinkClass())
    << ", bandwidth = " << formatNumber(getBandwidth().convertToDouble())
    << ", latency = " << formatNumber(getLatency().convertToDouble())
    << ", ports = " << getPorts() << ">";
}

//===----------------------------------------------------------------------===//
// TopologyAttr
//===----------------------------------------------------------------------===//

static LinkAttr toAttr(MLIRContext *ctx, const sched::LinkParams &l) {
  return LinkAttr::get(ctx, static_cast<LinkClass>(static_cast<int>(l.cls)),
                       APFloat(l.bandwidthGBps), APFloat(l.latencyUs), l.ports);
}

static sched::LinkParams fromAttr(LinkAttr l) {
  sched::LinkParams p;
  p.cls = static_cast<sched::LinkClass>(static_cast<int>(l.getLinkClass()));
  p.bandwidthGBps = l.getBandwidth().convertToDouble();
  p.latencyUs = l.getLatency().convertToDouble();
  p.ports = static_cast<int>(l.getPorts());
  return p;
}

sched::Topology TopologyAttr::toSchedule() const {
  sched::Topology t;
  t.name = getPreset().str();
  t.servers = static_cast<int>(getServers());
  t.devicesPerServer = static_cast<int>(getDevices());
  t.intraShape =
      getIntraRing() ? sched::IntraShape::Ring : sched::IntraShape::FullMesh;
  t.intra = fromAttr(getIntra());
  t.inter = fromAttr(getInter());
  t.reduceGBps = getReduceBandwidth().convertToDouble();
  t.podServers = static_cast<int>(getPodServers());
  if (getScaleUp())
    t.scaleUp = fromAttr(getScaleUp());
  t.collectiveOverheadUs = getOverhead().convertToDouble();
  t.collectiveWakeupUs = getWakeup().convertToDouble();
  t.collectiveWakeupIdleUs = getWakeupIdle().convertToDouble();
  ArrayRef<double> bytes = getCacheBytes().asArrayRef();
  ArrayRef<double> factors = getPastCache().asArrayRef();
  for (size_t i = 0; i < bytes.size() && i < factors.size(); ++i)
    t.cacheKnees.push_back({bytes[i], factors[i]});
  t.computeStealUsPerMB = getSteal().convertToDouble();
  return t;
}

TopologyAttr TopologyAttr::get(MLIRContext *ctx, const sched::Topology &t) {
  SmallVector<double> bytes, factors;
  for (const sched::CacheKnee &k : t.cacheKnees) {
    bytes.push_back(k.bytes);
    factors.push_back(k.factor);
  }
  return get(ctx, t.servers, t.devicesPerServer,
             t.intraShape == sched::IntraShape::Ring, toAttr(ctx, t.intra),
             toAttr(ctx, t.inter), APFloat(t.reduceGBps), t.podServers,
             t.podServers > 0 ? toAttr(ctx, t.scaleUp) : LinkAttr(),
             APFloat(t.collectiveOverheadUs), APFloat(t.collectiveWakeupUs),
             APFloat(t.collectiveWakeupIdleUs),
             DenseF64ArrayAttr::get(ctx, bytes),
             DenseF64ArrayAttr::get(ctx, factors),
             APFloat(t.computeStealUsPerMB), t.name);
}

FailureOr<TopologyAttr>
TopologyAttr::fromSchedule(MLIRContext *ctx, const sched::Topology &t,
                           function_ref<InFlightDiagnostic()> emitError) {
  if (!t.rankServer.empty()) {
    emitError() << "the rank table places ranks on servers out of "
                   "server-major order; #comm.topology cannot express that "
                   "mapping";
    return failure();
  }
  if (!t.serverPod.empty()) {
    emitError() << "the rank table groups servers into super pods out of "
                   "server order or unevenly; #comm.topology carries pods "
                   "of one size in server order only";
    return failure();
  }
  return get(ctx, t);
}

LogicalResult TopologyAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, int64_t servers,
    int64_t devices, bool intraRing, LinkAttr intra, LinkAttr inter,
    APFloat reduceF, int64_t podServers, LinkAttr scaleUp, APFloat overheadF,
    APFloat wakeupF, APFloat wakeupIdleF, DenseF64ArrayAttr cacheA,
    DenseF64ArrayAttr pastCacheA, APFloat stealF, StringRef preset) {
  double reduce = reduceF.convertToDouble();
  double overhead = overheadF.convertToDouble();
  if (!std::isfinite(overhead) || !(overhead >= 0))
    return emitError() << "topology collective overhead must be finite and "
                          ">= 0 us, found "
                       << formatNumber(overhead);
  double wakeup = wakeupF.convertToDouble();
  if (!std::isfinite(wakeup) || !(wakeup >= 0))
    return emitError() << "topology collective wake-up must be finite and "
                          ">= 0 us, found "
                       << formatNumber(wakeup);
  double wakeupIdle = wakeupIdleF.convertToDouble();
  if (!std::isfinite(wakeupIdle) || !(wakeupIdle >= 0))
    return emitError() << "topology wakeup_idle must be finite and >= 0 us, "
                          "found "
                       << formatNumber(wakeupIdle);
  if (wakeupIdle > 0 && wakeup == 0)
    return emitError() << "topology wakeup_idle needs a wake-up (wakeup > 0) "
                          "to scale";
  if (!cacheA || !pastCacheA)
    return emitError() << "topology needs its cache knees (empty for none)";
  ArrayRef<double> cache = cacheA.asArrayRef();
  ArrayRef<double> pastCache = pastCacheA.asArrayRef();
  if (cache.size() != pastCache.size())
    return emitError() << "topology cache and past_cache need one factor per "
                          "knee: "
                       << cache.size() << " knees, " << pastCache.size()
                       << " factors";
  if (cache.size() > sched::Topology::kMaxCacheKnees)
    return emitError() << "topology cache knees: at most "
                       << sched::Topology::kMaxCacheKnees << ", found "
                       << cache.size();
  for (size_t i = 0; i < cache.size(); ++i) {
    if (!std::isfinite(cache[i]) || !(cache[i] >= 0))
      return emitError() << "topology cache must be finite and >= 0 bytes, "
                            "found "
                         << formatNumber(cache[i]);
    if (!(pastCache[i] >= 1 && pastCache[i] <= 1000))
      return emitError() << "topology past_cache must be in 1..1000, found "
                         << formatNumber(pastCache[i]);
    if (cache[i] == 0)
      return emitError() << "topology past_cache needs the cache bytes it "
                            "applies past";
    if (i > 0 && !(cache[i] > cache[i - 1]))
      return emitError() << "topology cache knees must ascend: "
                         << formatNumber(cache[i]) << " after "
                         << formatNumber(cache[i - 1]);
  }
  double steal = stealF.convertToDouble();
  if (!(steal >= 0 && steal <= 1e6))
    return emitError() << "topology steal must be in 0..1e6 us per MB, found "
                       << formatNumber(steal);
  if (servers < 1 || servers > 65536)
    return emitError() << "topology servers must be in 1..65536, found "
                       << servers;
  if (devices < 1 || devices > 4096)
    return emitError() << "topology devices per server must be in 1..4096, "
                          "found "
                       << devices;
  if (!intra || !inter)
    return emitError() << "topology needs both an intra and an inter link";
  // A pod larger than the cluster is one pod, partly filled.
  if (podServers < 0 || podServers > 65536)
    return emitError() << "topology servers per pod must be in 0..65536, "
                          "found "
                       << podServers;
  if ((podServers > 0) != static_cast<bool>(scaleUp))
    return emitError() << "topology pods need a scale-up link, and a "
                          "scale-up link needs pods";
  if (!std::isfinite(reduce))
    return emitError() << "topology reduction bandwidth must be finite, found "
                       << formatNumber(reduce);
  if (!(reduce > 0))
    return emitError() << "topology reduction bandwidth must be > 0 GB/s, "
                          "found "
                       << formatNumber(reduce);
  auto sameKnees = [&](const std::vector<sched::CacheKnee> &knees) {
    if (knees.size() != cache.size())
      return false;
    for (size_t i = 0; i < knees.size(); ++i)
      if (knees[i].bytes != cache[i] || knees[i].factor != pastCache[i])
        return false;
    return true;
  };
  if (!preset.empty()) {
    auto p = sched::Topology::preset(preset);
    if (!p)
      return emitError() << p.message();
    sched::Topology t = *p;
    if (t.servers != servers || t.devicesPerServer != devices ||
        (t.intraShape == sched::IntraShape::Ring) != intraRing ||
        !(t.intra == fromAttr(intra)) || !(t.inter == fromAttr(inter)) ||
        t.podServers != podServers ||
        (scaleUp && !(t.scaleUp == fromAttr(scaleUp))) ||
        t.reduceGBps != reduce || t.collectiveOverheadUs != overhead ||
        t.collectiveWakeupUs != wakeup ||
        t.collectiveWakeupIdleUs != wakeupIdle || !sameKnees(t.cacheKnees) ||
        t.computeStealUsPerMB != steal)
      return emitError() << "topology parameters differ from preset '" << preset
                         << "'";
  }
  return success();
}

// #comm.topology<"910b-8x4"> or the full key = value form.
Attribute TopologyAttr::parse(AsmParser &parser, Type) {
  MLIRContext *ctx = parser.getContext();
  SMLoc loc = parser.getCurrentLocation();
  auto formsError = [&](SMLoc at) {
    return parser.emitError(at)
           << "expected a topology preset string (one of "
           << sched::Topology::presetForms()
           << ") or 'servers = N, devices = M, intra = mesh|ring "
              "#comm.link<...>, inter = #comm.link<...>, reduce = GBPS[, pods "
              "= S #comm.link<...>][, "
              "overhead = US][, wakeup = US[, wakeup_idle = US]][, cache = "
              "BYTES|[BYTES, ...], "
              "past_cache = X|[X, ...]][, steal = US_PER_MB]'";
  };
  if (parser.parseLess())
    return {};
  std::string preset;
  SMLoc at = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalString(&preset))) {
    if (parser.parseGreater())
      return {};
    auto t = sched::Topology::preset(preset);
    if (!t) {
      parser.emitError(at) << t.message();
      return {};
    }
    return get(ctx, *t);
  }
  int64_t servers = 0, devices = 0;
  bool ring = false;
  LinkAttr intra, inter;
  double reduce = 0;
  StringRef kw;
  if (parser.parseOptionalKeyword(&kw) || kw != "servers") {
    formsError(at);
    return {};
  }
  if (parser.parseEqual() || parser.parseInteger(servers) ||
      parser.parseComma() || parser.parseKeyword("devices") ||
      parser.parseEqual() || parser.parseInteger(devices) ||
      parser.parseComma() || parser.parseKeyword("intra") ||
      parser.parseEqual())
    return {};
  SMLoc shapeLoc = parser.getCurrentLocation();
  StringRef shape;
  if (parser.parseKeyword(&shape))
    return {};
  if (shape != "mesh" && shape != "ring") {
    parser.emitError(shapeLoc) << "expected intra-server shape 'mesh' or "
                                  "'ring', found '"
                               << shape << "'";
    return {};
  }
  ring = shape == "ring";
  if (parser.parseAttribute(intra) || parser.parseComma() ||
      parser.parseKeyword("inter") || parser.parseEqual() ||
      parser.parseAttribute(inter) || parser.parseComma() ||
      parser.parseKeyword("reduce") || parser.parseEqual() ||
      parseNumber(parser, reduce))
    return {};
  // Optional, in this order: pods = S LINK, overhead = US, wakeup = US,
  // wakeup_idle = US, cache = BYTES|[BYTES, ...], past_cache = X|[X, ...],
  // steal = US_PER_MB.
  int64_t pods = 0;
  LinkAttr scaleUp;
  double overhead = 0, wakeup = 0, wakeupIdle = 0, steal = 0;
  SmallVector<double> cache, pastCache;
  bool comma = succeeded(parser.parseOptionalComma());
  if (comma && succeeded(parser.parseOptionalKeyword("pods"))) {
    if (parser.parseEqual() || parser.parseInteger(pods) ||
        parser.parseAttribute(scaleUp))
      return {};
    comma = succeeded(parser.parseOptionalComma());
  }
  if (comma && succeeded(parser.parseOptionalKeyword("overhead"))) {
    if (parser.parseEqual() || parseNumber(parser, overhead))
      return {};
    comma = succeeded(parser.parseOptionalComma());
  }
  if (comma && succeeded(parser.parseOptionalKeyword("wakeup"))) {
    if (parser.parseEqual() || parseNumber(parser, wakeup))
      return {};
    comma = succeeded(parser.parseOptionalComma());
  }
  if (comma && succeeded(parser.parseOptionalKeyword("wakeup_idle"))) {
    if (parser.parseEqual() || parseNumber(parser, wakeupIdle))
      return {};
    comma = succeeded(parser.parseOptionalComma());
  }
  if (comma && succeeded(parser.parseOptionalKeyword("cache"))) {
    if (parser.parseEqual() || parseNumbers(parser, cache) ||
        parser.parseComma() || parser.parseKeyword("past_cache") ||
        parser.parseEqual() || parseNumbers(parser, pastCache))
      return {};
    // The one-knee form's `cache = 0, past_cache = 1` is no knee.
    if (cache.size() == 1 && pastCache.size() == 1 && cache[0] == 0 &&
        pastCache[0] == 1) {
      cache.clear();
      pastCache.clear();
    }
    comma = succeeded(parser.parseOptionalComma());
  }
  if (comma && (parser.parseKeyword("steal") || parser.parseEqual() ||
                parseNumber(parser, steal)))
    return {};
  if (parser.parseGreater())
    return {};
  return getChecked(
      [&] { return parser.emitError(loc); }, ctx, servers, devices, ring, intra,
      inter, APFloat(reduce), pods, scaleUp, APFloat(overhead), APFloat(wakeup),
      APFloat(wakeupIdle), DenseF64ArrayAttr::get(ctx, cache),
      DenseF64ArrayAttr::get(ctx, pastCache), APFloat(steal), StringRef());
}

void TopologyAttr::print(AsmPrinter &p) const {
  if (!getPreset().empty()) {
    p << "<\"" << getPreset() << "\">";
    return;
  }
  p << "<servers = " << getServers() << ", devices = " << getDevices()
    << ", intra = " << (getIntraRing() ? "ring " : "mesh ");
  p.printAttribute(getIntra());
  p << ", inter = ";
  p.printAttribute(getInter());
  p << ", reduce = " << formatNumber(getReduceBandwidth().convertToDouble());
  if (getPodServers() > 0) {
    p << ", pods = " << getPodServers() << " ";
    p.printAttribute(getScaleUp());
  }
  if (double o = getOverhead().convertToDouble(); o != 0)
    p << ", overhead = " << formatNumber(o);
  if (double w = getWakeup().convertToDouble(); w != 0)
    p << ", wakeup = " << formatNumber(w);
  if (double w = getWakeupIdle().convertToDouble(); w != 0)
    p << ", wakeup_idle = " << formatNumber(w);
  if (!getCacheBytes().empty()) {
    p << ", cache = ";
    printNumbers(p, getCacheBytes().asArrayRef());
    p << ", past_cache = ";
    printNumbers(p, getPastCache().asArrayRef());
  }
  if (double s = getSteal().convertToDouble(); s != 0)
    p << ", steal = " << formatNumber(s);
  p << ">";
}

//===----------------------------------------------------------------------===//
// AlgorithmAttr
//===----------------------------------------------------------------------===//

LogicalResult
AlgorithmAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      sched::Algorithm kind, sched::Algorithm level0,
                      sched::Algorithm level1, int64_t slices, bool podSplit) {
  auto valid = [](sched::Algorithm a) {
    int i = static_cast<int>(a);
    return i >= 0 && i < sched::kNumAlgorithms;
  };
  if (!valid(kind) || !valid(level0) || !valid(level1))
    return emitError() << "invalid algorithm enumerator";
  if (kind == sched::Algorithm::Hierarchical &&
      (level0 == sched::Algorithm::Hierarchical ||
       level1 == sched::Algorithm::Hierarchical))
    return emitError() << "hierarchical levels must be flat algorithms";
  if (kind != sched::Algorithm::Hierarchical &&
      (level0 != sched::Algorithm::Ring || level1 != sched::Algorithm::Ring))
    return emitError() << "per-level algorithms are only meaningful for "
                          "'hierarchical', found '"
                       << sched::algorithmName(kind) << "'";
  if (slices < 1 || slices > 4096)
    return emitError() << "slices must be in 1..4096, found " << slices;
  if (podSplit && kind != sched::Algorithm::Hierarchical)
    return emitError() << "split = pod is only meaningful for "
                          "'hierarchical', found '"
                       << sched::algorithmName(kind) << "'";
  return success();
}

static ParseResult parseAlgoName(AsmParser &parser, sched::Algorithm &out) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef name;
  if (parser.parseKeyword(&name))
    return failure();
  auto a = sched::parseAlgorithm(name.str());
  if (!a)
    return parser.emitError(loc)
           << "unknown algorithm '" << name << "'; expected one of "
           << sched::algorithmNameList();
  out = *a;
  return success();
}

// #comm.algo<ring>, #comm.algo<rhd, slices = 4>,
// #comm.algo<hierarchical(mesh, rhd), slices = 2>
Attribute AlgorithmAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  sched::Algorithm kind, l0 = sched::Algorithm::Ring,
                         l1 = sched::Algorithm::Ring;
  int64_t slices = 1;
  bool podSplit = false;
  if (parser.parseLess() || parseAlgoName(parser, kind))
    return {};
  if (kind == sched::Algorithm::Hierarchical) {
    if (parser.parseLParen() || parseAlgoName(parser, l0) ||
        parser.parseComma() || parseAlgoName(parser, l1) ||
        parser.parseRParen())
      return {};
  }
  // Optional, in this order: split = pod|server, slices = K.
  bool comma = succeeded(parser.parseOptionalComma());
  if (comma && succeeded(parser.parseOptionalKeyword("split"))) {
    SMLoc at = parser.getCurrentLocation();
    StringRef where;
    if (parser.parseEqual() || parser.parseKeyword(&where))
      return {};
    if (where != "pod" && where != "server") {
      parser.emitError(at) << "expected split 'pod' or 'server', found '"
                           << where << "'";
      return {};
    }
    podSplit = where == "pod";
    comma = succeeded(parser.parseOptionalComma());
  }
  if (comma && (parser.parseKeyword("slices") || parser.parseEqual() ||
                parser.parseInteger(slices)))
    return {};
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    kind, l0, l1, slices, podSplit);
}

void AlgorithmAttr::print(AsmPrinter &p) const {
  p << "<" << sched::algorithmName(getKind());
  if (isHierarchical())
    p << "(" << sched::algorithmName(getLevel0()) << ", "
      << sched::algorithmName(getLevel1()) << ")";
  if (getPodSplit())
    p << ", split = pod";
  if (getSlices() != 1)
    p << ", slices = " << getSlices();
  p << ">";
}
