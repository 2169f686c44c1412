#!/usr/bin/env python3
"""Exact M/M/c simulation in plain Python, independent of the lab.

Used to check the lab's mean queue wait on M/M/1000 at rho = 0.9 (see
bench/README.md, "The M/M/1000 question"): continuous time (floats), FIFO
queue, departures in a heap. run() returns the mean wait in queue over
customers arriving after the warm-up; res, if set, rounds service starts to
that resolution (e.g. 1e-6 for the lab's 1 µs clock).

usage: mmc_reference.py FIRST_SEED END_SEED   (seeds FIRST..END-1)
"""
import heapq, random, sys
def run(seed, c=1000, lam=900.0, T=1800.0, warm=90.0, res=None):
    r = random.Random(seed)
    t = 0.0; busy = 0; q = []  # FIFO of arrival times
    deps = []; waits = 0.0; n = 0; qi = 0
    import collections
    q = collections.deque()
    nxt = r.expovariate(lam)
    while True:
        if deps and deps[0] <= nxt:
            t = heapq.heappop(deps)
            if q:
                a = q.popleft(); s = t
                if res: s = round(s/res)*res
                if a >= warm: waits += s - a; n += 1
                heapq.heappush(deps, s + r.expovariate(1.0))
            else:
                busy -= 1
        else:
            t = nxt
            if t > T: break
            if busy < c:
                busy += 1
                if t >= warm: n += 1
                heapq.heappush(deps, t + r.expovariate(1.0))
            else:
                q.append(t)
            nxt = t + r.expovariate(lam)
    return waits / n
for s in range(int(sys.argv[1]), int(sys.argv[2])):
    print(s, "%.3g us" % (run(s)*1e6), flush=True)
