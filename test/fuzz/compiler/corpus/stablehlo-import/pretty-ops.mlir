func.func @elementwise(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>, %arg2: tensor<4xcomplex<f32>>, %arg3: tensor<f32>) {
  %0 = stablehlo.abs %arg0 : tensor<4xf32>
  %1 = stablehlo.cbrt %arg0 : tensor<4xf32>
  %2 = stablehlo.ceil %arg0 : tensor<4xf32>
  %3 = stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<4xbf16>
  %4 = stablehlo.count_leading_zeros %arg1 : tensor<4xi32>
  %5 = stablehlo.cosine %arg0 : tensor<4xf32>
  %6 = stablehlo.exponential %arg0 : tensor<4xf32>
  %7 = stablehlo.exponential_minus_one %arg0 : tensor<4xf32>
  %8 = stablehlo.floor %arg0 : tensor<4xf32>
  %9 = stablehlo.imag %arg2 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %10 = stablehlo.is_finite %arg0 : (tensor<4xf32>) -> tensor<4xi1>
  %11 = stablehlo.log %arg0 : tensor<4xf32>
  %12 = stablehlo.log_plus_one %arg0 : tensor<4xf32>
  %13 = stablehlo.logistic %arg0 : tensor<4xf32>
  %14 = stablehlo.not %arg1 : tensor<4xi32>
  %15 = stablehlo.negate %arg0 : tensor<4xf32>
  %16 = stablehlo.popcnt %arg1 : tensor<4xi32>
  %17 = stablehlo.real %arg2 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %18 = stablehlo.round_nearest_afz %arg0 : tensor<4xf32>
  %19 = stablehlo.round_nearest_even %arg0 : tensor<4xf32>
  %20 = stablehlo.rsqrt %arg0 : tensor<4xf32>
  %21 = stablehlo.sign %arg0 : tensor<4xf32>
  %22 = stablehlo.sine %arg0 : tensor<4xf32>
  %23 = stablehlo.sqrt %arg0 : tensor<4xf32>
  %24 = stablehlo.tan %arg0 : tensor<4xf32>
  %25 = stablehlo.tanh %arg0 : tensor<4xf32>
  %26 = stablehlo.exponential %arg0 {result_accuracy = #stablehlo.result_accuracy<atol = 0.0 : f64, rtol = 0.0 : f64, ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<4xf32>
  %30 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
  %31 = stablehlo.and %arg1, %arg1 : tensor<4xi32>
  %32 = stablehlo.atan2 %arg0, %arg0 : tensor<4xf32>
  %33 = stablehlo.divide %arg0, %arg0 : tensor<4xf32>
  %34 = stablehlo.maximum %arg0, %arg0 : tensor<4xf32>
  %35 = stablehlo.minimum %arg0, %arg0 : tensor<4xf32>
  %36 = stablehlo.multiply %arg0, %arg0 : tensor<4xf32>
  %37 = stablehlo.or %arg1, %arg1 : tensor<4xi32>
  %38 = stablehlo.power %arg0, %arg0 : tensor<4xf32>
  %39 = stablehlo.remainder %arg0, %arg0 : tensor<4xf32>
  %40 = stablehlo.shift_left %arg1, %arg1 : tensor<4xi32>
  %41 = stablehlo.shift_right_arithmetic %arg1, %arg1 : tensor<4xi32>
  %42 = stablehlo.shift_right_logical %arg1, %arg1 : tensor<4xi32>
  %43 = stablehlo.subtract %arg0, %arg0 : tensor<4xf32>
  %44 = stablehlo.xor %arg1, %arg1 : tensor<4xi32>
  %45 = stablehlo.complex %arg0, %arg0 : tensor<4xcomplex<f32>>
  %46 = stablehlo.clamp %arg3, %arg0, %arg3 : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %47 = stablehlo.compare  GT, %arg0, %arg0,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %48 = stablehlo.compare LT, %arg1, %arg1 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %49 = stablehlo.select %47, %arg0, %arg0 : tensor<4xi1>, tensor<4xf32>
  %50 = stablehlo.reduce_precision %arg0, format = e5m10 : tensor<4xf32>
  %51 = stablehlo.uniform_quantize %arg0 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 1.0>>
  %52 = stablehlo.uniform_dequantize %51 : (tensor<4x!quant.uniform<i8:f32, 1.0>>) -> tensor<4xf32>
  %53 = stablehlo.bitcast_convert %arg0 : (tensor<4xf32>) -> tensor<4xi32>
  return
}

func.func @shapes(%arg0: tensor<3xf32>, %arg1: tensor<i64>) {
  %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %i = stablehlo.iota dim = 1 : tensor<2x3xi64>
  %0 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %1 = stablehlo.broadcast %arg0, sizes = [2] : (tensor<3xf32>) -> tensor<2x3xf32>
  %2 = stablehlo.reshape %0 : (tensor<2x3xf32>) -> tensor<6xf32>
  %3 = stablehlo.transpose %0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %4 = stablehlo.reverse %0, dims = [0] : tensor<2x3xf32>
  %5 = stablehlo.slice %0 [0:2, 1:3:2] : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %6 = stablehlo.dynamic_slice %0, %arg1, %arg1, sizes = [1, 2] : (tensor<2x3xf32>, tensor<i64>, tensor<i64>) -> tensor<1x2xf32>
  %7 = stablehlo.dynamic_update_slice %0, %6, %arg1, %arg1 : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<i64>, tensor<i64>) -> tensor<2x3xf32>
  %8 = stablehlo.concatenate %0, %1, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %9 = stablehlo.pad %0, %z, low = [0, 1], high = [1, 0], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x4xf32>
  %10 = stablehlo.get_dimension_size %0, dim = 1 : (tensor<2x3xf32>) -> tensor<i32>
  %11 = stablehlo.set_dimension_size %0, %10, dim = 1 : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x?xf32, #stablehlo.type_extensions<bounds = [?, 3]>>
  %s = stablehlo.constant dense<6> : tensor<1xi64>
  %12 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<1xi64>) -> tensor<?xf32>
  %13 = stablehlo.dynamic_reshape %0, %s : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<?xf32>
  %s2 = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
  %14 = stablehlo.dynamic_broadcast_in_dim %arg0, %s2, dims = [1] : (tensor<3xf32>, tensor<2xi64>) -> tensor<?x3xf32>
  return
}

func.func @contractions(%arg0: tensor<2x2x2xi64>, %arg1: tensor<2x2x2xi64>, %arg2: tensor<4x4xf32>, %arg3: tensor<1x4x4x1xi64>, %arg4: tensor<3x3x1x1xi64>, %arg5: tensor<1x3x8x8xf32>, %arg6: tensor<16x3x3x3xf32>) {
  %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, HIGHEST] : (tensor<2x2x2xi64>, tensor<2x2x2xi64>) -> tensor<2x2x2xi64>
  %1 = stablehlo.dot_general %arg2, %arg2, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %2 = stablehlo.dot_general %arg2, %arg2, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %3 = stablehlo.dot %arg2, %arg2, precision = [DEFAULT, DEFAULT] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %4 = stablehlo.convolution(%arg3, %arg4) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [4, 4], pad = [[0, 0], [0, 0]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [0, 0]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64>
  %5 = stablehlo.convolution(%arg5, %arg6) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
  %c = stablehlo.constant dense<(1.0, 0.0)> : tensor<4xcomplex<f32>>
  %6 = stablehlo.fft %c, type = FFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  %7 = stablehlo.cholesky %arg2, lower = true : tensor<4x4xf32>
  %8 = stablehlo.einsum %arg2, %arg2, config = "ab,bc->ac" : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %9 = stablehlo.unary_einsum %arg2, config = "ab->a" : (tensor<4x4xf32>) -> tensor<4xf32>
  return
}

func.func @reductions(%arg0: tensor<1x6xi64>, %arg1: tensor<i64>, %arg2: tensor<1x6xf32>, %arg3: tensor<f32>, %arg4: tensor<3x2xi64>, %arg5: tensor<2x3x4x2xi64>, %arg6: tensor<2x2x3x2xi64>) {
  %0 = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.add across dimensions = [1] : (tensor<1x6xi64>, tensor<i64>) -> tensor<1xi64>
  %1:2 = stablehlo.reduce(%arg0 init: %arg1), (%arg2 init: %arg3) across dimensions = [1] : (tensor<1x6xi64>, tensor<1x6xf32>, tensor<i64>, tensor<f32>) -> (tensor<1xi64>, tensor<1xf32>)
    reducer(%a: tensor<i64>, %b: tensor<i64>) (%c: tensor<f32>, %d: tensor<f32>) {
      %m = stablehlo.maximum %a, %b : tensor<i64>
      %s = stablehlo.add %c, %d : tensor<f32>
      stablehlo.return %m, %s : tensor<i64>, tensor<f32>
    }
  %2 = stablehlo.reduce(%arg0 init: %arg1) across dimensions = [0, 1] : (tensor<1x6xi64>, tensor<i64>) -> tensor<i64>
    reducer(%a: tensor<i64>, %b: tensor<i64>) {
      %s = stablehlo.subtract %b, %a : tensor<i64>
      stablehlo.return %s : tensor<i64>
    }
  %3 = "stablehlo.reduce_window"(%arg4, %arg1) <{base_dilations = array<i64: 2, 1>, padding = dense<[[2, 1], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 3, 1>, window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 4, 1>}> ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    %s = stablehlo.add %a, %b : tensor<i64>
    stablehlo.return %s : tensor<i64>
  }) : (tensor<3x2xi64>, tensor<i64>) -> tensor<2x2xi64>
  %4 = "stablehlo.select_and_scatter"(%arg4, %3, %arg1) <{padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 3, 1>, window_strides = array<i64: 2, 1>}> ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    %p = stablehlo.compare GE, %a, %b : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }, {
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    %s = stablehlo.add %a, %b : tensor<i64>
    stablehlo.return %s : tensor<i64>
  }) : (tensor<3x2xi64>, tensor<2x2xi64>, tensor<i64>) -> tensor<3x2xi64>
  %5 = "stablehlo.sort"(%arg4) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    %p = stablehlo.compare GT, %a, %b : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }) : (tensor<3x2xi64>) -> tensor<3x2xi64>
  %6 = "stablehlo.map"(%arg4, %arg4) <{dimensions = array<i64: 0, 1>}> ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    %s = stablehlo.multiply %a, %b : tensor<i64>
    stablehlo.return %s : tensor<i64>
  }) : (tensor<3x2xi64>, tensor<3x2xi64>) -> tensor<3x2xi64>
  %7 = "stablehlo.gather"(%arg5, %arg6) <{dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 2, 2>}> : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi64>
  %8 = "stablehlo.scatter"(%arg5, %arg6, %arg6) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>, unique_indices = false}> ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    %s = stablehlo.add %a, %b : tensor<i64>
    stablehlo.return %s : tensor<i64>
  }) : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2xi64>) -> tensor<2x3x4x2xi64>
  %x = stablehlo.constant dense<1.0> : tensor<2x2x2xf32>
  %v = stablehlo.constant dense<1.0> : tensor<2xf32>
  %9:3 = "stablehlo.batch_norm_training"(%x, %v, %v) <{epsilon = 0.0 : f32, feature_index = 2 : i64}> : (tensor<2x2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  %10 = "stablehlo.batch_norm_inference"(%x, %v, %v, %v, %v) <{epsilon = 0.0 : f32, feature_index = 2 : i64}> : (tensor<2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2x2xf32>
  %11:3 = "stablehlo.batch_norm_grad"(%x, %v, %v, %v, %x) <{epsilon = 0.0 : f32, feature_index = 2 : i64}> : (tensor<2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2x2xf32>) -> (tensor<2x2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  %m = stablehlo.constant dense<1.0> : tensor<3x3xf32>
  %12 = "stablehlo.triangular_solve"(%m, %m) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = true}> : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  return
}

func.func private @callee(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

func.func @control(%arg0: tensor<i64>, %arg1: tensor<4xf32>, %arg2: tensor<i1>, %arg3: tensor<i32>) {
  %0:2 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %arg1) : tensor<i64>, tensor<4xf32>
   cond {
    %c = stablehlo.constant dense<10> : tensor<i64>
    %p = stablehlo.compare  LT, %iterArg, %c,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %n = stablehlo.add %iterArg, %c : tensor<i64>
    %m = stablehlo.multiply %iterArg_0, %iterArg_0 : tensor<4xf32>
    stablehlo.return %n, %m : tensor<i64>, tensor<4xf32>
  }
  %1 = "stablehlo.if"(%arg2) ({
    stablehlo.return %arg1 : tensor<4xf32>
  }, {
    %n = stablehlo.negate %arg1 : tensor<4xf32>
    stablehlo.return %n : tensor<4xf32>
  }) : (tensor<i1>) -> tensor<4xf32>
  %2 = "stablehlo.case"(%arg3) ({
    stablehlo.return %arg1 : tensor<4xf32>
  }, {
    stablehlo.return %1 : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  %3 = func.call @callee(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
  %4 = stablehlo.custom_call @foo(%arg1) {api_version = 2 : i32, backend_config = "cfg", has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
  %5 = stablehlo.custom_call @"foo.bar-baz"(%arg1) {output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>]} : (tensor<4xf32>) -> tensor<4xf32>
  stablehlo.optimization_barrier()
  %6:2 = stablehlo.optimization_barrier %arg1, %arg0 : tensor<4xf32>, tensor<i64>
  %7 = stablehlo.tuple %arg1, %arg0 : tuple<tensor<4xf32>, tensor<i64>>
  %8 = stablehlo.get_tuple_element %7[1] : (tuple<tensor<4xf32>, tensor<i64>>) -> tensor<i64>
  %9 = stablehlo.composite "my.gelu" %arg1 {composite_attributes = {approximate = true}, decomposition = @callee, version = 1 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.constant dense<4> : tensor<1xi64>
  %10 = stablehlo.rng %z, %z, %s, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<4xf32>
  %st = stablehlo.constant dense<1> : tensor<2xui64>
  %11:2 = stablehlo.rng_bit_generator %st, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  return
}

func.func @processes(%arg0: tensor<4xf32>, %arg1: !stablehlo.token) {
  %0 = stablehlo.replica_id : tensor<ui32>
  %1 = stablehlo.partition_id : tensor<ui32>
  %2 = stablehlo.create_token : !stablehlo.token
  %3 = stablehlo.after_all %arg1, %2 : !stablehlo.token
  %4 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  %5 = "stablehlo.all_gather"(%arg0) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>
  %6 = "stablehlo.reduce_scatter"(%5) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, scatter_dimension = 0 : i64}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<8xf32>) -> tensor<4xf32>
  %7 = "stablehlo.all_to_all"(%arg0) <{concat_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, split_count = 2 : i64, split_dimension = 0 : i64}> : (tensor<4xf32>) -> tensor<4xf32>
  %8 = "stablehlo.collective_permute"(%arg0) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
  %9 = "stablehlo.collective_broadcast"(%arg0) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
  %10 = "stablehlo.send"(%arg0, %arg1) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 2>, is_host_transfer = true}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
  %11:2 = "stablehlo.recv"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 3, type = 3>, is_host_transfer = true}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
  %12:2 = "stablehlo.infeed"(%arg1) <{infeed_config = "", layout = [[0]]}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
  %13 = "stablehlo.outfeed"(%arg0, %arg1) <{outfeed_config = ""}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
  %14 = "stablehlo.async_start"(%arg0) ({
  ^bb0(%a: tensor<4xf32>):
    %n = stablehlo.negate %a : tensor<4xf32>
    stablehlo.return %n : tensor<4xf32>
  }) : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
  %15 = "stablehlo.async_done"(%14) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>
  return
}

