#!/bin/bash
# A = /tmp/abA (c59bd41's bin and lib), B = /tmp/abC (outputs past the cache streamed, after review)
cd /work/main
echo "# $(date -u '+%Y-%m-%d %H:%M') UTC, $(lscpu | sed -n 's/^Model name: *//p'), L3 $(cat /sys/devices/system/cpu/cpu0/cache/index3/size), shmem_enabled $(cat /sys/kernel/mm/transparent_hugepage/shmem_enabled)"
echo "# A = c59bd41 (before), B = the change after review; bench/runtime/ab_builds.sh /tmp/abA /tmp/abC R OP ARGS (alternating; median and min us over R rounds; B/A of the medians)"
run() {
  r=$1; shift
  echo "== $(date -u +%H:%M:%S) ${PRE:+$PRE }ab_builds.sh /tmp/abA /tmp/abC $r $* -n 20 -w 5 -c 0 (load $(cut -d' ' -f1-3 /proc/loadavg))"
  bench/runtime/ab_builds.sh /tmp/abA /tmp/abC $r "$@" -n 20 -w 5 -c 0 2>&1 | grep "B/A"
}
run 12 all_reduce -b 4M -e 64M -f 2 -p 2
run 12 all_gather -b 4M -e 64M -f 2 -p 2
run 12 broadcast -b 4M -e 64M -f 2 -p 2
run 12 reduce_scatter -b 4M -e 64M -f 2 -p 2
run 8 all_reduce -b 8M -e 64M -f 2 -p 2 --malloc
PRE="HCCL_TRANSPORT=tcp" HCCL_TRANSPORT=tcp run 6 all_reduce -b 16M -e 64M -f 2 -p 2
run 6 all_reduce -b 16M -e 64M -f 2 -p 3
echo "== memcpy-bench -s 16M / 32M / 64M (one thread)"
for s in 16M 32M 64M; do build/bin/memcpy-bench -s $s -n 10 -r 5; done
echo "# done $(date -u +%H:%M:%S)"
