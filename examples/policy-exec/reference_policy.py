#!/usr/bin/python3
"""The lab's two built-in policies over the policy protocol, in Python.

    reference_policy.py [fixed-lane|scheduler]

A reference client of the policy protocol (docs/reference/policy-protocol.md)
using only the standard library. It runs the fixed-lane baseline or the
production scheduler (the slowstart controller, then weighted tiers, project
turns, oldest first) as policies/ describes them, on the settings the
handshake carries (settings.fixed_lane, settings.scheduler); the policy may
also be named by the handshake's config, {"policy": "scheduler"}.

It replicates the Go code decision for decision: the same float64
operations in the same order, Go's math functions where they differ from
libm (gomath.py), Go's rounding, and the same order wherever an order
decides (the fixed lanes sorted by name, tier credits, the ring of projects
with its reused slots). Run on the lab's scenarios it gives byte-identical
summary.json to the in-process policies. Only the slowstart controller is
implemented; another is refused at the handshake.
"""

import bisect
import heapq
import json
import os
import sys
from collections import deque

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gomath import go_exp2, go_pow, go_round  # noqa: E402

PROTOCOL = 1
DEFAULT_TIER = 3
MAX_TIER = 127
RPM, TPM, RPD, TPD = range(4)


# ---------------------------------------------------------------- fixed lanes

class FixedLane:
    name = "fixed-lane"

    def __init__(self, cfg, models):
        lanes = cfg.get("lanes") or {}
        names = sorted(lanes)  # Go: slices.Sorted(maps.Keys(...)), byte order
        index = {n: i for i, n in enumerate(names)}
        self.caps = [lanes[n] for n in names]
        self.caps.append(cfg["global_cap"] - sum(self.caps))
        shared = len(names)
        self.lane_of = [index.get(m, shared) for m in models]
        self.running = [0] * len(self.caps)
        self.queues = [deque() for _ in self.caps]
        self.limits = [self.caps[lane] for lane in self.lane_of]

    def trigger(self):
        return {"tick": 0, "on_event": True}

    def targets(self):
        return None

    def enqueue(self, t, job):
        self.queues[self.lane_of[job["model"]]].append(job["id"])

    def finished(self, t, jid, model):
        self.running[self.lane_of[model]] -= 1

    def decide(self, msg):
        free = msg["free"]
        start = []
        for lane, q in enumerate(self.queues):
            cap = self.caps[lane]
            while q and self.running[lane] < cap and free > 0:
                start.append(q.popleft())
                self.running[lane] += 1
                free -= 1
        return start, self.limits


# ------------------------------------------------------------------ scheduler

SLOW_MAX_LOOKBACK = 16
SLOW_GAIN = 0.05
QUOTA_PROBE_ABOVE = 1.0 / 3
MINUTE = 60 * 10**9


class TickRing:
    __slots__ = ("v", "n")

    def __init__(self):
        self.v = [0] * SLOW_MAX_LOOKBACK
        self.n = 0

    def record(self, x):
        self.v[self.n % SLOW_MAX_LOOKBACK] = x
        self.n += 1

    def ago(self, k):
        k = min(k, self.n - 1, SLOW_MAX_LOOKBACK - 1)
        return self.v[(self.n - 1 - k) % SLOW_MAX_LOOKBACK]

    def mean(self, k):
        k = min(k, self.n, SLOW_MAX_LOOKBACK)
        s = 0
        for i in range(k):
            s += self.v[(self.n - 1 - i) % SLOW_MAX_LOOKBACK]
        return float(s) / float(k)


class RateHold:
    __slots__ = ("half_life", "rate", "at")

    def __init__(self, half_life):
        self.half_life = half_life
        self.rate = [0.0] * 4
        self.at = None

    def read(self, d, now, cur):
        held = self.rate[d]
        if self.at is not None and now > self.at:
            held *= go_exp2(-float(now - self.at) / float(self.half_life))
        self.rate[d] = max(cur, held)
        return self.rate[d]


class Model:
    """A model's limit state (limitState) and admission counters."""
    __slots__ = ("limit", "target", "min_l", "max_l", "depth", "have_ewma", "last_as_of",
                 "fl", "hist", "empty", "lat_as_of", "seen429", "rej_ticks", "ran", "hold",
                 "running", "free", "waiting", "open", "open_pos")

    def __init__(self, lim):
        self.limit = lim["initial_limit"]
        self.target = float(lim["target_depth"])
        self.min_l = lim["min_limit"]
        self.max_l = lim["max_limit"]
        self.depth = 0.0
        self.have_ewma = False
        self.last_as_of = None
        self.fl = float(self.limit)
        self.hist = TickRing()
        self.empty = 0
        self.lat_as_of = None
        self.seen429 = 0
        self.rej_ticks = 0
        self.ran = TickRing()
        self.hold = None
        self.running = 0
        self.free = 0
        self.waiting = 0
        self.open = False
        self.open_pos = 0


class Signals:
    __slots__ = ("now", "depth", "running", "minute_running", "binding", "model", "quota", "hold",
                 "quota_probe")


class Tier:
    __slots__ = ("tier", "ring", "free_slot", "cursor", "slots", "lanes", "open_n", "waiting",
                 "credit")

    def __init__(self, tier, n):
        self.tier = tier
        self.ring = []
        self.free_slot = []
        self.cursor = 0
        self.slots = [[] for _ in range(n)]  # per model: ring positions of projects with jobs on it, sorted
        self.lanes = [0] * n
        self.open_n = 0
        self.waiting = 0
        self.credit = 0.0


class Project:
    __slots__ = ("key", "tier", "lanes", "slot", "waiting")


def for_model(cfg, name):
    o = (cfg.get("models") or {}).get(name, {})
    r = {"target_depth": cfg["target_depth"], "min_limit": cfg["min_limit"], "max_limit": cfg["max_limit"]}
    for k in ("target_depth", "min_limit", "max_limit"):
        if o.get(k, 0) != 0:
            r[k] = o[k]
    if o.get("initial_limit", 0) != 0:
        r["initial_limit"] = o["initial_limit"]
    else:
        r["initial_limit"] = min(max(cfg["initial_limit"], r["min_limit"]), r["max_limit"])
    return r


class Scheduler:
    name = "scheduler"

    def __init__(self, cfg, models):
        kind = cfg.get("controller") or "slowstart"
        if kind != "slowstart":
            raise ValueError("controller %r: the reference implements slowstart only" % kind)
        self.cfg = cfg
        self.tick_ns = cfg["tick"]
        self.stale_after = cfg["stale_after"]
        self.step = cfg["step"]
        self.factor = float(cfg["factor"])
        self.mult = cfg["step_mode"] == "multiplicative"
        self.tolerance = float(cfg["depth_tolerance"])
        self.use_quota = not cfg.get("ignore_quota", False)
        self.lower_after = cfg["reject_lower_after"]
        tick, dead = cfg["tick"], cfg.get("dead_time", 0)
        self.lookback = 1 if tick <= 0 else min(max(1, int(go_round(float(dead) / float(tick)))), SLOW_MAX_LOOKBACK - 1)
        self.minute = 1 if tick <= 0 else min(max(1, (MINUTE + tick - 1) // tick), SLOW_MAX_LOOKBACK)
        self.quota_probe = 1.0
        qdt = cfg.get("quota_dead_time", 0)
        if qdt > 0 and tick > 0:
            self.quota_probe = go_pow(self.factor, float(tick) / float(qdt))
        self.probe = go_pow(self.factor, 1 / float(self.lookback))
        sm = float(cfg.get("smoothing", 0))
        self.smoothing = sm if 0 < sm < 1 else 0.0
        self.models = []
        for name in models:
            m = Model(for_model(cfg, name))
            if cfg.get("job_rate_hold", 0) > 0:
                m.hold = RateHold(cfg["job_rate_hold"])
            self.models.append(m)
        self.limits = [m.limit for m in self.models]
        self.share = float(cfg["tier_share"])
        self.rest = [go_pow(1 - self.share, float(i)) for i in range(MAX_TIER + 2)]
        self.open_list = []
        self.tiers = {}
        self.active = []
        self.projects = {}
        self.waiting = 0

    def trigger(self):
        return {"tick": self.tick_ns, "on_event": False}

    def targets(self):
        return [m.target for m in self.models]

    def finished(self, t, jid, model):
        pass

    # -- the waiting-job index

    def enqueue(self, t, job):
        tiers = job["tiers"]
        # The highest priority (smallest tier) any level sets: pinning an
        # account raises everything under it (policies.Job.EffectiveTier).
        tier = min([x for x in tiers if x > 0], default=DEFAULT_TIER)
        if tier < 1:
            tier = DEFAULT_TIER
        rec = (job["arrival"], job["id"], job["model"])
        self.link(rec, tier, job["account"], job["project"])

    def link(self, rec, tier, account, project):
        model = rec[2]
        t = self.tiers.get(tier)
        if t is None:
            t = Tier(tier, len(self.models))
            self.tiers[tier] = t
        if t.waiting == 0:
            bisect.insort(self.active, t, key=lambda x: x.tier)
        key = (tier, account, project)
        p = self.projects.get(key)
        if p is None:
            p = Project()
            p.key, p.tier, p.lanes, p.waiting = key, t, {}, 0
            if t.free_slot:
                p.slot = t.free_slot.pop()
                t.ring[p.slot] = p
            else:
                p.slot = len(t.ring)
                t.ring.append(p)
            self.projects[key] = p
        h = p.lanes.get(model)
        if h is None:
            h = []
            p.lanes[model] = h
            bisect.insort(t.slots[model], p.slot)
            t.lanes[model] += 1
            if t.lanes[model] == 1 and self.models[model].open:
                t.open_n += 1
        heapq.heappush(h, rec)
        t.waiting += 1
        p.waiting += 1
        self.models[model].waiting += 1
        self.waiting += 1

    def release_oldest(self, p, model):
        """Takes the oldest job of p's lane on model out of the index."""
        h = p.lanes[model]
        rec = heapq.heappop(h)
        t = p.tier
        t.waiting -= 1
        p.waiting -= 1
        self.models[model].waiting -= 1
        self.waiting -= 1
        if not h:
            del p.lanes[model]
            s = t.slots[model]
            del s[bisect.bisect_left(s, p.slot)]
            t.lanes[model] -= 1
            if t.lanes[model] == 0 and self.models[model].open:
                t.open_n -= 1
        if p.waiting == 0:
            del self.projects[p.key]
            t.ring[p.slot] = None
            t.free_slot.append(p.slot)
        if t.waiting == 0:
            t.credit = 0.0
            self.active.remove(t)
        return rec

    # -- one tick

    def decide(self, msg):
        containers = msg["free"]
        self.control(msg, containers)
        return self.admit(containers), self.limits

    def control(self, msg, containers):
        now = msg["t"]
        running = msg["running"]
        fillable = 0
        for i, m in enumerate(self.models):
            m.running = running[i]
            fillable += min(m.waiting, max(m.limit - m.running, 0))
        spare = containers > fillable
        q = msg.get("quota")
        lat = msg.get("latency")
        quota = q is not None and self.use_quota
        depth, depth_at = msg["depth"], msg["depth_at"]
        for i, m in enumerate(self.models):
            m.ran.record(m.running)
            s = Signals()
            s.now, s.running, s.model = now, m.running, i
            s.binding = spare and m.waiting > max(m.limit - m.running, 0)
            s.minute_running = m.ran.mean(self.minute)
            s.quota_probe = self.quota_probe
            s.hold = m.hold
            s.quota = q if quota else None
            if lat is not None:  # readSignals: slowstart reads neither, but the state moves on
                at = lat["at"][i]
                if at is not None and (m.lat_as_of is None or at > m.lat_as_of) and lat["seconds"][i] > 0:
                    m.lat_as_of = at
                m.seen429 = lat["throttled"][i]
            if quota and self.rejected(m, q["rejections"][i], m.running):
                self.limits[i] = m.limit
                continue
            self.tick(m, depth[i], depth_at[i], s)
            self.limits[i] = m.limit

    def rejected(self, m, rejected, running):
        if rejected == 0:
            m.rej_ticks = 0
            return False
        m.rej_ticks += 1
        if m.rej_ticks >= self.lower_after and m.limit >= running and rejected > 1:
            m.limit = self.lower(m.limit, m.min_l)
            m.fl = float(m.limit)
        return True

    def lower(self, l, lo):
        n = l - self.step
        if self.mult:
            n = min(int(go_round(float(l) / self.factor)), l - 1)
        return max(n, lo)

    def tick(self, m, depth, as_of, s):
        if as_of is None or s.now - as_of > self.stale_after:
            return
        d = float(depth)
        if self.smoothing > 0:
            if not m.have_ewma:
                m.have_ewma = True
                m.last_as_of = as_of
            elif as_of > m.last_as_of:
                d = self.smoothing * d + (1 - self.smoothing) * m.depth
                m.last_as_of = as_of
            else:
                d = m.depth
        m.depth = d
        s.depth = d
        want, direction = self.slow_start_step(m, s)
        self.apply(m, want, direction, s)

    def slow_start_step(self, m, s):
        l = float(m.limit)
        m.hist.record(m.limit)
        back = m.hist.ago(self.lookback)
        t, d = m.target, s.depth
        if d < 1:
            m.empty += 1
            u = SLOW_GAIN * t * go_exp2(float(m.empty) / float(self.lookback))
            return m.fl + min(max(u, 1.0), max(l * self.probe, l + 1) - l), 1
        probed = m.empty >= self.lookback
        m.empty = 0
        if probed and d > t + self.tolerance and float(back) < l:
            return float(back), -1
        e = t - d
        if d > t and d <= t + self.tolerance:
            e = 0.0
        most = (self.factor - 1) * l
        u = min(max(SLOW_GAIN * e, -most), most)
        return m.fl + u, (1 if u > 0 else -1 if u < 0 else 0)

    def apply(self, m, want, direction, s):
        l = m.limit
        if direction > 0 and not s.binding:
            m.fl = float(l)
            return
        if direction < 0 and l < s.running:
            m.fl = float(l)
            return
        if direction == 0:
            return
        m.fl = min(max(want, float(m.min_l)), float(m.max_l))
        n = l
        if abs(m.fl - float(l)) >= 1 or m.fl == float(m.min_l) or m.fl == float(m.max_l):
            n = int(go_round(m.fl))
        if n > l:
            capped, room = self.room_to_raise(s, l, n)
            if not room:
                m.fl = float(l)
                return
            if capped < n:
                n, m.fl = capped, float(capped)
        m.limit = n

    def room_to_raise(self, s, l, n):
        if s.quota is None or n <= s.running:
            return n, True
        q = s.quota
        i = s.model
        use_all = q["use"][i]
        if s.quota_probe > 1 and max(use_all) >= QUOTA_PROBE_ABOVE:
            n = min(n, int(go_round(max(float(l) * s.quota_probe, float(l) + 1))))
        if q["below_share"][i]:
            return n, True
        room = True
        own_all = q["model_use"][i]
        for d in range(4):
            use, own = use_all[d], own_all[d]
            if d == RPM or d == TPM:
                cur = own / max(s.minute_running, 1.0)
                per_job = s.hold.read(d, s.now, cur) if s.hold is not None else cur
            else:
                per_job = own / max(float(s.running), 1.0)
            room = room and not (use > 0 and use - own + float(n) * per_job >= 1)
        if s.hold is not None:
            s.hold.at = s.now
        return n, room

    # -- admission

    def admit(self, containers):
        start = []
        self.open_models()
        while containers > 0:
            t = self.pick_tier()
            if t is None:
                break
            p = self.pick_project(t)
            t.cursor = p.slot + 1
            model = self.oldest_open(p)
            rec = self.release_oldest(p, model)
            start.append(rec[1])
            m = self.models[model]
            m.free -= 1
            if m.free == 0 or m.waiting == 0:
                self.close_model(model)
            containers -= 1
        return start

    def open_models(self):
        for i in self.open_list:
            self.models[i].open = False
        ol = []
        for i, m in enumerate(self.models):
            m.free = max(m.limit - m.running, 0)
            if m.free > 0 and m.waiting > 0:
                m.open = True
                m.open_pos = len(ol)
                ol.append(i)
        self.open_list = ol
        for t in self.active:
            lanes = t.lanes
            t.open_n = sum(1 for i in ol if lanes[i] > 0)

    def close_model(self, i):
        m = self.models[i]
        if not m.open:
            return
        m.open = False
        ol = self.open_list
        pos, last = m.open_pos, len(ol) - 1
        moved = ol[last]
        ol[pos] = moved
        self.models[moved].open_pos = pos
        ol.pop()
        for t in self.active:
            if t.lanes[i] > 0:
                t.open_n -= 1

    def pick_tier(self):
        elig = [t for t in self.active if t.open_n > 0]
        if not elig:
            return None
        if len(elig) == 1:
            return elig[0]
        best = None
        last = len(elig) - 1
        for i, t in enumerate(elig):
            w = self.rest[i]
            if i < last:
                w *= self.share
            t.credit += w
            if best is None or t.credit > best.credit:
                best = t
        best.credit -= 1
        for t in elig:
            t.credit = min(max(t.credit, -2.0), 2.0)
        return best

    def pick_project(self, t):
        c, n = t.cursor, len(t.ring)
        if c >= n:
            c = 0
        best, best_dist = -1, n + 1
        for i in self.open_list:
            if t.lanes[i] == 0:
                continue
            slots = t.slots[i]
            j = bisect.bisect_left(slots, c)
            if j < len(slots):
                k = slots[j]
                d = k - c
            else:
                k = slots[0]
                d = k + n - c
            if d < best_dist:
                best, best_dist = k, d
                if d == 0:
                    break
        return t.ring[best]

    def oldest_open(self, p):
        best, model = None, -1
        for mi, h in p.lanes.items():
            if not self.models[mi].open:
                continue
            if best is None or h[0] < best:
                best, model = h[0], mi
        return model


# ------------------------------------------------------------------ protocol

def main():
    out = sys.stdout
    inp = sys.stdin.buffer
    first = inp.readline()
    if not first:
        return 0
    hello = json.loads(first)
    if hello.get("type") != "hello" or hello.get("protocol") != PROTOCOL:
        print("reference_policy: want a hello of protocol %d, got %r" % (PROTOCOL, first[:200]), file=sys.stderr)
        return 2
    which = sys.argv[1] if len(sys.argv) > 1 else (hello.get("config") or {}).get("policy", "scheduler")
    settings = hello.get("settings") or {}
    try:
        if which == "fixed-lane":
            pol = FixedLane(settings["fixed_lane"], hello["models"])
        elif which == "scheduler":
            pol = Scheduler(settings["scheduler"], hello["models"])
        else:
            raise ValueError("no policy %r (have fixed-lane, scheduler)" % which)
    except (KeyError, ValueError) as e:
        out.write(json.dumps({"type": "error", "message": "reference_policy: %s" % e}) + "\n")
        out.flush()
        return 2
    reply = {"type": "hello", "protocol": PROTOCOL, "name": pol.name, "trigger": pol.trigger()}
    if pol.targets() is not None:
        reply["targets"] = pol.targets()
    out.write(json.dumps(reply, separators=(",", ":")) + "\n")
    out.flush()
    loads = json.loads
    enqueue, finished, decide = pol.enqueue, pol.finished, pol.decide
    for line in inp:
        msg = loads(line)
        kind = msg["type"]
        if kind == "enqueue":
            enqueue(msg["t"], msg["job"])
        elif kind == "finished":
            finished(msg["t"], msg["id"], msg["model"])
        elif kind == "decide":
            start, limits = decide(msg)
            out.write('{"type":"plan","seq":%d,"start":%s,"limits":%s}\n' % (
                msg["seq"], json.dumps(start, separators=(",", ":")), json.dumps(limits, separators=(",", ":"))))
            out.flush()
        else:
            print("reference_policy: unknown message type %r" % kind, file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
