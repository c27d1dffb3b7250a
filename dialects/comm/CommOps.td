//===- CommOps.td - comm dialect operations ----------------*- tablegen -*-===//
#ifndef HCCL_COMM_OPS
#define HCCL_COMM_OPS

include "CommDialect.td"
include "CommAttrs.td"
include "CommTypes.td"
include "CommInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// Every communication op reads and writes this resource: it keeps their
// relative order fixed and stops CSE/DCE from removing one on some ranks.
def Comm_CommResource : Resource<"::mlir::comm::CommResource">;

class Comm_Op<string mnemonic, list<Trait> traits = []>
    : Op<Comm_Dialect, mnemonic, traits>;

// The element types the runtime can move and reduce (HcclDataType).
def Comm_ElementType : AnyTypeOf<[AnyI8, AnyI16, AnyI32, AnyI64,
                                  F16, BF16, F32, F64]>;
def Comm_Tensor : RankedTensorOf<[Comm_ElementType]>;

class Comm_CommunicationOp<string mnemonic, list<Trait> traits = []>
    : Comm_Op<mnemonic, !listconcat(traits, [
        DeclareOpInterfaceMethods<SymbolUserOpInterface>,
        Comm_CollectiveOpInterface,
        MemoryEffects<[MemRead<Comm_CommResource>,
                       MemWrite<Comm_CommResource>]>])>;

//===----------------------------------------------------------------------===//
// Groups
//===----------------------------------------------------------------------===//

def Comm_GroupOp : Comm_Op<"group", [
    Symbol, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "a communicator group";
  let description = [{
    ```
    comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
    comm.group @tp ranks = [[0, 1], [2, 3], [4, 5], [6, 7]] parent @dp
    ```
    A group is one list of global ranks, or a partition into equal-size
    subgroups (as StableHLO replica groups): a collective on a partitioned
    group runs within the subgroup of each rank. `parent` names the group
    this one was split from; its ranks must be a subset of the parent's.
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    DenseI64ArrayAttr:$ranks,
    I64Attr:$group_size,
    OptionalAttr<FlatSymbolRefAttr>:$parent);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of ranks in one subgroup (the collective's p).
    int64_t getSize() { return getGroupSize(); }
    int64_t getNumSubgroups() {
      return getGroupSize() ? getRanks().size() / getGroupSize() : 0;
    }
    ::llvm::ArrayRef<int64_t> getSubgroup(int64_t i) {
      return getRanks().slice(i * getGroupSize(), getGroupSize());
    }
  }];
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

def Comm_AllReduceOp : Comm_CommunicationOp<"all_reduce", [
    DeclareOpInterfaceMethods<InferTypeOpInterface>,
    DeclareOpInterfaceMethods<Comm_CollectiveOpInterface,
                              ["getReductionKind"]>]> {
  let summary = "all-reduce of one or more tensors (a fused bucket)";
  let description = [{
    ```
    %r:2 = comm.all_reduce <sum> %a, %b on @dp : tensor<1024xf32>, tensor<16xf32>
    ```
    Every rank of the group gets the element-wise reduction of all ranks'
    inputs. Several inputs form one fused bucket; results have the input
    types.
  }];
  let arguments = (ins Comm_ReductionKindAttr:$kind,
                       Variadic<Comm_Tensor>:$inputs,
                       FlatSymbolRefAttr:$group,
                       OptionalAttr<Comm_AlgorithmAttr>:$algo);
  let results = (outs Variadic<Comm_Tensor>:$results);
  let assemblyFormat = [{
    custom<ReductionKind>($kind) $inputs `on` $group (`algo` $algo^)? attr-dict `:` type($inputs)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Comm_AllGatherOp : Comm_CommunicationOp<"all_gather"> {
  let summary = "all-gather along one dimension";
  let description = [{
    ```
    %r = comm.all_gather %x on @dp dim 0 : tensor<4x8xf32> -> tensor<32x8xf32>
    ```
    The result's `dim` extent is p times the input's, rank-ordered.
  }];
  let arguments = (ins Comm_Tensor:$input, FlatSymbolRefAttr:$group,
                       I64Attr:$dim, OptionalAttr<Comm_AlgorithmAttr>:$algo);
  let results = (outs Comm_Tensor:$result);
  let assemblyFormat = [{
    $input `on` $group `dim` $dim (`algo` $algo^)? attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Comm_ReduceScatterOp : Comm_CommunicationOp<"reduce_scatter", [
    DeclareOpInterfaceMethods<Comm_CollectiveOpInterface,
                              ["getReductionKind"]>]> {
  let summary = "reduce-scatter along one dimension";
  let description = [{
    ```
    %r = comm.reduce_scatter <sum> %x on @dp dim 0 : tensor<32xf32> -> tensor<4xf32>
    ```
    The input's `dim` extent is p times the result's; rank i gets block i of
    the reduction.
  }];
  let arguments = (ins Comm_ReductionKindAttr:$kind, Comm_Tensor:$input,
                       FlatSymbolRefAttr:$group, I64Attr:$dim,
                       OptionalAttr<Comm_AlgorithmAttr>:$algo);
  let results = (outs Comm_Tensor:$result);
  let assemblyFormat = [{
    custom<ReductionKind>($kind) $input `on` $group `dim` $dim (`algo` $algo^)? attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Comm_BroadcastOp : Comm_CommunicationOp<"broadcast", [
    AllTypesMatch<["input", "result"]>]> {
  let summary = "broadcast from a root rank";
  let description = [{
    ```
    %r = comm.broadcast %x on @dp root 0 : tensor<16xf32>
    ```
    `root` is a rank index within the group (0..p-1).
  }];
  let arguments = (ins Comm_Tensor:$input, FlatSymbolRefAttr:$group,
                       I64Attr:$root, OptionalAttr<Comm_AlgorithmAttr>:$algo);
  let results = (outs Comm_Tensor:$result);
  let assemblyFormat = [{
    $input `on` $group `root` $root (`algo` $algo^)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Comm_ReduceOp : Comm_CommunicationOp<"reduce", [
    AllTypesMatch<["input", "result"]>,
    DeclareOpInterfaceMethods<Comm_CollectiveOpInterface,
                              ["getReductionKind"]>]> {
  let summary = "reduction to a root rank";
  let description = [{
    ```
    %r = comm.reduce <max> %x on @dp root 3 : tensor<16xf32>
    ```
    The root's result holds the reduction; other ranks' results are
    unspecified (as HcclReduce leaves their receive buffers).
  }];
  let arguments = (ins Comm_ReductionKindAttr:$kind, Comm_Tensor:$input,
                       FlatSymbolRefAttr:$group, I64Attr:$root,
                       OptionalAttr<Comm_AlgorithmAttr>:$algo);
  let results = (outs Comm_Tensor:$result);
  let assemblyFormat = [{
    custom<ReductionKind>($kind) $input `on` $group `root` $root (`algo` $algo^)? attr-dict `:`
    type($input)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Comm_AllToAllOp : Comm_CommunicationOp<"all_to_all"> {
  let summary = "all-to-all exchange";
  let description = [{
    ```
    %r = comm.all_to_all %x on @ep split_dim 0 concat_dim 1
           : tensor<8x4xf32> -> tensor<2x16xf32>
    ```
    The input is split into p blocks along `split_dim`; block j goes to rank
    j, and received blocks are concatenated along `concat_dim` in rank order.
  }];
  let arguments = (ins Comm_Tensor:$input, FlatSymbolRefAttr:$group,
                       I64Attr:$split_dim, I64Attr:$concat_dim,
                       OptionalAttr<Comm_AlgorithmAttr>:$algo);
  let results = (outs Comm_Tensor:$result);
  let assemblyFormat = [{
    $input `on` $group `split_dim` $split_dim `concat_dim` $concat_dim
    (`algo` $algo^)? attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Comm_PermuteOp : Comm_CommunicationOp<"permute", [
    AllTypesMatch<["input", "result"]>]> {
  let summary = "collective permute: every rank sends to its target";
  let description = [{
    ```
    %r = comm.permute %x on @pp pairs [[0, 1], [1, 2], [2, 3]] : tensor<16xf32>
    ```
    Each (source, target) pair of group-local ranks moves the source's input
    to the target's result; a rank that is no pair's target gets zeros (as
    StableHLO's collective_permute). Sources are distinct, targets are
    distinct. It lowers to one exchange step (`algo <pairwise>`).
  }];
  let arguments = (ins Comm_Tensor:$input, FlatSymbolRefAttr:$group,
                       DenseI64ArrayAttr:$pairs,
                       OptionalAttr<Comm_AlgorithmAttr>:$algo);
  let results = (outs Comm_Tensor:$result);
  let assemblyFormat = [{
    $input `on` $group `pairs` custom<Pairs>($pairs) (`algo` $algo^)?
    attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

def Comm_SendOp : Comm_CommunicationOp<"send"> {
  let summary = "point-to-point send to a peer of the group";
  let description = [{
    ```
    comm.send %x to 1 on @pp tag 7 : tensor<16xf32>
    ```
    Matched with the `comm.recv` of the peer that has the same tag.
  }];
  let arguments = (ins Comm_Tensor:$input, I64Attr:$peer,
                       FlatSymbolRefAttr:$group, DefaultValuedAttr<I64Attr, "0">:$tag);
  let assemblyFormat = [{
    $input `to` $peer `on` $group (`tag` $tag^)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

def Comm_RecvOp : Comm_CommunicationOp<"recv"> {
  let summary = "point-to-point receive from a peer of the group";
  let description = [{
    ```
    %y = comm.recv from 0 on @pp tag 7 : tensor<16xf32>
    ```
  }];
  let arguments = (ins I64Attr:$peer, FlatSymbolRefAttr:$group,
                       DefaultValuedAttr<I64Attr, "0">:$tag);
  let results = (outs Comm_Tensor:$result);
  let assemblyFormat = [{
    `from` $peer `on` $group (`tag` $tag^)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def Comm_BarrierOp : Comm_CommunicationOp<"barrier"> {
  let summary = "synchronise every rank of the group";
  let arguments = (ins FlatSymbolRefAttr:$group,
                       OptionalAttr<Comm_AlgorithmAttr>:$algo);
  let hasCanonicalizer = 1;
  let assemblyFormat = "`on` $group (`algo` $algo^)? attr-dict";
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def Comm_ComputeOp : Comm_Op<"compute", [Pure]> {
  let summary = "an opaque compute op of an imported training graph";
  let description = [{
    ```
    %gw, %gx = comm.compute "layer3.backward" (%x, %dy)
                 {comm.cost_us = 120.5 : f64} : (T, T) -> (T, T)
    ```
    Stands for a framework op the graph importers do not model: it has
    inputs, outputs and a predicted device time (`comm.cost_us`), or the
    FLOPs and bytes the cost model estimates that time from.
  }];
  let arguments = (ins StrAttr:$name, Variadic<AnyType>:$inputs,
                       OptionalAttr<F64Attr>:$flops,
                       OptionalAttr<F64Attr>:$bytes);
  let results = (outs Variadic<AnyType>:$outputs);
  let assemblyFormat = [{
    $name `(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Asynchronous form
//===----------------------------------------------------------------------===//

def Comm_StartOp : Comm_Op<"start", [
    SingleBlock, RecursiveMemoryEffects]> {
  let summary = "start a collective without waiting for it";
  let description = [{
    ```
    %t = comm.start {
      %r = comm.all_reduce <sum> %g on @dp : tensor<1024xf32>
      comm.yield %r : tensor<1024xf32>
    }
    %g2 = comm.wait %t : tensor<1024xf32>
    ```
    The body holds exactly one communication op and a `comm.yield` of its
    results. The token must be consumed by exactly one `comm.wait`, in the
    same block, which yields the results. Compute between the two runs while
    the collective is in flight.
  }];
  let results = (outs Comm_TokenType:$token);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$body attr-dict";
  let hasVerifier = 1;
  let hasCanonicalizeMethod = 1;
  let extraClassDeclaration = [{
    /// The communication op started by this op.
    ::mlir::Operation *getCollective();
    /// The yield terminating the body.
    YieldOp getYield();
    /// The wait consuming the token, if the IR is well formed.
    WaitOp getWait();
  }];
}

def Comm_WaitOp : Comm_Op<"wait", [
    MemoryEffects<[MemRead<Comm_CommResource>, MemWrite<Comm_CommResource>]>]> {
  let summary = "wait for a started collective and take its results";
  let arguments = (ins Comm_TokenType:$token);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = "$token attr-dict (`:` type($results)^)?";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    StartOp getStart();
  }];
}

def Comm_YieldOp : Comm_Op<"yield", [
    Pure, Terminator, HasParent<"StartOp">]> {
  let summary = "terminator of comm.start: the collective's results";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, std::nullopt); }]>];
}

include "CommScheduleOps.td"

#endif // HCCL_COMM_OPS
