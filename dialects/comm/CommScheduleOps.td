//===- CommScheduleOps.td - Lowered step schedules ---------*- tablegen -*-===//
//
// The lowered form of a collective: its step program (docs/step-programs.md)
// as IR. Expressions of the rank are ordinary index arithmetic (arith ops,
// plus comm.emod / comm.param / comm.table_at), so rank specialisation is
// constant folding. The IR size is that of the program: a phase is a loop,
// a repeated op is a loop, nothing is expanded per rank or per peer.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_COMM_SCHEDULE_OPS
#define HCCL_COMM_SCHEDULE_OPS

def Comm_ProgramOp : Comm_Op<"program", [
    Symbol, IsolatedFromAbove, SingleBlock, NoTerminator,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "a collective's step program, shared by the schedules using it";
  let description = [{
    ```
    comm.program @allreduce_ring_p4_n16_fp32_sum all_reduce sum algo <ring>
        ranks 4 count 16 : f32 {
    ^bb0(%r: index, %p: index, %n: index):
      comm.buffers input %n output %n scratch %c0
      comm.phase "rs" steps 3 (%s) {
        ...
        comm.step.send output[%off] to %next count %cnt
        comm.step.recv_reduce output[%off2] from %prev with input[%off2] count %cnt2
      }
      ...
    }
    ```
    The program lib/schedule generates for one (collective, algorithm, group
    size, element count, element type, ...), as IR: block arguments are the
    group-local rank r, the group size p and the element count n (as HCCL
    counts it; a fused bucket is the concatenation of its inputs). Phases
    run in order; each op's fields are index values. Programs are symbols so
    that identical collectives (the 48 layers of a transformer) share one
    body: the lowered IR holds each distinct program once. `rank` is set
    once the program has been specialised for one rank. `input_outer` /
    `output_outer` (default 1) give the block layout of the side holding p
    blocks (reduce-scatter's input, all-gather's output, all-to-all's
    both): every block is that many rows, row-major over (row, block), as a
    collective along a dimension that is not the leading one moves it
    (docs/step-programs.md, "Block layout").
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    Comm_CollectiveKindAttr:$collective,
    OptionalAttr<Comm_ReductionKindAttr>:$kind,
    Comm_AlgorithmAttr:$algo,
    I64Attr:$ranks,
    I64Attr:$count,
    DefaultValuedAttr<I64Attr, "0">:$root,
    TypeAttr:$element_type,
    OptionalAttr<TypedArrayAttrBase<DenseI64ArrayAttr, "integer tables">>:$tables,
    OptionalAttr<I64Attr>:$rank,
    DefaultValuedAttr<I64Attr, "1">:$input_outer,
    DefaultValuedAttr<I64Attr, "1">:$output_outer);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    ::mlir::BlockArgument getRankArg() { return getBodyBlock().getArgument(0); }
    ::mlir::BlockArgument getSizeArg() { return getBodyBlock().getArgument(1); }
    ::mlir::BlockArgument getCountArg() { return getBodyBlock().getArgument(2); }
    /// The comm.buffers op of the body, if any.
    BuffersOp getBuffers();
  }];
}

def Comm_ScheduleOp : Comm_CommunicationOp<"schedule", [
    DeclareOpInterfaceMethods<Comm_CollectiveOpInterface,
                              ["getReductionKind"]>]> {
  let summary = "a collective lowered to the step program it runs";
  let description = [{
    ```
    %r = comm.schedule @allreduce_ring_p4_n16_fp32_sum all_reduce sum (%g)
           on @dp algo <ring> : (tensor<16xf32>) -> tensor<16xf32>
    ```
    Runs `program` on the group with these tensors (inputs concatenated into
    the flat input buffer). Collective, reduction and algorithm repeat the
    program's so the op reads on its own; the verifier checks they agree,
    and that the group size, element type and element count are the
    program's.
  }];
  let arguments = (ins
    FlatSymbolRefAttr:$program,
    Comm_CollectiveKindAttr:$collective,
    OptionalAttr<Comm_ReductionKindAttr>:$kind,
    Variadic<Comm_Tensor>:$inputs,
    FlatSymbolRefAttr:$group,
    Comm_AlgorithmAttr:$algo);
  let results = (outs Variadic<Comm_Tensor>:$results);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Elements of the flat buffer HCCL counts for this collective.
    std::optional<int64_t> getHcclCount();
  }];
}

def Comm_BuffersOp : Comm_Op<"buffers", [HasParent<"ProgramOp">]> {
  let summary = "sizes, in elements, of the program's three buffers";
  let arguments = (ins Index:$input, Index:$output, Index:$scratch);
  let assemblyFormat = [{
    `input` $input `output` $output `scratch` $scratch attr-dict
  }];
}

def Comm_ParamOp : Comm_Op<"param", [Pure]> {
  let summary = "a named program constant";
  let description = [{
    `%m = comm.param "m" = 8` — kept by name in the compact form (it reads
    better than a literal and round-trips to the plan's params); folds to
    its value.
  }];
  let arguments = (ins StrAttr:$name, I64Attr:$value);
  let results = (outs Index:$result);
  let assemblyFormat = "$name `=` $value attr-dict";
  let hasFolder = 1;
}

def Comm_TableAtOp : Comm_Op<"table_at", [Pure]> {
  let summary = "entry of an integer table of the enclosing program";
  let arguments = (ins Index:$index, I64Attr:$table);
  let results = (outs Index:$result);
  let assemblyFormat = "$table `[` $index `]` attr-dict";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Comm_EModOp : Comm_Op<"emod", [Pure]> {
  let summary = "Euclidean remainder (result in [0, |rhs|))";
  let description = [{
    The `%` of step-program expressions: `(r - s - 1) emod p` is the ring
    predecessor's block for every r, which arith.remsi is not for negative
    left-hand sides.
  }];
  let arguments = (ins Index:$lhs, Index:$rhs);
  let results = (outs Index:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict";
  let hasFolder = 1;
}

def Comm_PhaseOp : Comm_Op<"phase", [
    SingleBlock, NoTerminator, HasParent<"ProgramOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "a loop of steps over the same ops";
  let description = [{
    `comm.phase "reduce_scatter" steps 7 (%s) { ... }`: the body runs for
    s = 0 .. steps - 1, one step each; steps run in order. Specialisation
    unrolls a phase into single steps, each printed with its step index,
    `comm.phase "reduce_scatter" step 3 (%s) { ... }` (the `step`
    attribute; `steps` is then 1).
  }];
  let arguments = (ins StrAttr:$name, I64Attr:$steps,
                       OptionalAttr<I64Attr>:$step);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    ::mlir::BlockArgument getStepArg() { return getBodyBlock().getArgument(0); }
  }];
}

def Comm_RepeatOp : Comm_Op<"repeat", [
    SingleBlock, NoTerminator, HasParent<"PhaseOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "instances t = 0 .. count-1 of the ops inside, in one step";
  let description = [{
    `comm.repeat %k (%t) { comm.step.send ... }`: every op of the body is
    instantiated count times within the current step (e.g. one send per
    peer of a full mesh); instances of one op come in t order, the ops in
    body order. The count may not depend on t.
  }];
  let arguments = (ins Index:$count);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasCanonicalizeMethod = 1;
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    ::mlir::BlockArgument getIndexArg() { return getBodyBlock().getArgument(0); }
  }];
}

// Step ops: each index field is either an SSA value or a constant folded
// into `static_fields` (ShapedType::kDynamic marks the dynamic ones, which
// appear in `dynamic_fields` in order). Field order per op is given by
// StepOpInterface::getFieldNames().
class Comm_StepOp<string mnemonic, string doc>
    : Comm_Op<"step." # mnemonic, [
        ParentOneOf<["PhaseOp", "RepeatOp"]>,
        MemoryEffects<[MemRead<Comm_CommResource>,
                       MemWrite<Comm_CommResource>]>]> {
  let summary = doc;
  let arguments = (ins Variadic<Index>:$dynamic_fields,
                       DenseI64ArrayAttr:$static_fields,
                       OptionalAttr<Comm_BufferKindAttr>:$dst_buf,
                       OptionalAttr<Comm_BufferKindAttr>:$src_buf);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Comm_StepSendOp : Comm_StepOp<"send", "send a buffer region to a peer"> {
  let description = [{
    `comm.step.send input[%off] to %peer count %cnt (when %w)?`
  }];
}
def Comm_StepRecvOp : Comm_StepOp<"recv", "receive a region from a peer"> {
  let description = [{
    `comm.step.recv scratch[%off] from %peer count %cnt (when %w)?`
  }];
}
def Comm_StepRecvReduceOp : Comm_StepOp<"recv_reduce",
    "receive from a peer and reduce with a local region"> {
  let description = [{
    `comm.step.recv_reduce output[%o] from %peer with input[%i] count %cnt`:
    output[o..] = input[i..] op received (the local region may be the
    destination itself).
  }];
}
def Comm_StepCopyOp : Comm_StepOp<"copy", "local copy"> {
  let description = [{
    `comm.step.copy output[%o] from input[%i] count %cnt`
  }];
}
def Comm_StepReduceOp : Comm_StepOp<"reduce",
    "local reduction of k strided source regions"> {
  let description = [{
    `comm.step.reduce output[%o] from scratch[%i] stride %st n %k count %cnt`:
    dst = src_0 op src_1 op ... op src_{k-1}, left to right, src_j at
    offset i + j*stride.
  }];
}

#endif // HCCL_COMM_SCHEDULE_OPS
