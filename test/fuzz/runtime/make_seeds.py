#!/usr/bin/env python3
"""Writes the runtime fuzz targets' seed corpora (corpus/<target>/).

    test/fuzz/runtime/make_seeds.py BUILD_DIR

BUILD_DIR is a normal build: its bin/hccl-plan generates the plans, its
lib/libhccl.so the root info blob (HcclGetRootInfo). The other seeds are
test inputs (rank tables) or written here in each target's input format
(see the comment at the top of each *_fuzzer.cpp).
"""
import ctypes
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", "..", ".."))


def out(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def plans(build):
    tool = os.path.join(build, "bin", "hccl-plan")
    cases = [
        ("allreduce-ring-p4", ["--collective", "allreduce", "--algo", "ring",
                               "--ranks", "4", "--count", "1000"]),
        ("allgather-mesh-p3", ["--collective", "allgather", "--algo", "mesh",
                               "--ranks", "3", "--count", "7",
                               "--form", "both"]),
        ("broadcast-tree-p5", ["--collective", "broadcast", "--algo", "tree",
                               "--ranks", "5", "--count", "33", "--root", "2"]),
        ("reducescatter-rhd-p8", ["--collective", "reducescatter", "--algo",
                                  "rhd", "--ranks", "8", "--count", "64",
                                  "--dtype", "int32", "--op", "max"]),
        ("alltoall-pairwise-p4", ["--collective", "alltoall", "--algo",
                                  "pairwise", "--ranks", "4", "--count", "8",
                                  "--form", "expanded"]),
        ("allreduce-hier-2x2", ["--collective", "allreduce", "--algo",
                                "hierarchical", "--ranks", "4", "--count",
                                "100", "--ranks-per-server", "2",
                                "--rank-table", os.path.join(
                                    SRC, "test/unit/schedule/inputs/"
                                    "rank-table.json")]),
        # Super pods: the plan's topology carries pod_servers and scaleup.
        ("allreduce-ring-pods", ["--collective", "allreduce", "--algo",
                                 "ring", "--ranks", "16", "--count", "64",
                                 "--topology", "910d-8x2-pod2"]),
    ]
    # Calibrated figures: caches' knees as lists, with their provenance
    # (which link parameters accept and plans do not carry).
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"cache_bytes": [1048576, 33554432, 67108864],
                   "past_cache_factor": [1.75, 5.5, 2.9],
                   "collective_overhead_us": 0.3, "collective_wakeup_us": 11,
                   "calibrated": {"by": "calibrate_host.py", "ranks": 2}}, f)
    cases.append(("allreduce-ring-knees",
                  ["--collective", "allreduce", "--algo", "ring", "--ranks",
                   "2", "--count", "4096", "--topology", "host-2",
                   "--link-params", f.name]))
    for name, args in cases:
        text = subprocess.run([tool, "generate"] + args, check=True,
                              capture_output=True).stdout
        out("plan", name + ".json", text)
    os.unlink(f.name)


def rank_tables():
    inputs = os.path.join(SRC, "test/unit/schedule/inputs")
    files = [os.path.join(inputs, "rank-table.json")] + [
        os.path.join(inputs, "ranktables", f)
        for f in sorted(os.listdir(os.path.join(inputs, "ranktables")))]
    for f in files:
        shutil.copy(f, os.path.join(HERE, "corpus", "rank-table",
                                    os.path.basename(f)))
    # A table, a NUL, then link parameters.
    with open(files[0], "rb") as f:
        table = f.read()
    links = (b'{"inter": {"class": "tcp", "bandwidth_gbps": 1.25, '
             b'"latency_us": 30}, "reduce_gbps": 8, "intra_shape": "ring"}')
    out("rank-table", "with-link-params.json", table + b"\0" + links)
    # Super pods grouped out of server order (kept as a map), with the
    # bus's figures restated.
    pods = (b'{"version": "1.2", "status": "completed", "server_count": "3",'
            b' "server_list": ['
            b'{"server_id": "a", "device": [{"device_id": "0", "rank_id": "0"}]},'
            b' {"server_id": "b", "device": [{"device_id": "0", "rank_id": "1"}]},'
            b' {"server_id": "c", "device": [{"device_id": "0", "rank_id": "2"}]}],'
            b' "super_pod_list": [{"super_pod_id": "0", "server_list": '
            b'[{"server_id": "a"}, {"server_id": "c"}]}, {"super_pod_id": "1",'
            b' "server_list": [{"server_id": "b"}]}]}')
    out("rank-table", "superpods-mixed.json",
        pods + b'\0{"scaleup": {"bandwidth_gbps": 90, "latency_us": 3}}')


def root_info(build):
    lib = ctypes.CDLL(os.path.join(build, "lib", "libhccl.so"))
    blob = ctypes.create_string_buffer(4108)
    rc = lib.HcclGetRootInfo(blob)
    if rc != 0:
        sys.exit("HcclGetRootInfo returned %d" % rc)
    out("root-info", "valid.bin", blob.raw)
    # The address field (bytes 32..95) as IPv6; its checksum no longer
    # matches (the target also decodes each input with a valid one).
    out("root-info", "ipv6.bin", blob.raw[:32] + b"::1".ljust(64, b"\0") +
        blob.raw[96:])


def env():
    # Indices into configVariableNames() (runtime/config/Config.cpp).
    names = ["HCCL_BUFFSIZE", "HCCL_ALGO", "HCCL_CONNECT_TIMEOUT",
             "HCCL_CONNECT_TIMEOUT_MS", "HCCL_EXEC_TIMEOUT",
             "HCCL_DETERMINISTIC", "HCCL_SOCKET_IFNAME", "HCCL_IF_IP",
             "HCCL_IF_BASE_PORT", "HCCL_WHITELIST_DISABLE",
             "HCCL_WHITELIST_FILE", "HCCL_RDMA_TC", "HCCL_RDMA_SL",
             "HCCL_RDMA_TIMEOUT", "HCCL_RDMA_RETRY_CNT",
             "HCCL_RDMA_QPS_PER_CONNECTION", "HCCL_RDMA_GID_INDEX",
             "HCCL_IB_LIB", "HCCL_IB_HCA", "HCCL_LOG_LEVEL", "HCCL_TRANSPORT",
             "HCCL_PLAN_TRUSTED"]

    def rec(pairs):
        b = b""
        for n, v in pairs:
            v = v.encode()
            b += bytes([names.index(n), len(v)]) + v
        return b

    out("env", "typical", rec([("HCCL_BUFFSIZE", "200"),
                               ("HCCL_CONNECT_TIMEOUT", "120"),
                               ("HCCL_EXEC_TIMEOUT", "1836"),
                               ("HCCL_DETERMINISTIC", "strict"),
                               ("HCCL_LOG_LEVEL", "warn")]))
    out("env", "algo", rec([("HCCL_ALGO",
                             "level0:NA;level1:H-D_R;level2:ring"),
                            ("HCCL_TRANSPORT", "tcp")]))
    out("env", "network", rec([("HCCL_SOCKET_IFNAME", "^=eth0,lo"),
                               ("HCCL_IF_IP", "fe80::1"),
                               ("HCCL_IF_BASE_PORT", "60000"),
                               ("HCCL_WHITELIST_DISABLE", "0"),
                               ("HCCL_WHITELIST_FILE", "/etc/hccl.json")]))
    out("env", "rdma", rec([("HCCL_RDMA_TC", "132"), ("HCCL_RDMA_SL", "4"),
                            ("HCCL_RDMA_TIMEOUT", "20"),
                            ("HCCL_RDMA_RETRY_CNT", "7"),
                            ("HCCL_RDMA_QPS_PER_CONNECTION", "2"),
                            ("HCCL_RDMA_GID_INDEX", "3"),
                            ("HCCL_IB_HCA", "=mlx5_0:1,mlx5_1"),
                            ("HCCL_IB_LIB", "libibverbs.so.1")]))
    out("env", "bad", rec([("HCCL_BUFFSIZE", "0x10"),
                           ("HCCL_CONNECT_TIMEOUT_MS", "-5"),
                           ("HCCL_PLAN_TRUSTED", "yes")]))


def whitelist():
    out("whitelist", "hosts.json", json.dumps(
        {"host_ip": ["10.0.0.1", "10.0.0.2", "::1", "::ffff:192.168.0.1"],
         "device_ip": []}))
    out("whitelist", "empty.json", '{"host_ip": []}')


def rank_info(rank, port):
    return json.dumps({"rank": rank, "host": "b1e2/net4026531840.1/pid4.2",
                       "hostname": "node%d" % rank, "pid": 4000 + rank,
                       "ip": "10.0.0.%d" % (rank + 1), "port": port,
                       "segFd": 7, "nSlots": 8, "slotBytes": 524288,
                       "server": "", "cores": 2,
                       "settings": "algo=;det=0"},
                      separators=(",", ":"))


def rendezvous():
    infos = [rank_info(r, 60000 + r).encode() for r in range(3)]
    table = b"T" + struct.pack("<I", 3) + b"".join(
        struct.pack("<I", len(i)) + i for i in infos)
    out("rendezvous", "table-3", bytes([2]) + table)
    out("rendezvous", "verdict", bytes([3]) + b"E" + struct.pack("<i", 9) +
        b"communicator init timed out: missing ranks: 3")
    out("rendezvous", "rank-info", bytes([0]) + infos[1])


def listener():
    hello = struct.pack("<QIIQQiiII", 0x4843434c48454c4f, 2, 1,
                        0x0123456789abcdef, 0xfedcba9876543210, 1, 4,
                        len(rank_info(1, 1)), 0) + bytes(16)
    out("listener", "hello", b"\0" + hello)
    out("listener", "hello-and-proof", b"\0" + hello + bytes(32))
    uid = bytes(range(16))
    member = uid + b"\0" + struct.pack("<i", 1) + bytes([4, 0, 0])
    out("listener", "member", b"\1" + member + rank_info(1, 60001).encode())
    out("listener", "member-data", b"\1" + uid + b"\1" +
        struct.pack("<i", 3) + bytes([8, 0, 0]))


def verbs_conninfo():
    info = {"device": "mlx5_0 port 1", "port": 1, "ethernet": True, "lid": 0,
            "gidIndex": 3, "gid": "::ffff:10.0.0.2", "mtu": 3,
            "qps": [[257, 4660], [258, 4661]], "ringAddr": 139637976731648,
            "ringKey": 77, "slots": 8, "slotBytes": 262144,
            "creditAddr": 139637976735744, "creditKey": 78}
    out("verbs-conninfo", "roce.json", json.dumps(info))
    info.update(ethernet=False, lid=17, gid="::", qps=[[1, 0]])
    out("verbs-conninfo", "infiniband.json", json.dumps(info))


def clear_seeds():
    """Removes the seeds written here; committed crash-* inputs (regression
    tests of fixed bugs) stay."""
    top = os.path.join(HERE, "corpus")
    for d, _, files in os.walk(top):
        for f in files:
            if not f.startswith("crash-"):
                os.remove(os.path.join(d, f))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    build = os.path.abspath(sys.argv[1])
    clear_seeds()
    os.makedirs(os.path.join(HERE, "corpus", "rank-table"), exist_ok=True)
    plans(build)
    rank_tables()
    root_info(build)
    env()
    whitelist()
    rendezvous()
    listener()
    verbs_conninfo()


if __name__ == "__main__":
    main()
