//===- PlanWrite.cpp - Writing plan documents -----------------------------===//
//
// Keys are written in a fixed, readable order (nlohmann::ordered_json);
// docs/plan-format.md specifies every key.
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/schedule/Plan.h"

#include <nlohmann/json.hpp>

namespace hccl::sched {
namespace {

using ojson = nlohmann::ordered_json;

ojson linkJson(const LinkParams &l) {
  ojson j;
  j["class"] = linkClassName(l.cls);
  j["bandwidth_gbps"] = l.bandwidthGBps;
  j["latency_us"] = l.latencyUs;
  j["ports"] = l.ports;
  return j;
}

/// The figures of a topology: the link-parameter fields (docs/plan-format.md).
void linkFields(ojson &j, const Topology &t) {
  j["intra_shape"] = intraShapeName(t.intraShape);
  j["intra"] = linkJson(t.intra);
  j["inter"] = linkJson(t.inter);
  if (t.hasPods())
    j["scaleup"] = linkJson(t.scaleUp);
  j["reduce_gbps"] = t.reduceGBps;
  if (t.collectiveOverheadUs != 0) // absent = 0: older readers stay valid
    j["collective_overhead_us"] = t.collectiveOverheadUs;
  if (t.collectiveWakeupUs != 0)
    j["collective_wakeup_us"] = t.collectiveWakeupUs;
  if (t.collectiveWakeupIdleUs != 0)
    j["collective_wakeup_idle_us"] = t.collectiveWakeupIdleUs;
  if (t.cacheKnees.size() == 1) { // the one-knee form older readers take
    j["cache_bytes"] = t.cacheKnees[0].bytes;
    j["past_cache_factor"] = t.cacheKnees[0].factor;
  } else if (!t.cacheKnees.empty()) {
    for (const CacheKnee &k : t.cacheKnees) {
      j["cache_bytes"].push_back(k.bytes);
      j["past_cache_factor"].push_back(k.factor);
    }
  }
  if (t.computeStealUsPerMB != 0)
    j["compute_steal_us_per_mb"] = t.computeStealUsPerMB;
}

ojson topoJson(const Topology &t) {
  ojson j;
  if (!t.name.empty())
    j["name"] = t.name;
  j["servers"] = t.servers;
  j["devices_per_server"] = t.devicesPerServer;
  linkFields(j, t);
  if (t.podServers > 0)
    j["pod_servers"] = t.podServers;
  if (!t.serverPod.empty())
    j["server_pod"] = t.serverPod;
  if (!t.rankServer.empty())
    j["rank_server"] = t.rankServer;
  return j;
}

ojson bufJson(const Program &prog, const BufRef &b,
              const std::vector<std::string> &names) {
  ojson j;
  j["buffer"] = bufferName(b.buf);
  j["offset"] = prog.pool.print(b.off, names);
  return j;
}

ojson compactJson(const Program &prog) {
  std::vector<std::string> names = prog.paramNames();
  auto ex = [&](ExprId id) { return prog.pool.print(id, names); };
  ojson j;
  ojson params = ojson::object();
  for (const Param &p : prog.params)
    params[p.name] = p.value;
  j["params"] = params;
  ojson bufs;
  for (int b = 0; b < kNumBuffers; ++b)
    bufs[bufferName(static_cast<BufferId>(b))] = ex(prog.bufferSize[b]);
  j["buffers"] = bufs;
  ojson phases = ojson::array();
  for (const Phase &ph : prog.phases) {
    ojson pj;
    pj["name"] = ph.name;
    pj["steps"] = ex(ph.steps);
    ojson ops = ojson::array();
    for (const Op &op : ph.ops) {
      ojson oj;
      oj["kind"] = opKindName(op.kind);
      if (op.when != kNoExpr)
        oj["when"] = ex(op.when);
      if (op.repeat != kNoExpr)
        oj["repeat"] = ex(op.repeat);
      if (opHasPeer(op.kind))
        oj["peer"] = ex(op.peer);
      if (opHasDst(op.kind))
        oj["dst"] = bufJson(prog, op.dst, names);
      if (opHasSrc(op.kind))
        oj["src"] = bufJson(prog, op.src, names);
      oj["count"] = ex(op.count);
      if (op.kind == OpKind::Reduce) {
        oj["src_stride"] = ex(op.srcStride);
        oj["src_n"] = ex(op.srcN);
      }
      ops.push_back(std::move(oj));
    }
    pj["ops"] = std::move(ops);
    phases.push_back(std::move(pj));
  }
  j["phases"] = std::move(phases);
  return j;
}

Result<ojson> expandedJson(const PlanProgram &pp, const Topology *topo,
                           int64_t maxOps) {
  const Program &prog = pp.program;
  auto est = estimateOpInstances(prog);
  if (!est)
    return Result<ojson>(est.status());
  if (*est > maxOps)
    return Result<ojson>::error(
        "the expanded form would list about " + std::to_string(*est) +
        " ops, more than " + std::to_string(maxOps) +
        " (use the compact form, or raise maxExpandedOps)");
  ojson ranks = ojson::array();
  int64_t total = 0;
  for (int64_t r = 0; r < prog.p; ++r) {
    auto rp = expandRank(prog, r);
    if (!rp)
      return Result<ojson>(rp.status());
    total += static_cast<int64_t>(rp->ops.size() + rp->steps.size());
    if (total > maxOps)
      return Result<ojson>::error(
          "the expanded form would list more than " + std::to_string(maxOps) +
          " ops and steps (use the compact form, or raise maxExpandedOps)");
    // Link classes are annotated on the program's only group (several
    // groups may lie differently on the topology).
    auto global = [&](int64_t x) {
      return pp.groups.empty() ? x : pp.groups[0][static_cast<size_t>(x)];
    };
    ojson rj;
    rj["rank"] = r;
    ojson bufs;
    for (int b = 0; b < kNumBuffers; ++b)
      bufs[bufferName(static_cast<BufferId>(b))] = rp->bufferSize[b];
    rj["buffers"] = bufs;
    ojson steps = ojson::array();
    for (const ConcreteStep &st : rp->steps) {
      ojson sj;
      sj["phase"] = st.phase;
      sj["step"] = st.step;
      ojson ops = ojson::array();
      for (uint32_t i = st.firstOp; i < st.firstOp + st.numOps; ++i) {
        const ConcreteOp &c = rp->ops[i];
        ojson oj;
        oj["kind"] = opKindName(c.kind);
        if (opHasPeer(c.kind)) {
          oj["peer"] = c.peer;
          if (topo && pp.groups.size() <= 1) {
            int64_t a = global(r), b = global(c.peer);
            if (a < topo->worldSize() && b < topo->worldSize())
              oj["link"] = linkClassName(
                  topo->linkBetween(static_cast<int>(a), static_cast<int>(b))
                      .cls);
          }
        }
        if (opHasDst(c.kind))
          oj["dst"] = {{"buffer", bufferName(c.dstBuf)}, {"offset", c.dstOff}};
        if (opHasSrc(c.kind))
          oj["src"] = {{"buffer", bufferName(c.srcBuf)}, {"offset", c.srcOff}};
        oj["count"] = c.count;
        if (c.kind == OpKind::Reduce) {
          oj["src_stride"] = c.srcStride;
          oj["src_n"] = c.srcN;
        }
        ops.push_back(std::move(oj));
      }
      sj["ops"] = std::move(ops);
      steps.push_back(std::move(sj));
    }
    rj["steps"] = std::move(steps);
    ranks.push_back(std::move(rj));
  }
  return ranks;
}

Result<ojson> programJson(const PlanProgram &pp, ProgramForm form,
                          const Topology *topo, int64_t maxOps) {
  const Program &prog = pp.program;
  ojson j;
  j["id"] = pp.id;
  j["collective"] = collectiveName(prog.collective);
  j["algorithm"] = algorithmName(prog.algorithm);
  if (prog.algorithm == Algorithm::Hierarchical) {
    j["level0"] = algorithmName(prog.level0);
    j["level1"] = algorithmName(prog.level1);
  }
  j["dtype"] = dataTypeName(prog.dtype);
  j["reduce_op"] = reduceOpName(prog.reduceOp);
  j["ranks"] = prog.p;
  j["count"] = prog.n;
  j["root"] = prog.root;
  j["slices"] = prog.slices;
  if (prog.inputOuter != 1)
    j["input_outer"] = prog.inputOuter;
  if (prog.outputOuter != 1)
    j["output_outer"] = prog.outputOuter;
  if (pp.groups.size() == 1)
    j["group"] = pp.groups[0];
  else if (pp.groups.size() > 1)
    j["groups"] = pp.groups;
  // Tables travel with either form: alltoallv's specification lives there.
  if (!prog.tables.empty())
    j["tables"] = prog.tables;
  if (form != ProgramForm::Expanded) {
    ojson cj = compactJson(prog);
    for (auto &[k, v] : cj.items())
      j[k] = v;
  }
  if (form != ProgramForm::Compact) {
    auto ex = expandedJson(pp, topo, maxOps);
    if (!ex)
      return ex;
    j["expanded"] = std::move(*ex);
  }
  return j;
}

} // namespace

std::string topologyToJson(const Topology &t) { return topoJson(t).dump(); }

std::string linkParamsToJson(const Topology &t) {
  ojson j;
  j["version"] = "1.0";
  linkFields(j, t);
  return j.dump();
}

Result<std::string> writePlan(const Plan &plan, const PlanWriteOptions &opts) {
  ojson doc;
  doc["format"] = "hccl-plan";
  doc["version"] = plan.version;
  const Topology *topo = plan.topology ? &*plan.topology : nullptr;
  if (topo)
    doc["topology"] = topoJson(*topo);
  ojson progs = ojson::array();
  for (const PlanProgram &pp : plan.programs) {
    auto pj = programJson(pp, opts.form, topo, opts.maxExpandedOps);
    if (!pj)
      return Result<std::string>::error("program '" + pp.id +
                                        "': " + pj.message());
    progs.push_back(std::move(*pj));
  }
  doc["programs"] = std::move(progs);
  if (!plan.items.empty() || !plan.groupRanks.empty()) {
    ojson pl;
    pl["group"] = plan.groupRanks;
    ojson items = ojson::array();
    for (const PlanItem &it : plan.items) {
      ojson ij;
      ij["kind"] = planItemKindName(it.kind);
      switch (it.kind) {
      case PlanItemKind::Compute:
        ij["name"] = it.name;
        ij["cost_us"] = it.costUs;
        break;
      case PlanItemKind::Start:
        ij["id"] = it.id;
        ij["program"] = it.program;
        break;
      case PlanItemKind::Wait:
        ij["id"] = it.id;
        break;
      }
      items.push_back(std::move(ij));
    }
    pl["items"] = std::move(items);
    doc["plan"] = std::move(pl);
  }
  return doc.dump(opts.indent) + "\n";
}

Result<std::string> writeProgram(const Program &prog,
                                 const PlanWriteOptions &opts,
                                 const Topology *topology) {
  Plan plan;
  plan.programs.push_back({"c0", prog, {}});
  if (topology)
    plan.topology = *topology;
  return writePlan(plan, opts);
}

} // namespace hccl::sched
