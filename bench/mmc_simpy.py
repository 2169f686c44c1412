#!/usr/bin/env python3
"""The lab's benchmark M/M/c queue in SimPy 2 (Debian's python3-simpy).

Same model as BenchmarkLabMMc in sim/lab_bench_test.go: c servers, service
Exp(mean 1 s), Poisson arrivals at rho*c per second, run for the time in
which CUSTOMERS customers arrive on average. Prints the wall time per
departed customer, and the mean wait in queue against Erlang C as a check
that it is the same queue.

usage: mmc_simpy.py [CUSTOMERS] [C] [RHO] [SEED]
"""
import random
import sys
import time

from SimPy.Simulation import Process, Resource, Simulation, hold, release, request


def erlang_c_wait(c, lam, mu=1.0):
    a = lam / mu
    term, total = 1.0, 0.0
    for k in range(c):
        total += term
        term *= a / (k + 1)
    tail = term * c / (c - a)
    return tail / (total + tail) / (c * mu - lam)


class Stats:
    done = 0
    waited = 0.0


class Customer(Process):
    def visit(self, server, rng, stats):
        arrived = self.sim.now()
        yield request, self, server
        stats.waited += self.sim.now() - arrived
        yield hold, self, rng.expovariate(1.0)
        yield release, self, server
        stats.done += 1


class Arrivals(Process):
    def generate(self, server, lam, rng, stats):
        while True:
            c = Customer(sim=self.sim)
            self.sim.activate(c, c.visit(server, rng, stats))
            yield hold, self, rng.expovariate(lam)


def main():
    customers = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    c = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    rho = float(sys.argv[3]) if len(sys.argv) > 3 else 0.9
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    lam = rho * c
    rng = random.Random(seed)
    stats = Stats()
    sim = Simulation()
    sim.initialize()
    server = Resource(capacity=c, sim=sim)
    src = Arrivals(sim=sim)
    sim.activate(src, src.generate(server, lam, rng, stats))
    start = time.perf_counter()
    sim.simulate(until=customers / lam)
    wall = time.perf_counter() - start
    print("simpy M/M/%d rho=%g: %d customers in %.2f s: %.0f ns/customer, %.0f customers/s; "
          "mean wait %.4g s (Erlang C %.4g s)" % (
              c, rho, stats.done, wall, wall * 1e9 / stats.done, stats.done / wall,
              stats.waited / stats.done, erlang_c_wait(c, lam)))


if __name__ == "__main__":
    main()
