/*===- ranktable_mpi.c - HcclCommInitClusterInfo from a rank table --------===
 *
 *   mpirun -n N ranktable_mpi PATH {1.0|1.2|2.0}
 *
 * Rank 0 writes a rank table of N ranks on this host in the documented
 * form of that version (servers named node_0 ...; 1.2 with host_ip, 2.0
 * with a d2h host address), then every rank creates the communicator from
 * it with rank_id = its MPI rank and runs every collective.
 *
 *===----------------------------------------------------------------------===*/
#include "compat.h"

#include <mpi.h>

static void writeTable(const char *path, const char *version, int n) {
  FILE *f = fopen(path, "w");
  int r;
  if (!f)
    return;
  if (strcmp(version, "2.0") == 0) {
    fprintf(f,
            "{\"status\":\"completed\",\"version\":\"2.0\",\"rank_count\":%d,"
            "\"rank_list\":[",
            n);
    for (r = 0; r < n; ++r)
      fprintf(f,
              "%s{\"rank_id\":%d,\"device_id\":%d,\"local_id\":%d,"
              "\"level_list\":[{\"net_layer\":0,\"net_instance_id\":\"az0-"
              "rack0-pod0\",\"net_type\":\"TOPO_FILE_DESC\",\"net_attr\":\"\","
              "\"rank_addr_list\":[{\"addr_type\":\"IPV4\",\"addr\":\"127.0.0."
              "1\",\"ports\":[\"d2h\"]}]}]}",
              r ? "," : "", r, r, r);
    fprintf(f, "]}");
  } else {
    int v12 = strcmp(version, "1.2") == 0;
    fprintf(f,
            "{\"status\":\"completed\",\"version\":\"%s\","
            "\"server_count\":\"1\",\"server_list\":[{\"server_id\":"
            "\"node_0\",%s\"device\":[",
            version, v12 ? "\"host_ip\":\"127.0.0.1\"," : "");
    for (r = 0; r < n; ++r)
      fprintf(f,
              "%s{\"device_id\":\"%d\",%s\"device_ip\":\"192.168.1.%d\","
              "\"rank_id\":\"%d\"}",
              r ? "," : "", r, v12 ? "\"super_device_id\":\"0\"," : "", r + 1,
              r);
    fprintf(f, "]}]%s}",
            v12 ? ",\"super_pod_list\":[{\"super_pod_id\":\"0\","
                  "\"server_list\":[{\"server_id\":\"node_0\"}]}]"
                : "");
  }
  fclose(f);
}

static int run(int rank, int size, const char *path) {
  ACL_OK(aclInit(NULL));
  ACL_OK(aclrtSetDevice(0));
  aclrtStream stream;
  ACL_OK(aclrtCreateStream(&stream));
  HcclComm comm;
  HCCL_OK(HcclCommInitClusterInfo(path, (uint32_t)rank, &comm));
  uint32_t n = 0, id = 0;
  HCCL_OK(HcclGetRankSize(comm, &n));
  HCCL_OK(HcclGetRankId(comm, &id));
  if (n != (uint32_t)size || id != (uint32_t)rank) {
    fprintf(stderr, "rank %d: the table gave rank %u of %u\n", rank, id, n);
    return 1;
  }
  if (runCollectives(comm, stream))
    return 1;
  HCCL_OK(HcclCommDestroy(comm));
  ACL_OK(aclrtDestroyStream(stream));
  ACL_OK(aclFinalize());
  return 0;
}

int main(int argc, char **argv) {
  int rank = 0, size = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3) {
    if (rank == 0)
      fprintf(stderr, "usage: ranktable_mpi PATH {1.0|1.2|2.0}\n");
    MPI_Finalize();
    return 2;
  }
  if (rank == 0)
    writeTable(argv[1], argv[2], size);
  MPI_Barrier(MPI_COMM_WORLD);
  int rc = run(rank, size, argv[1]);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rc == 0 && rank == 0) {
    printf("ranktable_mpi: version %s, %d ranks: every collective correct\n",
           argv[2], size);
    remove(argv[1]);
  }
  MPI_Finalize();
  return rc;
}
