#!/usr/bin/env python3
"""The old system's calibration, lane by lane (run it through
examples/calibrate-old-system.sh; docs/studies/README.md).

Targets, from the source (000, the engineering post): "我们的 p90 轨迹有 82%
的时间在等待算力容器，18% 在运行；打分阶段则是 75% 等待、25% 运行" ("our p90
trajectory spent 82% of its time waiting for compute containers and 18%
running; grading 75% waiting and 25% running"). The figure is each lane's
p90_container_wait_share under fixed-lane (docs/reference/metrics.md);
each of the six hot lanes is held to 0.82 and (grading) to 0.75, the mean
over seeds within TOL.

Free inputs (the source states none of them):
- stage 1: each hot lane's share of the batches, d_i (written as
  workload.models.hot_weights = d_i and hot_share = sum d_i, so that a
  lane's demand does not move when another lane's does). Each lane is
  bisected on log d_i between a share below and a share above its target,
  all six at once (the lanes have caps of their own, so one lane's demand
  hardly moves another's share). The mean over the search seeds must come
  within SEARCH_TOL; hot_share must stay within 0.5-0.95 (the source: the
  hot models "took most of the system's traffic").
- stage 2: the judge's lane cap (an integer), the cap whose grading share
  is nearest 0.75 over the search seeds.
The calls per trajectory (turns.min) are not searched: with every lane's
demand free, a lane's share follows its demand times its calls, so six
shares cannot tell the two apart; the scenario's value is kept.

Only fixed-lane runs: no scheduler run and no multiplier is ever read.
The final check runs the written scenario over CHECK seeds (the study's)
and exits 1 when a lane's mean is off its target by more than TOL.

    calibrate-old-system.py SIM SCENARIO.yaml [--write] [--check-only]
        [--search-seeds 80] [--check-seeds 80] [--rounds 10] [--caps 4,...,9]
"""
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HOT_TARGET, GRADING_TARGET = 0.82, 0.75
TOL, SEARCH_TOL = 0.03, 0.02
HOT_SHARE_RANGE = (0.5, 0.95)
JUDGE = "judge-1"


def hot_lanes(text):
    m = re.search(r"^\s*hot: \[(.*)\]", text, re.M)
    return [s.strip() for s in m.group(1).split(",")]


def with_inputs(text, demand=None, judge_cap=None):
    """The scenario text with the lane demands and the judge's cap set."""
    if demand is not None:
        total = sum(demand)
        text, n1 = re.subn(r"(?m)^(\s*hot_share:) [0-9.]+", r"\g<1> %.4g" % total, text)
        ws = ", ".join("%.4g" % d for d in demand)
        text, n2 = re.subn(r"(?m)^(\s*hot_weights:) \[.*\]", r"\g<1> [%s]" % ws, text)
        if n1 != 1 or n2 != 1:
            sys.exit("calibrate: hot_share or hot_weights not found once in the scenario")
    if judge_cap is not None:
        text, n = re.subn(r"(?m)^(\s*%s:) \d+\s*$" % re.escape(JUDGE), r"\g<1> %d" % judge_cap, text)
        if n != 1:
            sys.exit("calibrate: the %s lane cap not found once in the scenario" % JUDGE)
    return text


def demands(text, lanes):
    share = float(re.search(r"(?m)^\s*hot_share: ([0-9.]+)", text).group(1))
    ws = [float(x) for x in re.search(r"(?m)^\s*hot_weights: \[(.*)\]", text).group(1).split(",")]
    return [share * w / sum(ws) for w in ws]


class Runner:
    def __init__(self, sim, workdir, jobs):
        self.sim, self.dir, self.jobs, self.n, self.runs = sim, workdir, jobs, 0, 0

    def shares(self, text, seeds):
        """Per lane, the p90 container-wait share of each seed's fixed-lane run."""
        self.n += 1
        path = os.path.join(self.dir, "scenario-%d.yaml" % self.n)
        with open(path, "w") as f:
            f.write(text)

        def one(seed):
            out = os.path.join(self.dir, "run-%d-%d" % (self.n, seed))
            cmd = self.sim + ["run", "--policy", "fixed-lane", "--scenario", path,
                              "--seed", str(seed), "--json", "--out", out]
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode != 0:
                sys.exit("calibrate: %s: %s" % (" ".join(cmd), p.stderr.strip()))
            run = json.loads(p.stdout)["runs"][0]
            s = {l["model"]: l["p90_container_wait_share"] for l in run["lanes"]}
            s["(grading)"] = run["grading"]["p90_container_wait_share"]
            return s

        with ThreadPoolExecutor(self.jobs) as ex:
            rows = list(ex.map(one, seeds))
        self.runs += len(seeds)
        return {k: [r[k] for r in rows] for k in rows[0] if all(k in r for r in rows)}


def mean(v):
    return statistics.fmean(v)


def stage1(run, text, lanes, seeds, rounds):
    d = demands(text, lanes)
    lo = [None] * len(lanes)  # (demand, share) with share below target
    hi = [None] * len(lanes)
    for r in range(rounds):
        s = run.shares(with_inputs(text, d), seeds)
        m = [mean(s[l]) for l in lanes]
        print("stage 1 round %d: hot_share %.3f" % (r + 1, sum(d)))
        for l, di, mi in zip(lanes, d, m):
            print("  %-18s demand %.4f  share %.3f" % (l, di, mi))
        if all(abs(mi - HOT_TARGET) <= SEARCH_TOL for mi in m):
            return d, True
        for i, mi in enumerate(m):
            if abs(mi - HOT_TARGET) <= SEARCH_TOL:
                continue
            if mi < HOT_TARGET:
                lo[i] = (d[i], mi)
                if hi[i] and hi[i][0] <= d[i]:
                    hi[i] = None  # the seeds' noise inverted the bracket: keep the newer end
            else:
                hi[i] = (d[i], mi)
                if lo[i] and lo[i][0] >= d[i]:
                    lo[i] = None
            if lo[i] and hi[i]:
                # the secant on log demand, kept inside the bracket
                (a, fa), (b, fb) = lo[i], hi[i]
                t = (HOT_TARGET - fa) / (fb - fa)
                t = min(max(t, 0.2), 0.8)
                d[i] = math.exp(math.log(a) + t * (math.log(b) - math.log(a)))
            else:
                d[i] *= 1.3 if mi < HOT_TARGET else 1 / 1.3
    return d, False


def stage2(run, text, seeds, caps):
    best = None
    for c in caps:
        g = mean(run.shares(with_inputs(text, judge_cap=c), seeds)["(grading)"])
        print("stage 2: %s cap %d  grading share %.3f" % (JUDGE, c, g))
        if best is None or abs(g - GRADING_TARGET) < abs(best[1] - GRADING_TARGET):
            best = (c, g)
    return best[0]


def check(run, text, lanes, seeds):
    s = run.shares(text, seeds)
    bad = []
    print("check over seeds %d-%d (mean, min-max), target within %.0f points:" % (seeds[0], seeds[-1], 100 * TOL))
    for l, want in [(l, HOT_TARGET) for l in lanes] + [("(grading)", GRADING_TARGET)]:
        m = mean(s[l])
        ok = abs(m - want) <= TOL
        print("  %-18s %.3f (%.2f-%.2f)  target %.2f  %s" % (l, m, min(s[l]), max(s[l]), want, "ok" if ok else "OUT"))
        if not ok:
            bad.append(l)
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sim", help="the sim command (split on spaces)")
    ap.add_argument("scenario", help="scenario YAML file, rewritten in place with --write")
    ap.add_argument("--write", action="store_true", help="write the calibrated inputs into the scenario")
    ap.add_argument("--check-only", action="store_true", help="only the final check")
    ap.add_argument("--search-seeds", type=int, default=80)
    ap.add_argument("--check-seeds", type=int, default=80, help="0: no check")
    ap.add_argument("--check-first", type=int, default=1,
                    help="the check's first seed (past the search seeds for a held-out check)")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--caps", default="4,5,6,7,8,9")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    text = open(a.scenario).read()
    lanes = hot_lanes(text)
    with tempfile.TemporaryDirectory(prefix="calibrate-") as tmp:
        run = Runner(a.sim.split(), tmp, a.jobs)
        search = list(range(1, a.search_seeds + 1))
        if not a.check_only:
            d, met = stage1(run, text, lanes, search, a.rounds)
            if not met:
                print("stage 1: not every lane within %.1f points after %d rounds" % (100 * SEARCH_TOL, a.rounds))
            if not HOT_SHARE_RANGE[0] <= sum(d) <= HOT_SHARE_RANGE[1]:
                print("stage 1: hot_share %.3f outside %.2f-%.2f" % ((sum(d),) + HOT_SHARE_RANGE))
            text = with_inputs(text, d)
            cap = stage2(run, text, search, [int(c) for c in a.caps.split(",")])
            text = with_inputs(text, judge_cap=cap)
            print("calibrated: hot_share %.4g, hot_weights [%s], %s cap %d" % (
                sum(d), ", ".join("%.4g" % x for x in d), JUDGE, cap))
            if a.write:
                with open(a.scenario, "w") as f:
                    f.write(text)
                print("written into", a.scenario)
        bad = check(run, text, lanes, list(range(a.check_first, a.check_first + a.check_seeds))) if a.check_seeds > 0 else []
        print("%d fixed-lane runs" % run.runs)
    if bad:
        print("calibration check failed: %s off target by more than %.0f points" % (", ".join(bad), 100 * TOL))
        sys.exit(1)


if __name__ == "__main__":
    main()
