#!/usr/bin/python3
"""A policy that fails on purpose, one way per mode (cli/exec_test.go).

    fake_policy.py MODE [N]

Every mode shakes hands as a tick policy starting nothing, until its
failure: nohello (exits before the handshake), exit (exits with status 3 at
decide N), late (sleeps at decide N), malformed (answers decide N with a
line that is not JSON), notwaiting (starts a job it was never given),
badlimit (one limit too many), stderr (writes two lines to stderr and
behaves).
"""

import json
import sys
import time

mode = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 3
hello = json.loads(sys.stdin.readline())
models = len(hello["models"])
if mode == "nohello":
    sys.exit(4)
if mode == "stderr":
    print("fake policy: starting", file=sys.stderr)
    print("fake policy: second line", file=sys.stderr, flush=True)
print(json.dumps({"type": "hello", "protocol": 1, "name": "fake-" + mode,
                  "trigger": {"tick": 10 * 10**9, "on_event": False}}), flush=True)
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] != "decide":
        continue
    seq = msg["seq"]
    plan = {"type": "plan", "seq": seq, "start": [], "limits": None}
    if seq == n:
        if mode == "exit":
            sys.exit(3)
        if mode == "late":
            time.sleep(30)
        if mode == "malformed":
            print('{"type": "plan", "seq": ', flush=True)
            continue
        if mode == "notwaiting":
            plan["start"] = [987654321]
        if mode == "badlimit":
            plan["limits"] = [5] * (models + 1)
    print(json.dumps(plan), flush=True)
