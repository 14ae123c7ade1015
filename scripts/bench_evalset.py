#!/usr/bin/env python3
"""Runs stressmon, NeuroKit2 (Elgendi) and HeartPy on every record of the evaluation set and scores them
(scripts/accuracy_score.py). Called by scripts/bench-accuracy; scripts/bench-gate uses score_records and the
runners; see docs/evaluation-set.md.

    bench_evalset.py --stressmon BIN --records DIR --peers DIR [--no-peers] [--json FILE] [--md FILE]

The peers run exactly as ../shared/peers/run_peers.py runs them (its load_record and DETECTORS: the signal is
negated for "inverted" records; NeuroKit2 = ppg_clean + ppg_findpeaks(method="elgendi"); HeartPy =
heartpy.process, every detected peak). Their beats are cached per record and CSV hash under DIR/../peers-cache,
so re-runs after a detector change only re-run stressmon. A peer that raises on a record counts as finding no
beats there (the table says on how many).
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import subprocess
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import accuracy_score as score  # noqa: E402

DETECTORS = [("stressmon", "stressmon"), ("nk_elgendi", "NeuroKit2"), ("heartpy", "HeartPy")]


def run_stressmon(binary, csv):
    out = subprocess.run([binary, "analyze", csv, "--json"], check=True, capture_output=True, text=True).stdout
    a = json.loads(out)
    windows = [{"start_s": w["start_s"], "end_s": w["end_s"], "shown": w["quality"] == "good",
                "sdnn_ms": w["sdnn_ms"], "rmssd_ms": w["rmssd_ms"]} for w in a["windows"]]
    h = a["hrv"]
    record_hrv = (h["sdnn_ms"], h["rmssd_ms"]) if h["sdnn_ms"] is not None else None
    return a["beat_times_s"], windows, record_hrv, None


def run_peer(run_peers, name, csv, fs, cache_dir):
    digest = hashlib.sha1(open(csv, "rb").read()).hexdigest()
    path = os.path.join(cache_dir, name, os.path.basename(csv)[:-4] + ".json")
    if os.path.exists(path):
        cached = json.load(open(path))
        if cached.get("sha1") == digest:
            return cached["beats_s"], cached.get("error")
    x, _, _ = run_peers.load_record(csv)
    beats, error = [], None
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            beats = [float(i) / fs for i in run_peers.DETECTORS[name](x, fs)]
    except Exception as e:  # peers may fail on bad signals; recorded, counted as no beats
        error = f"{type(e).__name__}: {str(e)[:120]}"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    json.dump({"sha1": digest, "beats_s": beats, "error": error}, open(path, "w"))
    return beats, error


def stressmon_runner(binary):
    """A runner for score_records: `binary analyze --json` on a record."""
    return lambda csv, sidecar: run_stressmon(binary, csv)


def peer_runner(run_peers, key, cache_dir):
    """A runner for score_records: the peer `key` of run_peers.DETECTORS, cached under cache_dir."""
    def run(csv, sidecar):
        beats, error = run_peer(run_peers, key, csv, sidecar["fs"], cache_dir)
        return beats, score.peer_windows(beats, sidecar["duration_s"]), score.peer_record_hrv(beats), error
    return run


def score_records(records, runners, label="bench-accuracy"):
    """Runs every runner (key -> run(csv, sidecar) giving beats, windows, record HRV, error) on every record of
    the folder `records` (index.json) and scores them: per key the list of score_record results (with the
    record's name and seed), the number of records each key raised on, and the figures per record."""
    index = json.load(open(os.path.join(records, "index.json")))["records"]
    scored = {key: [] for key in runners}
    failures = {}
    per_record = {}
    for i, entry in enumerate(index):
        name = entry["name"]
        csv = os.path.join(records, name + ".csv")
        sidecar = json.load(open(os.path.join(records, name + ".json")))
        print(f"{label}: [{i + 1}/{len(index)}] {name}", file=sys.stderr, flush=True)
        per_record[name] = {}
        for key, run in runners.items():
            beats, windows, record_hrv, error = run(csv, sidecar)
            if error:
                failures[key] = failures.get(key, 0) + 1
            result = score.score_record(sidecar, beats, windows, record_hrv)
            result["name"] = name
            result["seed"] = sidecar.get("seed")
            result["error"] = error
            scored[key].append(result)
            per_record[name][key] = {k: v for k, v in result.items() if k not in ("windows", "offsets_ms")}
    return scored, failures, per_record


def fmt(v, spec=".1f", none="–"):
    return none if v is None else format(v, spec)


def pct(v):
    return "–" if v is None else f"{100 * v:.0f} %"


def tables(summary, detectors, failures, below):
    names = [label for _, label in detectors]
    keys = [key for key, _ in detectors]
    out = ["### Beats: F1 (±150 ms) pooled over the records (lowest record), timing bias ± SD against the exact "
           "truth (ms)\n"]
    out.append("| condition | records | " + " | ".join(f"{n} F1" for n in names) + " | "
               + " | ".join(f"{n} bias ± SD" for n in names) + " |")
    out.append("|---|---|" + "---|" * (2 * len(names)))
    for group, row in summary.items():
        f1s = " | ".join(f"{fmt(row[k]['f1'], '.3f')} ({fmt(row[k]['min_f1'], '.3f')})" for k in keys)
        timing = " | ".join(f"{fmt(row[k]['bias_ms'])} ± {fmt(row[k]['sd_ms'])}" for k in keys)
        out.append(f"| {group} | {row[keys[0]]['records']} | {f1s} | {timing} |")
    out.append("\n### HRV in 60 s windows (every 10 s) the device would show: |error| against the truth's NN "
               "intervals in the same window, ms (median / 90th percentile). Whole records: median |error| over "
               "records; timing = the detector's own intervals over the detected true pairs against the truth, "
               "cleaning = the cleaned SDNN against those intervals\n")
    out.append("| condition | detector | shown | SDNN | RMSSD | SDNN within 10 % | clean shown (sinus) | "
               "noisy uncat. | lifted uncat. | AF uncat. | whole record SDNN / RMSSD | SDNN: timing / cleaning |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for group, row in summary.items():
        for k, n in detectors:
            s = row[k]
            out.append(
                f"| {group} | {n} | {s['shown']}/{s['windows']} | {fmt(s['sdnn_median'])} / {fmt(s['sdnn_p90'])} | "
                f"{fmt(s['rmssd_median'])} / {fmt(s['rmssd_p90'])} | {pct(s['sdnn_within10'])} | "
                f"{pct(s['clean_shown'])} ({pct(s['clean_shown_sinus'])}) | {pct(s['noisy_uncategorised'])} | "
                f"{pct(s['lifted_uncategorised'])} | {pct(s['irregular_uncategorised'])} | "
                f"{fmt(s['record_sdnn_median'])} / {fmt(s['record_rmssd_median'])} | "
                f"{fmt(s['pair_sdnn_median'], '.2f')} / {fmt(s['cleaning_sdnn_median'], '.2f')} |")
    notes = [f"{label} raised on {failures[key]} record(s) (scored as no beats)"
             for key, label in detectors if failures.get(key)]
    if below is not None:
        notes.append(f"stressmon F1 below NeuroKit2's − 0.005 on {len(below)} record(s)"
                     + (": " + ", ".join(below) if below else ""))
    out.append("\n" + "; ".join(notes) + ("." if notes else ""))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stressmon", required=True, help="the stressmon binary")
    ap.add_argument("--records", required=True, help="folder written by stressmon-evalset (index.json)")
    ap.add_argument("--peers", help="../shared/peers (run_peers.py)")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--json", help="write every figure here")
    ap.add_argument("--md", help="write the tables here")
    a = ap.parse_args()
    detectors = DETECTORS[:1] if a.no_peers else DETECTORS
    run_peers = None
    if not a.no_peers:
        sys.path.insert(0, a.peers)
        import run_peers  # noqa: F811 (the peers' own module: the same calls as their benchmark)
    cache = os.path.join(os.path.dirname(os.path.abspath(a.records)), "peers-cache")
    runners = {key: (stressmon_runner(a.stressmon) if key == "stressmon" else peer_runner(run_peers, key, cache))
               for key, _ in detectors}
    scored, failures, per_record = score_records(a.records, runners)

    conditions = list(dict.fromkeys(r["condition"] for r in scored["stressmon"]))
    groups = {c: (lambda r, c=c: r["condition"] == c) for c in conditions}
    groups["all"] = lambda r: True
    groups["all, ≥ 50 Hz"] = lambda r: r["rate_hz"] >= 50
    summary = {g: {k: score.summarise([r for r in scored[k] if keep(r)]) for k, _ in detectors}
               for g, keep in groups.items()}
    rates = sorted({r["rate_hz"] for r in scored["stressmon"]})
    by_rate = {f"{r:g} Hz": {k: score.summarise([x for x in scored[k] if x["rate_hz"] == r]) for k, _ in detectors}
               for r in rates}
    below = None
    if "nk_elgendi" in scored:
        nk = {r["name"]: r["f1"] for r in scored["nk_elgendi"]}
        below = [r["name"] for r in scored["stressmon"] if r["f1"] < nk[r["name"]] - 0.005]
    text = tables(summary, detectors, failures, below)
    text += "\n\n### F1 by sample rate (all conditions)\n\n| rate | " + " | ".join(n for _, n in detectors) + " |\n"
    text += "|---|" + "---|" * len(detectors) + "\n"
    text += "\n".join(f"| {rate} | " + " | ".join(fmt(row[k]["f1"], ".3f") for k, _ in detectors) + " |"
                      for rate, row in by_rate.items())
    if a.md:
        open(a.md, "w").write(text + "\n")
    result = {"summary": summary, "by_rate": by_rate, "records": per_record, "peer_failures": failures,
              "below_neurokit2": below}
    if a.json:
        json.dump(result, open(a.json, "w"), indent=1)
    print(text)


if __name__ == "__main__":
    main()
