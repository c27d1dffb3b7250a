# The 4-rank slack-margin A/B: bench/model/results/2026-12-04-1959-p4-slack-ab.sh
# wrote the JSONs (there under /tmp/ab4); run from the repository root.
import json, glob, statistics as st, collections
D = 'bench/model/results/2026-12-04-1959-p4-slack-ab-'
# per (graph, k, margin): per round the ratio optimal/ddp (same round, adjacent runs)
R = collections.defaultdict(list); M = collections.defaultdict(list)
for f in sorted(glob.glob(D + 'pair*-m*.json')):
    m = f.rsplit('-m', 1)[1].split('.')[0]
    rows = json.load(open(f))['rows']
    by = {(r['graph'], r['in_flight'], r['policy']): r for r in rows}
    for (g, k, p), r in by.items():
        if p != 'optimal': continue
        d = by[(g, k, 'ddp')]
        R[(g, k, m)] += [o / b for o, b in zip(r['round_iter_ms'], d['round_iter_ms'])]
        M[(g, k, m)] += r['round_iter_ms']
print("graph k margin: rounds, median optimal ms, median optimal/ddp per round [min-max], rounds optimal faster")
for key in sorted(R):
    x = R[key]
    print(key, len(x), round(st.median(M[key]),1), round(st.median(x),3), f"[{min(x):.3f}-{max(x):.3f}]", sum(v < 1 for v in x))
print("per invocation: median optimal/ddp (pair 1,2,3)")
import itertools
for g in ['vit_b_16-host']:
  for k in [0,1,2]:
    for m in '01':
      out=[]
      for p in '123':
        rows=json.load(open(D + f'pair{p}-m{m}.json'))['rows']
        by={(r['graph'],r['in_flight'],r['policy']):r for r in rows}
        o=by[(g,k,'optimal')]; d=by[(g,k,'ddp')]
        out.append(round(o['meas_iter_ms']/d['meas_iter_ms'],3))
      print(g,k,m,out)
def mw(a,b):
    u=sum((x<y)+0.5*(x==y) for x in a for y in b); return u/(len(a)*len(b))
for k in [0,1,2]:
    print('k',k,'P(slack ratio > no-slack ratio)=',round(1-mw(R[('vit_b_16-host',k,'1')],R[('vit_b_16-host',k,'0')]),2))
