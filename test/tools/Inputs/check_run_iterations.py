"""hccl-run's per-iteration line (--phase-probe) against its table: the
table's iteration_ms is the median of the listed iterations, and every
probe took time."""
import re
import statistics
import sys

text = open(sys.argv[1]).read()
rows = re.findall(r"^(\w+)\s+\| ([0-9.]+)\s+\|", text, re.M)
its = dict(re.findall(r"^iterations \((\w+)\), ms: (.*)$", text, re.M))
probes = dict(re.findall(r"^phase probe \((\w+)\): .*each: (.*)$", text, re.M))
assert rows and len(rows) == len(its) == len(probes), (rows, its, probes)
for label, table in rows:
    listed = [float(x) for x in its[label].split()]
    med = statistics.median(listed)
    # The table prints the median of the same doubles to 3 decimals.
    assert abs(med - float(table)) <= 0.0015, (label, med, table)
    p = [float(x) for x in probes[label].split()]
    assert len(p) == len(listed) + 1 and min(p) > 0, (label, p)
    print(f"{label}: median of {len(listed)} iterations {med:.3f} = table {table}; "
          f"{len(p)} probes")
