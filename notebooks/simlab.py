"""Shared setup for the design-review notebooks: find the repository, run
the sim CLI, and read an output directory (summary.json, series.csv,
batches.csv) into pandas. Imported by every notebook in this folder."""
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pandas as pd
import matplotlib.pyplot as plt

OLD_COLOR, NEW_COLOR = "#E69F00", "#0072B2"   # the report's colours: baseline orange, scheduler blue
POLICY_COLOR = {"fixed-lane": OLD_COLOR, "scheduler": NEW_COLOR}


def find_root(start=None):
    start = Path(start or Path.cwd()).resolve()
    for d in [start, *start.parents]:
        if (d / "go.mod").exists() and (d / "cmd" / "sim").is_dir():
            return d
    raise RuntimeError("run this notebook from inside the evalsched repository (no go.mod with cmd/sim above %s)" % start)


ROOT = find_root()
SIM = [os.environ["SIM_BIN"]] if os.environ.get("SIM_BIN") else [shutil.which("go") or "/usr/local/go/bin/go", "run", "./cmd/sim"]
OUT = Path(os.environ.get("NOTEBOOK_OUT") or tempfile.mkdtemp(prefix="evalsched-nb-"))
OUT.mkdir(parents=True, exist_ok=True)

pd.set_option("display.width", 160)
pd.set_option("display.max_columns", 24)
plt.rcParams.update({"figure.dpi": 100, "axes.grid": True, "grid.alpha": 0.3})


def sim(*args, timeout=600):
    """Runs the sim CLI from the repo root and returns its stdout; raises with stderr on failure."""
    p = subprocess.run([*SIM, *map(str, args)], cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError("sim %s failed (exit %d):\n%s" % (" ".join(map(str, args)), p.returncode, p.stderr))
    return p.stdout


class Outputs:
    """An output directory of sim run/compare, as tidy frames."""

    def __init__(self, d):
        self.dir = Path(d)
        self.summary = json.loads((self.dir / "summary.json").read_text())
        self.series = pd.read_csv(self.dir / "series.csv")
        b = self.dir / "batches.csv"
        self.batches = pd.read_csv(b) if b.exists() else pd.DataFrame()

    def production(self):
        """runs[].production as one row per (policy, stream)."""
        rows = [dict(policy=r["policy"], **p) for r in self.summary["runs"] for p in r.get("production") or []]
        return pd.DataFrame(rows)

    def lanes(self):
        """runs[].lanes flattened: one row per (policy, model)."""
        rows = []
        for r in self.summary["runs"]:
            for l in r["lanes"]:
                rows.append({"policy": r["policy"], **{k: v for k, v in l.items() if not isinstance(v, dict)},
                             "p90_job_s": l["job_time_s"]["total"]["p90"]})
        return pd.DataFrame(rows)


def compare(name, *args):
    """sim compare ARGS into OUT/name (reused if already there); returns Outputs."""
    d = OUT / name
    if not (d / "summary.json").exists():
        sim("compare", *args, "--out", d)
    return Outputs(d)
