#!/usr/bin/env python3
"""bidmc-dev at 125, 100, 50 and 25 Hz: F1 and HRV against the ECG, for stressmon builds and NeuroKit2 in one run.

    bench_bidmc.py --data DIR --out DIR [--detector NAME=BIN ...] [--rates 125,100,50,25] [--records 01,04,...]
                   [--no-peers] [--peers DIR] [--json FILE] [--md FILE]

The records (../shared/data/bidmc-dev, its README): 17 ICU finger PPGs, 8 min at 125 Hz, `polarity: normal`, with
the ECG's R-peaks shifted by each record's pulse-arrival lag as the reference (`beat_times_s`), the span to score
(`score_window_s`), the spans where the ECG itself is uncertain (`artefact_intervals_s`, widened by the sidecar's
`scoring.guard_s` on both sides) and the ECG's HRV (`sdnn_ms`, `rmssd_ms`: the ECG's RR intervals within 20 % of the
median of the 11 around them and 300-2000 ms).

Resampling (the other rates). Each 125 Hz record is resampled with scipy.signal.resample_poly(x, up, down,
padtype="line"): up/down is the rate over 125 in lowest terms (100 Hz: 4/5, 50 Hz: 2/5, 25 Hz: 1/5). That is a
zero-phase polyphase FIR (Kaiser window, beta 5) whose cut-off is the new Nyquist rate: what a sensor that averages
internally before it hands out fewer samples gives, without the phase shift of a causal filter (the reference is
in seconds, so no time moves). Samples are written with five decimals (the source's resolution). The files go to
OUT/records/<rate>hz/ with a sidecar whose `fs` and `beats` are the new rate's; `beat_times_s` is unchanged.

Scoring, per record and rate:
- Beats: one-to-one matching of every reference beat with every detection, closest pairs first, within +-150 ms
  (scripts/accuracy_score.py's `match`, as ../shared/peers/score.py); then a pair counts when its reference beat lies
  inside the score window and outside the excluded spans, and a detection left over is false when it lies there.
  F1 = 2TP / (2TP + FP + FN), pooled over records by summing TP, FP and FN.
- HRV: stressmon's own figures (`analyze --json`: `hrv.sdnn_ms`, `hrv.rmssd_ms`, the clean intervals of the whole
  record); NeuroKit2's beats through score.py's plain clean-up (kept within 20 % of the median of the 11 around it
  and 300-2000 ms; SDNN of the kept intervals, RMSSD of adjacent kept pairs), the ECG's own definition. |error|
  against the ECG's, median over records. `filtered` gives the same clean-up applied to stressmon's beats: the
  detector's timing alone, without its interval cleaner.

NeuroKit2 runs exactly as ../shared/peers/run_peers.py runs it (ppg_clean + ppg_findpeaks, Elgendi); its beats are
cached under OUT/peers-cache by CSV hash. Every figure goes to --json; the tables to stdout and --md.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import math
import os
import statistics
import subprocess
import sys
import warnings
from fractions import Fraction

import numpy as np
from scipy.signal import resample_poly

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import accuracy_score as score  # noqa: E402

SOURCE_RATE = 125.0


def progress(message):
    print(f"bench-bidmc: {message}", file=sys.stderr, flush=True)


def resampled(data, out, name, rate):
    """Writes (once) and returns the CSV path of record `name` at `rate`, and its sidecar."""
    folder = os.path.join(out, "records", f"{rate:g}hz")
    csv = os.path.join(folder, name + ".csv")
    sidecar = json.load(open(os.path.join(data, name + ".json")))
    if rate == SOURCE_RATE:
        return os.path.join(data, name + ".csv"), sidecar
    ratio = Fraction(rate / SOURCE_RATE).limit_denominator(1000)
    meta = dict(sidecar)
    meta["fs"] = rate
    meta["beats"] = [int(round(t * rate)) for t in sidecar["beat_times_s"]]
    meta.pop("ecg_rpeaks", None)
    meta["resampled"] = (f"scipy.signal.resample_poly(x, {ratio.numerator}, {ratio.denominator}, padtype='line') "
                         f"of the {SOURCE_RATE:g} Hz record (scripts/bench_bidmc.py)")
    if not os.path.exists(csv):
        os.makedirs(folder, exist_ok=True)
        x = np.loadtxt(os.path.join(data, name + ".csv"), skiprows=1, dtype=float)
        y = resample_poly(x, ratio.numerator, ratio.denominator, padtype="line")
        meta["n_samples"] = len(y)
        with open(csv + ".tmp", "w") as f:
            f.write("ppg\n")
            f.write("\n".join(f"{v:.5f}" for v in y))
            f.write("\n")
        json.dump(meta, open(csv[:-4] + ".json", "w"))
        os.replace(csv + ".tmp", csv)
    return csv, json.load(open(csv[:-4] + ".json"))


def excluded_spans(sidecar):
    guard = sidecar.get("scoring", {}).get("guard_s", 0.5)
    start, end = sidecar["score_window_s"]
    spans = [(a - guard, b + guard) for a, b in sidecar["artefact_intervals_s"]]
    return [(-math.inf, start)] + spans + [(end, math.inf)]


def score_beats(sidecar, detected_s):
    spans = excluded_spans(sidecar)
    times = sidecar["beat_times_s"]
    det = sorted(detected_s)
    pairs = score.match(times, det, score.TOLERANCE_S)
    counted = {i for i, t in enumerate(times) if not score.in_spans(t, spans)}
    tp = sum(1 for i, _ in pairs if i in counted)
    used = {j for _, j in pairs}
    fp = sum(1 for j, t in enumerate(det) if j not in used and not score.in_spans(t, spans))
    missed = [round(times[i], 3) for i in sorted(counted - {i for i, _ in pairs})]
    false = [round(t, 3) for j, t in enumerate(det) if j not in used and not score.in_spans(t, spans)]
    offsets = [(det[j] - times[i]) * 1000 for i, j in pairs if i in counted]
    return {"tp": tp, "fp": fp, "fn": len(counted) - tp, "missed_s": missed, "false_s": false,
            "bias_ms": statistics.fmean(offsets) if offsets else None}


def filtered_hrv(times_s, frac=0.2, half=5):
    """score.py's sdnn_rmssd_filtered on beat times in seconds: (SDNN, RMSSD) in ms, None when too few."""
    if len(times_s) < 4:
        return None, None
    rr = np.diff(np.asarray(times_s, float)) * 1000.0
    keep = np.zeros(len(rr), bool)
    for i in range(len(rr)):
        med = np.median(rr[max(0, i - half): i + half + 1])
        keep[i] = abs(rr[i] - med) <= frac * med and 300 <= rr[i] <= 2000
    kept = rr[keep]
    sdnn = float(np.std(kept, ddof=1)) if len(kept) > 2 else None
    sd = [rr[i + 1] - rr[i] for i in range(len(rr) - 1) if keep[i] and keep[i + 1]]
    rmssd = float(np.sqrt(np.mean(np.square(sd)))) if sd else None
    return sdnn, rmssd


def run_stressmon(binary, csv, rate):
    out = subprocess.run([binary, "analyze", csv, "--json", "--rate", f"{rate:g}", "--polarity", "normal"], check=True,
                         capture_output=True, text=True).stdout
    a = json.loads(out)
    h = a["hrv"]
    return a["beat_times_s"], (h["sdnn_ms"], h["rmssd_ms"])


def run_neurokit(run_peers, csv, fs, cache):
    digest = hashlib.sha1(open(csv, "rb").read()).hexdigest()
    path = os.path.join(cache, f"{fs:g}hz", os.path.basename(csv)[:-4] + ".json")
    if os.path.exists(path):
        cached = json.load(open(path))
        if cached.get("sha1") == digest:
            return cached["beats_s"]
    x = np.loadtxt(csv, skiprows=1, dtype=float)
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            beats = [float(i) / fs for i in run_peers.DETECTORS["nk_elgendi"](x, fs)]
    except Exception:  # a peer that raises finds no beats there
        beats = []
    os.makedirs(os.path.dirname(path), exist_ok=True)
    json.dump({"sha1": digest, "beats_s": beats}, open(path, "w"))
    return beats


def summarise(records):
    tp = sum(r["tp"] for r in records)
    fp = sum(r["fp"] for r in records)
    fn = sum(r["fn"] for r in records)

    def median_abs(key):
        errors = [abs(r[key]) for r in records if r[key] is not None]
        return statistics.median(errors) if errors else None

    return {"records": len(records), "tp": tp, "fp": fp, "fn": fn, "f1": score.f1(tp, fp, fn),
            "min_f1": min(r["f1"] for r in records),
            "sdnn_error_median_ms": median_abs("sdnn_error_ms"), "rmssd_error_median_ms": median_abs("rmssd_error_ms"),
            "filtered_sdnn_error_median_ms": median_abs("filtered_sdnn_error_ms"),
            "filtered_rmssd_error_median_ms": median_abs("filtered_rmssd_error_ms")}


def difference(value, reference):
    return None if value is None or reference is None else value - reference


def record_names(data, records=None):
    """The bidmc-dev records in `data` (bidmc_01, ...), or only the numbers in `records` ("01,04")."""
    names = sorted(f[:-4] for f in os.listdir(data) if f.endswith(".csv"))
    if records:
        wanted = {f"bidmc_{n.strip()}" for n in records.split(",")}
        names = [n for n in names if n in wanted]
    return names


def measure(data, out, names, rates, detectors, run_peers):
    """Every record of `names` at every rate through every detector ((name, binary), binary None for NeuroKit2
    through run_peers): per rate label ("125 Hz") and detector name the list of per-record scores."""
    results = {}
    total = len(rates) * len(names)
    done = 0
    for rate in rates:
        key = f"{rate:g} Hz"
        results[key] = {name: [] for name, _ in detectors}
        for record in names:
            done += 1
            progress(f"[{done}/{total}] {record} at {rate:g} Hz")
            csv, sidecar = resampled(data, out, record, rate)
            for name, binary in detectors:
                if binary is None:
                    beats = run_neurokit(run_peers, csv, rate, os.path.join(out, "peers-cache"))
                    hrv = filtered_hrv(beats)
                else:
                    beats, hrv = run_stressmon(binary, csv, rate)
                filtered = filtered_hrv(beats)
                entry = score_beats(sidecar, beats)
                entry.update({
                    "record": record, "f1": score.f1(entry["tp"], entry["fp"], entry["fn"]),
                    "sdnn_ms": hrv[0], "rmssd_ms": hrv[1],
                    "sdnn_error_ms": difference(hrv[0], sidecar["sdnn_ms"]),
                    "rmssd_error_ms": difference(hrv[1], sidecar["rmssd_ms"]),
                    "filtered_sdnn_error_ms": difference(filtered[0], sidecar["sdnn_ms"]),
                    "filtered_rmssd_error_ms": difference(filtered[1], sidecar["rmssd_ms"]),
                })
                results[key][name].append(entry)
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True, help="the bidmc-dev folder (../shared/data/bidmc-dev)")
    ap.add_argument("--out", required=True, help="folder for the resampled records and the peers' cache")
    ap.add_argument("--detector", action="append", default=[], metavar="NAME=BIN",
                    help="a stressmon binary to run, under NAME (repeat to compare builds)")
    ap.add_argument("--rates", default="125,100,50,25")
    ap.add_argument("--records", help="only these record numbers (comma-separated, e.g. 01,04)")
    ap.add_argument("--peers", help="../shared/peers (run_peers.py)")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--json", help="write every figure here")
    ap.add_argument("--md", help="write the tables here")
    a = ap.parse_args()
    names = record_names(a.data, a.records)
    if not names:
        sys.exit(f"bench-bidmc: no records in '{a.data}': give the bidmc-dev folder (--data)")
    rates = [float(r) for r in a.rates.split(",")]
    detectors = [tuple(d.split("=", 1)) for d in a.detector]
    run_peers = None
    if not a.no_peers:
        sys.path.insert(0, a.peers)
        import run_peers  # noqa: F811 (the peers' own module: the same calls as their benchmark)
        detectors.append(("NeuroKit2", None))
    results = measure(a.data, a.out, names, rates, detectors, run_peers)
    summary = {rate: {name: summarise(rows) for name, rows in per.items()} for rate, per in results.items()}
    lines = ["### bidmc-dev against the ECG: F1 pooled (lowest record); HRV median |error| over records, ms "
             "(SDNN / RMSSD; in brackets the detector's beats through the plain 20 % filter)\n",
             "| rate | " + " | ".join(f"{n} F1" for n, _ in detectors) + " | "
             + " | ".join(f"{n} SDNN / RMSSD" for n, _ in detectors) + " |",
             "|---|" + "---|" * (2 * len(detectors))]

    def ms(v):
        return "–" if v is None else f"{v:.1f}"

    for rate, per in summary.items():
        f1s = " | ".join(f"{100 * per[n]['f1']:.2f} % ({100 * per[n]['min_f1']:.1f})" for n, _ in detectors)
        hrv = " | ".join(f"{ms(per[n]['sdnn_error_median_ms'])} / {ms(per[n]['rmssd_error_median_ms'])} "
                         f"({ms(per[n]['filtered_sdnn_error_median_ms'])} / "
                         f"{ms(per[n]['filtered_rmssd_error_median_ms'])})" for n, _ in detectors)
        lines.append(f"| {rate} | {f1s} | {hrv} |")
    lines.append("\n### Per record: TP / FP / FN (F1 %)\n")
    lines.append("| record | rate | " + " | ".join(n for n, _ in detectors) + " |")
    lines.append("|---|---|" + "---|" * len(detectors))
    for rate, per in results.items():
        for i, record in enumerate(names):
            cells = " | ".join(f"{per[n][i]['tp']} / {per[n][i]['fp']} / {per[n][i]['fn']} "
                               f"({100 * per[n][i]['f1']:.1f})" for n, _ in detectors)
            lines.append(f"| {record} | {rate} | {cells} |")
    text = "\n".join(lines)
    if a.md:
        open(a.md, "w").write(text + "\n")
    if a.json:
        json.dump({"summary": summary, "records": results}, open(a.json, "w"), indent=1)
    print(text)


if __name__ == "__main__":
    main()
