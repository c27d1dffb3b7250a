module attributes {comm.topology = #comm.topology<servers = 2, devices = 2,
    intra = mesh #comm.link<shm, bandwidth = 5, latency = 1, ports = 1>,
    inter = #comm.link<tcp, bandwidth = 1, latency = 20, ports = 1>,
    reduce = 4>} {
  comm.group @w ranks = [0, 1, 2, 3]

  func.func @step(%x: tensor<37xf32>, %i: tensor<37xi32>, %b: tensor<5xf32>,
                  %s: tensor<20xf32>) {
    %ar0 = comm.all_reduce sum %x on @w algo <ring> : tensor<37xf32>
    %ar1 = comm.all_reduce sum %x on @w algo <mesh> : tensor<37xf32>
    %ar2 = comm.all_reduce max %x on @w algo <mesh_oneshot> : tensor<37xf32>
    %ar3 = comm.all_reduce sum %i on @w algo <rhd> : tensor<37xi32>
    %ar4 = comm.all_reduce min %i on @w algo <rd> : tensor<37xi32>
    %ar5 = comm.all_reduce sum %x on @w algo <hierarchical(ring, rhd)> : tensor<37xf32>

    %ag0 = comm.all_gather %b on @w dim 0 algo <ring> : tensor<5xf32> -> tensor<20xf32>
    %ag1 = comm.all_gather %b on @w dim 0 algo <mesh> : tensor<5xf32> -> tensor<20xf32>
    %ag2 = comm.all_gather %b on @w dim 0 algo <rhd> : tensor<5xf32> -> tensor<20xf32>
    %ag3 = comm.all_gather %b on @w dim 0 algo <hierarchical(ring, ring)> : tensor<5xf32> -> tensor<20xf32>

    %rs0 = comm.reduce_scatter sum %s on @w dim 0 algo <ring> : tensor<20xf32> -> tensor<5xf32>
    %rs1 = comm.reduce_scatter sum %s on @w dim 0 algo <mesh> : tensor<20xf32> -> tensor<5xf32>
    %rs2 = comm.reduce_scatter max %s on @w dim 0 algo <rhd> : tensor<20xf32> -> tensor<5xf32>
    %rs3 = comm.reduce_scatter sum %s on @w dim 0 algo <hierarchical(mesh, ring)> : tensor<20xf32> -> tensor<5xf32>

    %bc0 = comm.broadcast %x on @w root 0 algo <ring> : tensor<37xf32>
    %bc1 = comm.broadcast %x on @w root 3 algo <ring> : tensor<37xf32>
    %bc2 = comm.broadcast %x on @w root 1 algo <tree> : tensor<37xf32>
    %bc3 = comm.broadcast %x on @w root 2 algo <star> : tensor<37xf32>
    %bc4 = comm.broadcast %x on @w root 3 algo <hierarchical(ring, tree)> : tensor<37xf32>

    %rd0 = comm.reduce sum %x on @w root 0 algo <ring> : tensor<37xf32>
    %rd1 = comm.reduce sum %x on @w root 2 algo <tree> : tensor<37xf32>
    %rd2 = comm.reduce max %x on @w root 3 algo <star> : tensor<37xf32>
    %rd3 = comm.reduce sum %x on @w root 1 algo <hierarchical(star, ring)> : tensor<37xf32>

    %aa0 = comm.all_to_all %s on @w split_dim 0 concat_dim 0 algo <pairwise> : tensor<20xf32> -> tensor<20xf32>
    %aa1 = comm.all_to_all %s on @w split_dim 0 concat_dim 0 algo <mesh> : tensor<20xf32> -> tensor<20xf32>
    return
  }
}
