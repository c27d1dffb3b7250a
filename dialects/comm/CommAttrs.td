//===- CommAttrs.td - comm dialect attributes --------------*- tablegen -*-===//
#ifndef HCCL_COMM_ATTRS
#define HCCL_COMM_ATTRS

include "CommDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enumerations
//===----------------------------------------------------------------------===//

// Numbered as HcclReduceOp.
def Comm_ReductionKind : I32EnumAttr<"ReductionKind", "reduction operator", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"prod", 1>,
    I32EnumAttrCase<"max", 2>, I32EnumAttrCase<"min", 3>]> {
  let cppNamespace = "::mlir::comm";
  let genSpecializedAttr = 0;
}
def Comm_ReductionKindAttr
    : EnumAttr<Comm_Dialect, Comm_ReductionKind, "reduction"> {
  let assemblyFormat = "`<` $value `>`";
}

def Comm_LinkClass : I32EnumAttr<"LinkClass", "link class", [
    I32EnumAttrCase<"hccs", 0>, I32EnumAttrCase<"pcie", 1>,
    I32EnumAttrCase<"roce", 2>, I32EnumAttrCase<"tcp", 3>,
    I32EnumAttrCase<"shm", 4>]> {
  let cppNamespace = "::mlir::comm";
}

// Numbered as hccl::sched::Collective.
def Comm_CollectiveKind : I32EnumAttr<"CollectiveKind", "collective", [
    I32EnumAttrCase<"all_reduce", 0>, I32EnumAttrCase<"reduce_scatter", 1>,
    I32EnumAttrCase<"all_gather", 2>, I32EnumAttrCase<"broadcast", 3>,
    I32EnumAttrCase<"reduce", 4>, I32EnumAttrCase<"all_to_all", 5>,
    I32EnumAttrCase<"all_to_allv", 6>, I32EnumAttrCase<"permute", 7>]> {
  let cppNamespace = "::mlir::comm";
  let genSpecializedAttr = 0;
}
def Comm_CollectiveKindAttr
    : EnumAttr<Comm_Dialect, Comm_CollectiveKind, "collective"> {
  let assemblyFormat = "`<` $value `>`";
}

// Numbered as hccl::sched::BufferId.
def Comm_BufferKind : I32EnumAttr<"BufferKind", "step-program buffer", [
    I32EnumAttrCase<"input", 0>, I32EnumAttrCase<"output", 1>,
    I32EnumAttrCase<"scratch", 2>]> {
  let cppNamespace = "::mlir::comm";
  let genSpecializedAttr = 0;
}
def Comm_BufferKindAttr : EnumAttr<Comm_Dialect, Comm_BufferKind, "buffer"> {
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

class Comm_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Comm_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Comm_LinkAttr : Comm_Attr<"Link", "link"> {
  let summary = "one link class with its alpha-beta figures";
  let description = [{
    `#comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>`: bandwidth in
    GB/s per port and direction, latency (alpha) in microseconds, ports = links
    a device drives at once. Messages to one peer in one step go back to back
    over that pair's connection under one latency, whatever the port count
    (inside a full-mesh server each peer has its own link; a ring-wired server
    spreads them over its ports).
  }];
  let parameters = (ins
    "::mlir::comm::LinkClass":$linkClass,
    APFloatParameter<"GB/s per port">:$bandwidth,
    APFloatParameter<"microseconds">:$latency,
    "int64_t":$ports);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Comm_TopologyAttr : Comm_Attr<"Topology", "topology"> {
  let summary = "cluster topology: servers, devices and link classes";
  let description = [{
    Either a named preset, `#comm.topology<"910b-8x4">` (see
    `hccl::sched::Topology::presetForms()` for the accepted names), or the
    full form

    ```
    #comm.topology<servers = 2, devices = 8,
                   intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>,
                   inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>,
                   reduce = 100, overhead = 30, wakeup = 80, wakeup_idle = 1000,
                   cache = 1048576, past_cache = 1.7, steal = 95>
    ```

    with, for super pods (after `reduce`), `pods = S #comm.link<...>`: the
    servers per pod, server-major, and the scale-up link between NPUs of
    different servers in one pod.

    `intra` is `mesh` (full mesh) or `ring`; `reduce` is the local reduction
    throughput in GB/s (gamma = 1/reduce); `overhead` (optional, default 0)
    the fixed cost of one collective in microseconds (launch,
    synchronisation, fusion copy), added once to every collective on more
    than one rank; `wakeup` (optional, default 0) the earliest start of a
    collective after its issue in microseconds (the runtime's threads wake,
    the ranks meet), which a collective queued behind another on its stream
    does not pay; `wakeup_idle` (optional, default 0, needs `wakeup`) the
    idle time in microseconds after which all of the wake-up is paid: a
    collective issued after its stream idled for less pays that share of it
    (comm-estimate and the overlap scheduler; the bucket sizing prices all
    of it); `cache` and `past_cache` (optional, together) the caches'
    knee: a collective's byte terms hold for its first `cache` bytes per
    rank, and every byte past them costs `past_cache` (>= 1) times as much;
    several knees are lists, bytes ascending, one factor each (`cache =
    [1048576, 33554432, 67108864], past_cache = [1.9, 5.5, 2.9]`: each byte
    between a knee and the next costs that knee's factor times an in-cache
    byte; at most 8);
    `steal` (optional, default 0) the microseconds by which a collective
    delays the compute after its issue, per MB it moves (communication
    taking compute's cores on a CPU host).
    A topology equal to a preset prints as the preset.
  }];
  let parameters = (ins
    "int64_t":$servers,
    "int64_t":$devices,
    "bool":$intraRing,
    "::mlir::comm::LinkAttr":$intra,
    "::mlir::comm::LinkAttr":$inter,
    APFloatParameter<"GB/s">:$reduceBandwidth,
    "int64_t":$podServers,
    "::mlir::comm::LinkAttr":$scaleUp,
    APFloatParameter<"per-collective overhead, us">:$overhead,
    APFloatParameter<"earliest start after issue, us">:$wakeup,
    APFloatParameter<"idle time after which all of the wake-up is paid, us">:$wakeupIdle,
    AttrParameter<"::mlir::DenseF64ArrayAttr",
                  "the caches' knees: bytes per rank, ascending">:$cacheBytes,
    AttrParameter<"::mlir::DenseF64ArrayAttr",
                  "cost of a byte past each knee, x an in-cache byte">:$pastCache,
    APFloatParameter<"compute delay per MB a collective moves, us">:$steal,
    StringRefParameter<"preset name, empty if custom", "\"\"">:$preset);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The lib/schedule view of this topology.
    ::hccl::sched::Topology toSchedule() const;
    static TopologyAttr get(::mlir::MLIRContext *ctx,
                            const ::hccl::sched::Topology &t);
    /// As get(), or an error when `t` holds a layout the attribute cannot
    /// carry (a rank table's ranks out of server-major order, or its super
    /// pods grouped out of server order or unevenly).
    static ::mlir::FailureOr<TopologyAttr>
    fromSchedule(::mlir::MLIRContext *ctx, const ::hccl::sched::Topology &t,
                 ::llvm::function_ref<::mlir::InFlightDiagnostic()> emitError);
    int64_t getWorldSize() const { return getServers() * getDevices(); }
  }];
}

def Comm_AlgorithmAttr : Comm_Attr<"Algorithm", "algo"> {
  let summary = "the algorithm chosen for a collective, and its chunking";
  let description = [{
    `#comm.algo<ring>`, `#comm.algo<rhd, slices = 4>`,
    `#comm.algo<hierarchical(mesh, rhd), slices = 2>` (level0 = intra-server,
    level1 = inter-server). Names are lib/schedule's algorithm names: ring,
    mesh, mesh_oneshot, rhd, rd, tree, star, pairwise, hierarchical.
    On super pods, `#comm.algo<hierarchical(mesh, ring), split = pod>`
    splits at the pod instead: level0 inside each pod (over its scale-up
    bus), level1 between pods.
  }];
  let parameters = (ins
    "::hccl::sched::Algorithm":$kind,
    "::hccl::sched::Algorithm":$level0,
    "::hccl::sched::Algorithm":$level1,
    "int64_t":$slices,
    "bool":$podSplit);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "::hccl::sched::Algorithm":$kind,
                     CArg<"int64_t", "1">:$slices), [{
      return $_get($_ctxt, kind, ::hccl::sched::Algorithm::Ring,
                   ::hccl::sched::Algorithm::Ring, slices, false);
    }]>
  ];
  let extraClassDeclaration = [{
    bool isHierarchical() const {
      return getKind() == ::hccl::sched::Algorithm::Hierarchical;
    }
  }];
}

#endif // HCCL_COMM_ATTRS
