# One process, one thread: the mlp's forward / backward / optimizer at batch 1, median ms of 20 steps after 5.
# Run from anywhere: GLIBC_TUNABLES=... /usr/bin/python3 2026-12-04-2035-step-breakdown.py none|zero
# (none: zero_grad(set_to_none=True); zero: set_to_none=False). Output of the runs in docs/performance.md,
# "Freed memory kept", in 2026-12-04-2035-step-breakdown.txt beside this file.
import os, sys, time, statistics, torch
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import train_ddp
torch.set_num_threads(1)
torch.manual_seed(0)
net = train_ddp.mlp()
opt = torch.optim.SGD(net.parameters(), lr=0.002, momentum=0.9)
none = sys.argv[1] == 'none'
fw, bw, op = [], [], []
for s in range(25):
    x, y = train_ddp.batch('mlp', 0, s, 1)
    t0 = time.perf_counter()
    opt.zero_grad(set_to_none=none)
    loss = train_ddp.loss_of('mlp', net, x, y)
    t1 = time.perf_counter()
    loss.backward()
    t2 = time.perf_counter()
    opt.step()
    t3 = time.perf_counter()
    if s >= 5:
        fw.append(t1 - t0); bw.append(t2 - t1); op.append(t3 - t2)
m = lambda v: round(statistics.median(v) * 1e3, 1)
print(sys.argv[1], 'fwd', m(fw), 'bwd', m(bw), 'opt', m(op), 'step', m([a+b+c for a,b,c in zip(fw,bw,op)]))
