#!/usr/bin/env python3
"""The measurements behind scripts/bench (run it through that script: it builds and provides the venv).

Inputs: long recordings made by repeating real ones end to end (pyphysio_medical at 2048 Hz, where the
detector decimates, and heartpy_data3 at 100 Hz, where every sample runs the whole chain), each with a
sidecar giving its rate. Every timing is the median of several runs on this machine, now; peers and
stressmon run on the same files in the same run.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_recordings import ir_red_recording, repeat_recording  # noqa: E402

warnings.filterwarnings("ignore")

TARGET_END_TO_END = 20e6
TARGET_RATIO_NK = 10.0
TARGET_INSTRUCTIONS = 150.0
DESIGN_LOW_HZ = 25  # the lowest rate the detector is designed and evaluated for (the evaluation set's lowest)


def make_input(data: str, work: str, name: str, copies: int) -> tuple[str, float, int]:
    """`copies` repetitions of a shared recording as one CSV with a sidecar; returns path, fs, samples."""
    return repeat_recording(data, work, name, copies, f"x{copies}")


def median_time(run, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def stressmon_end_to_end(binary: str, path: str, repeats: int) -> float:
    def run():
        subprocess.run([binary, "analyze", path, "--json"], check=True, stdout=subprocess.DEVNULL)
    run()  # warm the page cache
    return median_time(run, repeats)


def stressmon_detector(binary: str, path: str, runs: int) -> float:
    out = subprocess.run([binary, "analyze", path, "--benchmark-detector", str(runs)], check=True,
                         capture_output=True, text=True).stdout
    return float(json.loads(out)["samples_per_s"])


def load(path: str, polarity: str) -> np.ndarray:
    import pandas as pd

    x = pd.read_csv(path).iloc[:, 0].to_numpy(dtype=float)
    return -x if polarity == "inverted" else x


def neurokit_elgendi(x: np.ndarray, fs: float, repeats: int) -> float:
    """The detector call only, as run_peers.py times it."""
    import neurokit2 as nk

    def run():
        clean = nk.ppg_clean(x, sampling_rate=fs)
        nk.ppg_findpeaks(clean, sampling_rate=fs, method="elgendi")
    run()
    return median_time(run, repeats)


def neurokit_end_to_end(path: str, fs: float, polarity: str, repeats: int) -> float:
    """CSV to beats, like `stressmon analyze`: pandas' C parser (the fastest a Python user has) + the detector."""
    import neurokit2 as nk
    import pandas as pd

    def run():
        frame = pd.read_csv(path)
        x = frame["ppg" if "ppg" in frame else "ir"].to_numpy(dtype=float)
        if polarity == "inverted":
            x = -x
        clean = nk.ppg_clean(x, sampling_rate=fs)
        nk.ppg_findpeaks(clean, sampling_rate=fs, method="elgendi")
    run()
    return median_time(run, repeats)


def heartpy_process(x: np.ndarray, fs: float, repeats: int) -> float | None:
    import heartpy as hp

    def run():
        hp.process(x, sample_rate=fs)
    try:
        hp.process(x[: int(fs * 30)], sample_rate=fs)  # warm-up, as run_peers.py warms up
        return median_time(run, repeats)
    except Exception as error:  # HeartPy refuses some signals; report it rather than fail the bench
        print(f"bench: HeartPy failed: {type(error).__name__}: {str(error)[:80]}", file=sys.stderr)
        return None


def stressmon_in_process(binary: str, path: str, repeats: int) -> float:
    """`analyze --json --timing`: seconds from opening the file to the end of the output, without the process
    start (a few ms that would dominate the short recordings)."""
    times = []
    for _ in range(repeats + 1):
        run = subprocess.run([binary, "analyze", path, "--json", "--timing"], check=True, capture_output=True, text=True)
        line = run.stderr.strip().splitlines()[-1]
        times.append(json.loads(line.split(": ", 1)[1])["seconds"])
    return statistics.median(times[1:])


def recordings_table(binary: str, data: str) -> tuple[list[float], list[float]]:
    """Each shared recording as run_peers.py runs the peers (the detector call alone, loading excluded), against
    our whole analysis (parsing included) and against our detector alone. Returns both ratios to NeuroKit2."""
    print("Each shared recording (as run_peers.py times the peers: the detector call only; 'stressmon analyze'")
    print("includes parsing the CSV, the whole analysis and the JSON, but not the process start; 'stressmon")
    print("detector' is the like-for-like figure, samples already in memory):")
    print()
    print("| recording | fs Hz | samples | stressmon analyze | stressmon detector | NeuroKit2 Elgendi | analyze ratio "
          "| detector ratio | HeartPy | analyze / HeartPy |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    ratios = []
    detector_ratios = []
    for name in sorted(f[:-4] for f in os.listdir(data) if f.endswith(".csv")):
        path = os.path.join(data, name + ".csv")
        meta = json.load(open(path[:-4] + ".json"))
        fs = float(meta["fs"])
        x = load(path, meta.get("polarity", "normal"))
        samples = len(x)
        ours = samples / stressmon_in_process(binary, path, 5)
        detector = stressmon_detector(binary, path, 20)
        nk = samples / neurokit_elgendi(x, fs, 5)
        hp_time = heartpy_process(x, fs, 1)
        hp = samples / hp_time if hp_time else None
        ratios.append(ours / nk)
        detector_ratios.append(detector / nk)
        print(f"| {name} | {fs:g} | {samples} | {ours / 1e6:.1f} M/s | {detector / 1e6:.0f} M/s | {nk / 1e6:.2f} M/s | "
              f"{ours / nk:.1f}x | {detector / nk:.1f}x | {'fails' if hp is None else f'{hp / 1e6:.3f} M/s'} | "
              f"{'-' if hp is None else f'{ours / hp:.0f}x'} |")
    print()
    return ratios, detector_ratios


def instructions_per_sample(binary: str, data: str, work: str, names: list[str]) -> dict[str, tuple[float, int, float]]:
    """valgrind callgrind counts the instructions inside the detector loop only (--toggle-collect on
    HotLoopBenchmark.timedDetection). Valgrind 3.19 cannot read the DWARF 5 of Swift 6 binaries, so a copy
    without debug sections is measured (same code)."""
    if not shutil.which("valgrind"):
        print("bench: valgrind not found (scripts/setup installs it); skipping instructions per sample", file=sys.stderr)
        return {}
    stripped = os.path.join(work, "stressmon-nodebug")
    subprocess.run(["objcopy", "--strip-debug", binary, stripped], check=True)
    result = {}
    for name in names:
        out_file = os.path.join(work, f"callgrind.{name}.out")
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}", "--toggle-collect=*timedDetection*",
             stripped, "analyze", os.path.join(data, name + ".csv"), "--benchmark-detector", "1"],
            check=True, capture_output=True, text=True)
        samples = json.loads(run.stdout)["samples"]
        totals = next(int(line.split()[1]) for line in open(out_file) if line.startswith("totals:"))
        fs = json.load(open(os.path.join(data, name + ".json")))["fs"]
        result[name] = (fs, samples, totals / samples)
    return result


def latency(binary: str, data: str) -> tuple[float, str]:
    worst, where = 0.0, ""
    for name in sorted(f[:-4] for f in os.listdir(data) if f.endswith(".csv")):
        out = subprocess.run([binary, "analyze", os.path.join(data, name + ".csv"), "--json"], check=True,
                             capture_output=True, text=True).stdout
        value = json.loads(out)["latency_ms_max"]
        if value > worst:
            worst, where = value, name
    return worst, where


def side_by_side(baseline: str, binary: str, path: str, fs: float, polarity: str, samples: int, rounds: int) -> None:
    """`analyze` end to end of two builds and pandas + NeuroKit2 on the same file, interleaved round by round so that
    each round's load falls on all three alike; the medians of the rounds, with the load around them."""
    runs = {"baseline": [], "this build": [], "NeuroKit2": []}
    load_before = os.getloadavg()[0]
    for _ in range(rounds):
        runs["baseline"].append(samples / stressmon_end_to_end(baseline, path, 3))
        runs["this build"].append(samples / stressmon_end_to_end(binary, path, 3))
        runs["NeuroKit2"].append(samples / neurokit_end_to_end(path, fs, polarity, 1))
    nk = statistics.median(runs["NeuroKit2"])
    print(f"  side by side, medians of {rounds} rounds (load average {load_before:.2f} before, "
          f"{os.getloadavg()[0]:.2f} after): " + ", ".join(
              f"{name} {statistics.median(v) / 1e6:.1f} M/s" + ("" if name == "NeuroKit2" else
                                                               f" ({statistics.median(v) / nk:.1f}x)")
              for name, v in runs.items()))


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--baseline", help="another build's stressmon (e.g. main's): its analyze throughput on the ir,red "
                    "input beside this one's and NeuroKit2's, interleaved in the same rounds")
    ap.add_argument("--throughput-only", action="store_true", help="only the ir,red input's analyze throughput")
    a = ap.parse_args()
    # The repeated recordings and callgrind's files go here; a fresh machine has no such folder yet.
    os.makedirs(a.work, exist_ok=True)
    inputs = [("pyphysio_medical", 4 if a.quick else 20), ("heartpy_data3", 12 if a.quick else 60),
              ("ir,red", 2 if a.quick else 24)]
    if a.throughput_only:
        inputs = inputs[-1:]
    failures = 0
    print("stressmon bench (this machine, now; medians)")
    print(f"cpu: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    def version():
        subprocess.run([a.binary, "--version"], check=True, stdout=subprocess.DEVNULL)
    version()  # the first run after a build reads the binary from disk
    print(f"process start (stressmon --version, median of 10): {median_time(version, 10) * 1000:.1f} ms")
    print()
    print("Long inputs (real recordings repeated). Samples per second. 'end to end' = CSV file to beats/HRV/windows")
    print("(stressmon: process start, parsing on a second thread, analysis, JSON; NeuroKit2: pandas.read_csv +")
    print("ppg_clean + ppg_findpeaks). 'detector' = samples already in memory (NeuroKit2 and HeartPy timed as")
    print("run_peers.py times them). Ratios compare like with like. Targets: end to end >= 20 M/s, detector >= 10x.")
    print()
    print("| input | fs Hz | samples | stressmon end to end | NeuroKit2 end to end | ratio | stressmon detector | "
          "NeuroKit2 detector | ratio | HeartPy detector | stressmon e2e / HeartPy |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, copies in inputs:
        if name == "ir,red":
            # The sensor's own two-column format, a day of it at 100 Hz (`copies` hours): the throughput target's input.
            path, fs, samples = ir_red_recording(a.data, a.work, copies)
            name, copies = "ir,red", f"{copies} h"
        else:
            path, fs, samples = make_input(a.data, a.work, name, copies)
        polarity = json.load(open(path[:-4] + ".json"))["polarity"]
        ours = samples / stressmon_end_to_end(a.binary, path, 5)
        detector = stressmon_detector(a.binary, path, 5)
        x = load(path, polarity)
        nk = samples / neurokit_elgendi(x, fs, 3)
        nk_e2e = samples / neurokit_end_to_end(path, fs, polarity, 3)
        # HeartPy slows down more than linearly on long inputs (10 minutes for 4 M samples at 100 Hz): it gets
        # the first 10 minutes of the same input, which flatters it.
        hp_time = heartpy_process(x[: int(fs * 600)], fs, 1)
        hp = min(samples, int(fs * 600)) / hp_time if hp_time else None
        label = f"{name} {copies}" if isinstance(copies, str) else f"{name} x{copies}"
        print(f"| {label} | {fs:g} | {samples} | {ours / 1e6:.1f} M/s | {nk_e2e / 1e6:.2f} M/s | "
              f"{ours / nk_e2e:.1f}x | {detector / 1e6:.0f} M/s | {nk / 1e6:.2f} M/s | {detector / nk:.1f}x | "
              f"{'-' if hp is None else f'{hp / 1e6:.3f} M/s'} | {'-' if hp is None else f'{ours / hp:.0f}x'} |")
        ok_speed = ours >= TARGET_END_TO_END
        ok_ratio = detector / nk >= TARGET_RATIO_NK
        failures += (not ok_speed) + (not ok_ratio)
        if name == "ir,red":
            # Issue 42's target on the sensor's own format: end to end, CSV file to windows, 10x pandas + NeuroKit2.
            ok_e2e_ratio = ours / nk_e2e >= TARGET_RATIO_NK
            failures += not ok_e2e_ratio
            print(f"  {name}: {verdict(ok_e2e_ratio)} end to end >= 10x pandas + NeuroKit2 ({ours / nk_e2e:.1f}x)",
                  file=sys.stderr)
            if a.baseline:
                side_by_side(a.baseline, a.binary, path, fs, polarity, samples, rounds=3 if a.quick else 7)
        print(f"  {name}: {verdict(ok_speed)} end to end >= 20 M samples/s; {verdict(ok_ratio)} detector >= 10x "
              f"NeuroKit2 Elgendi's (end to end against pandas + NeuroKit2: {ours / nk_e2e:.1f}x, parsing-bound on "
              "both sides)", file=sys.stderr)
    if a.throughput_only:
        sys.exit(1 if failures else 0)
    print()
    print("(HeartPy on the long inputs: the first 10 minutes only; it slows down more than linearly.)")
    print()
    ratios, detector_ratios = recordings_table(a.binary, a.data)
    print(f"(Informative, not a target: on these short files (a few ms of work each) stressmon's fixed")
    print(f"costs - the sidecar's JSON, a parsing thread, set-up, the output - weigh as much as the samples. Median")
    print(f"ratio to NeuroKit2: analyze {statistics.median(ratios):.1f}x, detector "
          f"{statistics.median(detector_ratios):.1f}x, worst detector {min(detector_ratios):.1f}x.)")
    print()
    counts = instructions_per_sample(a.binary, a.data, a.work, [
        "heartpy_data3", "systole_ppg", "e2epyppg_201902020222", "nova_bvp", "bsn_bvp_rest", "pyphysio_medical"])
    if counts:
        print("| recording | fs Hz | samples | detector instructions / sample |")
        print("|---|---|---|---|")
        for name, (fs, samples, per) in counts.items():
            note = "" if fs >= DESIGN_LOW_HZ else f" (below the {DESIGN_LOW_HZ} Hz design range: not held to the budget)"
            print(f"| {name} | {fs:g} | {samples} | {per:.1f}{note} |")
        # Per-beat work (the energy gate, the template, the secondary-wave watch) is shared by fewer samples as the
        # rate falls, so the per-sample figure rises below 100 Hz. The budget is checked over the recordings the
        # detector is designed for, 25 Hz and up (docs/detector.md); the 19.6 Hz one is shown, not held to it.
        held = {name: per for name, (fs, _, per) in counts.items() if fs >= DESIGN_LOW_HZ}
        worst_name = max(held, key=held.get)
        ok = held[worst_name] <= TARGET_INSTRUCTIONS
        failures += not ok
        print(f"  {verdict(ok)} <= {TARGET_INSTRUCTIONS:g} instructions/sample from {DESIGN_LOW_HZ} Hz up (worst "
              f"{held[worst_name]:.1f}, {worst_name})", file=sys.stderr)
        print()
    worst, where = latency(a.binary, a.data)
    print(f"Largest peak-to-report latency over the 14 recordings: {worst:.1f} ms ({where}); bound <= 300 ms")
    failures += worst > 300
    if failures:
        print(f"bench: {failures} target(s) missed", file=sys.stderr)
        sys.exit(1)
    print("bench: all targets met", file=sys.stderr)


if __name__ == "__main__":
    main()
