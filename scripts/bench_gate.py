#!/usr/bin/env python3
"""The accuracy gate: one or several stressmon builds and NeuroKit2 in one run, judged against a committed
baseline (benchmarks/accuracy-baseline.json). Called by scripts/bench-gate, which says what it measures.

    bench_gate.py --evalset-bin BIN --detector NAME=BIN [...] --peers DIR --out DIR --baseline FILE
                  [--profile full|quick] [--bidmc DIR] [--recordings DIR] [--json] [--update-baseline]
                  [--commit SHA]

Figures (keys as in the baseline):
- evalset/<condition or all>/<metric>: the evaluation set written for the profile's held-out seeds, every condition
  at every rate, scored by scripts/accuracy_score.py (bench_evalset.score_records): F1 pooled over the records, the
  beat timing's SD against the exact peaks (each record's offsets around their own mean, pooled), and over the
  60 s windows the device would show, median and 90th percentile of |SDNN error| and |RMSSD error| and the share
  with SDNN within 10 %, the share of windows shown, and the share of windows that should be shown or hidden that are (clean sinus windows
  shown; noisy, lifted and AF-like windows uncategorised). One unit of spread is one seed.
- bidmc/<rate>/<metric>: bidmc-dev at that rate (bench_bidmc.measure): F1 pooled over the records, median over
  records of |SDNN error| and |RMSSD error| against the ECG.
- pyphysio/<metric>: pyphysio_medical against its ECG (../shared/peers/score.py's score_record, the pulse-arrival
  lag removed): F1, |SDNN error| and |RMSSD error| of the detector's HRV (stressmon's `hrv`, NeuroKit2's beats
  through score.py's plain 20 % filter) against the ECG's.

Tolerance of an evaluation-set figure = max(floor, 2 × SD of the figure over the seeds / √seeds), measured on the
baseline's run and stored with it: twice the standard error the material alone gives the pooled figure. Floors:
F1 0.1 point, 0.1 ms, shares 1 point. The real recordings have no seeds and move only when the detector does:
fixed tolerances, F1 0.2 point on bidmc-dev (about 18 of its ~9000 beats per rate) and 0.5 point on pyphysio_medical
(about one of its 139), HRV 0.5 ms. Window HRV figures over fewer than 30 shown windows are shown, not judged.
Verdict per build and figure: REGRESSION when it is worse than the baseline by more than the tolerance; BELOW-NK2
when an F1 lies more than 0.5 point under NeuroKit2's in the same run; MISSING when the build has no value for a
figure the baseline judges (no shown window where the baseline had some); "better" past the tolerance the other
way; "ok" otherwise; "info" where no direction is better. Exit 1 on any REGRESSION, BELOW-NK2 or MISSING.
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import accuracy_score as score  # noqa: E402
import bench_evalset  # noqa: E402

PROFILES = {
    "full": {"first_seed": 2001, "seeds": 3, "duration_s": 300},
    "quick": {"first_seed": 2001, "seeds": 2, "duration_s": 120},
}
BIDMC_RATES = [125.0, 100.0, 50.0, 25.0]
NEUROKIT = "NeuroKit2"
NK_MARGIN = 0.005
# (metric in accuracy_score.summarise, better direction, kind)
EVAL_METRICS = [
    ("f1", "higher", "f1"), ("sd_ms", "lower", "ms"),
    ("sdnn_median", "lower", "ms"), ("sdnn_p90", "lower", "ms"),
    ("rmssd_median", "lower", "ms"), ("rmssd_p90", "lower", "ms"),
    ("shown_share", None, "share"), ("sdnn_within10", "higher", "share"),
    ("clean_shown_sinus", "higher", "share"), ("noisy_uncategorised", "higher", "share"),
    ("lifted_uncategorised", "higher", "share"), ("irregular_uncategorised", "higher", "share"),
]
FLOORS = {"f1": 0.001, "ms": 0.1, "share": 0.01}
# Fixed recordings have no seeds: their figures move only when the detector does, so a fixed tolerance.
FIXED_TOLERANCES = {"bidmc": {"f1": 0.002, "ms": 0.5}, "pyphysio": {"f1": 0.005, "ms": 0.5}}
# Window HRV figures over fewer shown windows than this (pooled) are shown, not judged: a handful of windows
# (the noisy and AF-like records, left uncategorised) gives a median that jumps with any one of them.
MIN_SHOWN_WINDOWS = 30
WINDOW_METRICS = ("sdnn_median", "sdnn_p90", "rmssd_median", "rmssd_p90", "sdnn_within10")
FAILING = ("REGRESSION", "BELOW-NK2", "MISSING")
BASELINE_ABOUT = ("The accuracy gate's baseline (scripts/bench-gate, docs/detector.md): per profile, every figure of "
                  "the build it was measured from, its tolerance, better direction, units of spread and NeuroKit2's "
                  "figure in the same run. Written by scripts/bench-gate --update-baseline [--quick].")


def progress(message):
    print(f"bench-gate: {message}", file=sys.stderr, flush=True)


def figure(value, units, better, kind):
    return {"value": value, "units": [u for u in units if u is not None], "better": better, "kind": kind}


def tolerance(key, fig):
    source = key.split("/", 1)[0]
    if source in FIXED_TOLERANCES:
        return FIXED_TOLERANCES[source][fig["kind"]]
    floor = FLOORS[fig["kind"]]
    units = fig["units"]
    if len(units) < 2:
        return floor
    return max(floor, 2 * statistics.stdev(units) / math.sqrt(len(units)))


# The evaluation set.

def write_evalset(evalset_bin, out, profile):
    """Writes the profile's records afresh (the generator may have changed since the last run) and returns their
    folder; NeuroKit2's beats stay cached by each record's hash."""
    folder = os.path.join(out, f"evalset-{profile['first_seed']}x{profile['seeds']}-{profile['duration_s']}s")
    progress(f"writing the evaluation set: seeds {profile['first_seed']}… ×{profile['seeds']}, "
             f"{profile['duration_s']} s per condition and rate")
    shutil.rmtree(folder, ignore_errors=True)
    subprocess.run([evalset_bin, "write", "--out", folder, "--seeds", str(profile["seeds"]),
                    "--first-seed", str(profile["first_seed"]), "--duration", str(profile["duration_s"])],
                   check=True, stdout=subprocess.DEVNULL)
    return folder


def summary_with_share(records):
    s = score.summarise(records)
    s["shown_share"] = s["shown"] / s["windows"] if s["windows"] else None
    return s


def evalset_figures(scored):
    seeds = sorted({r["seed"] for r in scored})
    conditions = list(dict.fromkeys(r["condition"] for r in scored)) + ["all"]
    figures = {}
    for condition in conditions:
        records = [r for r in scored if condition == "all" or r["condition"] == condition]
        pooled = summary_with_share(records)
        per_seed = [summary_with_share([r for r in records if r["seed"] == seed]) for seed in seeds]
        for metric, better, kind in EVAL_METRICS:
            if pooled[metric] is not None:
                units = [s[metric] for s in per_seed]
                if metric in WINDOW_METRICS and pooled["shown"] < MIN_SHOWN_WINDOWS:
                    better = None
                figures[f"evalset/{condition}/{metric}"] = figure(pooled[metric], units, better, kind)
    return figures


def measure_evalset(folder, builds, run_peers, out):
    runners = {name: bench_evalset.stressmon_runner(binary) for name, binary in builds}
    runners[NEUROKIT] = bench_evalset.peer_runner(run_peers, "nk_elgendi", os.path.join(out, "peers-cache"))
    scored, failures, _ = bench_evalset.score_records(folder, runners, label="bench-gate: evaluation set")
    if failures:
        progress("raised on some records (scored as no beats): " + ", ".join(f"{k} {n}" for k, n in failures.items()))
    return {name: evalset_figures(rows) for name, rows in scored.items()}


# bidmc-dev.

def measure_bidmc(data, builds, run_peers, out):
    import bench_bidmc
    names = bench_bidmc.record_names(data)
    detectors = list(builds) + [(NEUROKIT, None)]
    results = bench_bidmc.measure(data, os.path.join(out, "bidmc"), names, BIDMC_RATES, detectors, run_peers)
    figures = {name: {} for name, _ in detectors}
    for rate, per in results.items():
        label = rate.replace(" ", "")
        for name, rows in per.items():
            s = bench_bidmc.summarise(rows)
            figures[name][f"bidmc/{label}/f1"] = figure(s["f1"], [r["f1"] for r in rows], "higher", "f1")
            for metric, key in (("sdnn_error_ms", "sdnn_error_median_ms"), ("rmssd_error_ms", "rmssd_error_median_ms")):
                if s[key] is not None:
                    units = [abs(r[metric]) for r in rows if r[metric] is not None]
                    figures[name][f"bidmc/{label}/{metric}"] = figure(s[key], units, "lower", "ms")
    return figures


# pyphysio_medical.

def measure_pyphysio(recordings, builds, run_peers, out):
    import score as peers_score  # ../shared/peers/score.py: the same lag removal and matching as its benchmark
    csv = os.path.join(recordings, "pyphysio_medical.csv")
    meta = json.load(open(csv[:-4] + ".json"))
    fs = meta["fs"]
    figures = {}
    detections = {}
    for name, binary in builds:
        a = json.loads(subprocess.run([binary, "analyze", csv, "--json"], check=True, capture_output=True,
                                      text=True).stdout)
        detections[name] = ([t * fs for t in a["beat_times_s"]], (a["hrv"]["sdnn_ms"], a["hrv"]["rmssd_ms"]))
    beats, _ = bench_evalset.run_peer(run_peers, "nk_elgendi", csv, fs, os.path.join(out, "peers-cache"))
    detections[NEUROKIT] = ([t * fs for t in beats], None)
    for name, (det, hrv) in detections.items():
        s = peers_score.score_record(meta["beats"], det, fs, meta["reference"], n_samples=meta.get("n_samples"))
        if hrv is None:
            hrv = (s["sdnn_det_filt"], s["rmssd_det_filt"])
        figures[name] = {"pyphysio/f1": figure(s["f1"], [], "higher", "f1")}
        for metric, value, reference in (("sdnn_error_ms", hrv[0], s["sdnn_ref"]),
                                         ("rmssd_error_ms", hrv[1], s["rmssd_ref"])):
            if value is not None and not math.isnan(value):
                figures[name][f"pyphysio/{metric}"] = figure(abs(value - reference), [], "lower", "ms")
    return figures


# Judging and printing.

def judge(value, base, nk):
    if base is None:
        return "new"
    if base["better"] is None:
        return "info"
    if base["kind"] == "f1" and nk is not None and value < nk - NK_MARGIN:
        return "BELOW-NK2"
    gain = value - base["value"] if base["better"] == "higher" else base["value"] - value
    if gain < -base["tolerance"]:
        return "REGRESSION"
    return "better" if gain > base["tolerance"] else "ok"


def show(value, kind):
    if value is None:
        return "–"
    if kind == "f1":
        return f"{100 * value:.2f} %"
    if kind == "share":
        return f"{100 * value:.1f} %"
    return f"{value:.2f} ms"


def show_tolerance(value, kind):
    if kind == "ms":
        return f"±{value:.2f} ms"
    return f"±{100 * value:.2f} pt"


def table(keys, builds, measured, baseline, verdicts):
    names = [name for name, _ in builds]
    lines = ["| figure | baseline | tolerance | NeuroKit2 | " + " | ".join(f"{n} | verdict" for n in names) + " |",
             "|---|---|---|---|" + "---|---|" * len(names)]
    for key in keys:
        base = baseline.get(key)
        kind = base["kind"] if base else next(measured[n][key]["kind"] for n in names + [NEUROKIT] if key in measured[n])
        nk = measured[NEUROKIT].get(key, {}).get("value")
        cells = []
        for n in names:
            fig = measured[n].get(key)
            verdict = verdicts[n].get(key) or "–"
            cells.append(f"{show(fig and fig['value'], kind)} | {verdict}")
        lines.append(f"| {key} | {show(base and base['value'], kind)} | "
                     f"{show_tolerance(base['tolerance'], kind) if base else '–'} | {show(nk, kind)} | "
                     + " | ".join(cells) + " |")
    return lines


def baseline_text(stored):
    """The baseline as JSON with one line per figure, so that an update reads as a diff of the figures it moved."""
    def compact(value):
        return json.dumps(value, ensure_ascii=False)

    lines = ["{", f' "about": {compact(BASELINE_ABOUT)},', ' "profiles": {']
    profiles = sorted(stored["profiles"].items())
    for i, (name, profile) in enumerate(profiles):
        lines.append(f"  {compact(name)}: {{")
        lines.append(f'   "measured": {compact(profile["measured"])},')
        lines.append(f'   "evalset": {compact(profile["evalset"])},')
        lines.append('   "figures": {')
        figures = sorted(profile["figures"].items())
        for j, (key, fig) in enumerate(figures):
            lines.append(f"    {compact(key)}: {compact(fig)}" + ("," if j + 1 < len(figures) else ""))
        lines.append("   }")
        lines.append("  }" + ("," if i + 1 < len(profiles) else ""))
    lines += [" }", "}", ""]
    return "\n".join(lines)


def machine():
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.node()}: {platform.machine()}, {os.cpu_count()} cores, {cpu}, load {os.getloadavg()[0]:.1f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--evalset-bin", required=True, help="stressmon-evalset, to write the evaluation set")
    ap.add_argument("--detector", action="append", required=True, metavar="NAME=BIN")
    ap.add_argument("--peers", required=True, help="../shared/peers (run_peers.py, score.py)")
    ap.add_argument("--out", required=True, help="folder for records and NeuroKit2's cached beats")
    ap.add_argument("--baseline", required=True)
    ap.add_argument("--profile", choices=sorted(PROFILES), default="full")
    ap.add_argument("--bidmc", help="the bidmc-dev folder (skipped when absent)")
    ap.add_argument("--recordings", help="the shared recordings folder holding pyphysio_medical.csv")
    ap.add_argument("--json", action="store_true", help="print every figure and verdict as JSON on stdout")
    ap.add_argument("--update-baseline", action="store_true")
    ap.add_argument("--commit", default="unknown", help="the git commit of the first build (for the baseline)")
    a = ap.parse_args()
    started = time.monotonic()
    builds = []
    for d in a.detector:
        name, sep, binary = d.partition("=")
        if not sep or not name or not os.access(binary, os.X_OK):
            sys.exit(f"bench-gate: --detector '{d}' is not NAME=an executable stressmon: give NAME=path/to/stressmon")
        if name == NEUROKIT or name in (n for n, _ in builds):
            sys.exit(f"bench-gate: the detector name '{name}' is taken: give each build its own name")
        builds.append((name, os.path.abspath(binary)))
    profile = PROFILES[a.profile]
    sys.path.insert(0, a.peers)
    import run_peers  # the peers' own module: NeuroKit2 exactly as their benchmark runs it

    measured = {name: {} for name in [n for n, _ in builds] + [NEUROKIT]}
    skipped = []
    sections = []

    def add(figures, title, source):
        keys = []
        for name, figs in figures.items():
            measured[name].update(figs)
            keys += [k for k in figs if k not in keys]
        sections.append((title, source, keys))

    folder = write_evalset(a.evalset_bin, os.path.join(a.out, "records"), profile)
    seeds = f"{profile['first_seed']}–{profile['first_seed'] + profile['seeds'] - 1}"
    add(measure_evalset(folder, builds, run_peers, a.out),
        f"Evaluation set: held-out seeds {seeds}, {profile['duration_s']} s per condition at 25–400 Hz", "evalset")
    if a.bidmc and os.path.isdir(a.bidmc):
        progress("bidmc-dev at 125, 100, 50 and 25 Hz")
        add(measure_bidmc(a.bidmc, builds, run_peers, a.out), "bidmc-dev against the ECG", "bidmc")
    else:
        skipped.append(f"bidmc-dev skipped: no folder at '{a.bidmc}' (it comes only with ../shared/data)")
    if a.recordings and os.path.exists(os.path.join(a.recordings, "pyphysio_medical.csv")):
        progress("pyphysio_medical")
        add(measure_pyphysio(a.recordings, builds, run_peers, a.out), "pyphysio_medical against its ECG", "pyphysio")
    else:
        skipped.append(f"pyphysio_medical skipped: not in '{a.recordings}' (scripts/fetch-data makes it)")

    stored = json.load(open(a.baseline)) if os.path.exists(a.baseline) else {"profiles": {}}
    if a.update_baseline:
        first = builds[0][0]
        stored["profiles"][a.profile] = {
            "measured": {"build": first, "commit": a.commit, "date": datetime.datetime.now(datetime.timezone.utc)
                         .strftime("%Y-%m-%dT%H:%M:%SZ"), "machine": machine()},
            "evalset": dict(profile, rates_hz=[25, 50, 100, 200, 400]),
            "figures": {key: {"value": fig["value"], "tolerance": tolerance(key, fig),
                              "better": fig["better"], "kind": fig["kind"], "units": len(fig["units"]),
                              "spread_sd": statistics.stdev(fig["units"]) if len(fig["units"]) > 1 else None,
                              "neurokit2": measured[NEUROKIT].get(key, {}).get("value")}
                        for key, fig in sorted(measured[first].items())},
        }
        with open(a.baseline + ".tmp", "w") as f:
            f.write(baseline_text(stored))
        os.replace(a.baseline + ".tmp", a.baseline)
        progress(f"wrote the {a.profile} baseline from '{first}' into {a.baseline}")
    baseline = stored["profiles"].get(a.profile, {}).get("figures", {})
    if not baseline:
        skipped.append(f"no {a.profile} baseline in {a.baseline}: every figure is 'new' (--update-baseline writes it)")

    # A figure the baseline judges that a build no longer has (no window shown where some were) is MISSING.
    for _, source, keys in sections:
        keys += [k for k in sorted(baseline) if k.startswith(source + "/") and k not in keys]
    verdicts = {name: {} for name, _ in builds}
    for name, _ in builds:
        for _, _, keys in sections:
            for key in keys:
                fig, base = measured[name].get(key), baseline.get(key)
                if fig is not None:
                    verdicts[name][key] = judge(fig["value"], base, measured[NEUROKIT].get(key, {}).get("value"))
                elif base is not None and base["better"] is not None:
                    verdicts[name][key] = "MISSING"
    failing = {name: sorted(k for k, v in per.items() if v in FAILING) for name, per in verdicts.items()}
    elapsed = time.monotonic() - started
    if a.json:
        keys = [k for _, _, ks in sections for k in ks]
        print(json.dumps({
            "profile": a.profile, "passed": not any(failing.values()), "elapsed_s": round(elapsed, 1),
            "builds": dict(builds), "skipped": skipped, "failing": failing,
            "figures": {k: {"baseline": baseline.get(k), "neurokit2": measured[NEUROKIT].get(k, {}).get("value"),
                            "values": {n: measured[n].get(k, {}).get("value") for n, _ in builds},
                            "verdicts": {n: verdicts[n].get(k) for n, _ in builds}} for k in keys},
        }, indent=1, ensure_ascii=False))
    else:
        for title, _, keys in sections:
            print(f"\n### {title}\n")
            print("\n".join(table(keys, builds, measured, baseline, verdicts)))
        print()
        for line in skipped:
            print(line)
        for name, keys in failing.items():
            listed = ", ".join(keys[:12]) + (f" and {len(keys) - 12} more" if len(keys) > 12 else "")
            print(f"{name}: " + (f"FAILS the gate on {len(keys)} figure(s): {listed}" if keys else "passes the gate"))
    progress(f"done in {elapsed:.0f} s")
    sys.exit(1 if any(failing.values()) else 0)


if __name__ == "__main__":
    main()
