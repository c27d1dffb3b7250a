"""The best row of sim_sizing's table has the shortest simulated
iteration, and the plan it wrote simulates to that iteration."""
import re
import subprocess
import sys

table, sim, plan = sys.argv[1:4]
rows = []
best = None
for line in open(table):
    m = re.match(r"\| (policy=[^|]*?)( \(best\))? \| \d+ \| [0-9.]+ \| ([0-9.]+) \|", line)
    if m:
        rows.append((float(m.group(3)), m.group(1)))
        if m.group(2):
            best = (float(m.group(3)), m.group(1))
assert len(rows) == 5, rows
assert best is not None, "no row marked best"
assert best[0] == min(r[0] for r in rows), (best, rows)
out = subprocess.run([sim, plan], capture_output=True, text=True, check=True).stdout
it = float(re.search(r"iteration_us ([0-9.]+)", out).group(1))
assert abs(it - best[0]) <= 0.01, (it, best)
print("ok", best[1], it)
