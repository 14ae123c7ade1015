#!/usr/bin/env python3
"""Writes an independent cross-check set: pulses of another morphology, made by another generator, in the
evaluation set's file format (docs/evaluation-set.md, "A cross-check the rules never saw").

    evalset_crosscheck.py --out DIR [--seeds 2] [--duration 120] [--conditions clean,fast] [--rates 25,100]

The evaluation set is built from the shared recordings' averaged pulse shapes, their sensor noise and real RR
series; every detector rule was measured on it. This set shares none of that. Its pulses are NeuroKit2's
`ppg_simulate` (Akima interpolation through onset, systolic peak, dicrotic notch and diastolic peak, each cycle's
knots drawn afresh; its own timing model: slow frequency modulation plus a random offset per beat). Its noise is
synthetic: white plus 1/f (pink) noise, not a sensor's residual. It is rendered as the evaluation set renders:
raw MAX30102-style intensity, pulses down, 18-bit counts, point-sampled at the record's rate from a 2 kHz render.

The truth is each systolic peak of the pulse signal itself (amplitude modulation included, baseline wander and
noise not), found on the 2 kHz render and refined by a parabola through its three samples. Deterministic: each
record's random state is the CRC-32 of its name. Needs NeuroKit2 (scripts/bench-peers-venv's Python has it).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import zlib

import numpy as np

RENDER_HZ = 2000
RATES = (25, 50, 100, 200, 400)
# condition: heart rate (bpm), AC % of DC, pulse height / noise SD, breathing wander (pulse heights), AM share
CONDITIONS = {
    "clean": dict(hr=(55, 95), ac=(0.5, 3), snr=(15, 60), wander=(0.1, 0.5), am=(0.02, 0.10)),
    "fast": dict(hr=(150, 185), ac=(0.3, 2), snr=(15, 60), wander=(0.1, 0.5), am=(0.02, 0.10)),
    "slow": dict(hr=(38, 44), ac=(0.5, 3), snr=(15, 60), wander=(0.1, 0.5), am=(0.02, 0.10)),
    "noisy": dict(hr=(55, 95), ac=(0.1, 0.5), snr=(2, 5), wander=(0.1, 0.5), am=(0.02, 0.10)),
    "respiration": dict(hr=(55, 95), ac=(0.5, 3), snr=(15, 60), wander=(0.5, 2.0), am=(0.15, 0.40)),
}
LICENSE = ("Synthetic: pulses from NeuroKit2's ppg_simulate (NeuroKit2, MIT licence), noise generated here. "
           "No recorded material.")


def pink_noise(n: int, rng: np.random.Generator) -> np.ndarray:
    """Unit-SD noise with a 1/f power spectrum (DC removed)."""
    spectrum = rng.normal(size=n // 2 + 1) + 1j * rng.normal(size=n // 2 + 1)
    f = np.fft.rfftfreq(n)
    spectrum[0] = 0
    spectrum[1:] /= np.sqrt(f[1:])
    x = np.fft.irfft(spectrum, n)
    return x / x.std()


def systolic_peaks(shape: np.ndarray, pulse: np.ndarray, heart_rate: float) -> np.ndarray:
    """Exact systolic peak times (s) of `pulse` (rendered at RENDER_HZ), found on `shape`, the same train before
    amplitude modulation: its systolic peaks rise about 1.5 above the cycle's foot, its diastolic ones a few
    hundredths above the notch."""
    from scipy.signal import find_peaks

    distance = int(0.6 * 60 / heart_rate * RENDER_HZ)
    found, _ = find_peaks(shape, distance=distance, prominence=0.5)
    reach = RENDER_HZ // 50  # amplitude modulation moves a peak by far less than 20 ms
    peaks = []
    for i in found:
        lo, hi = max(1, i - reach), min(len(pulse) - 1, i + reach + 1)
        peaks.append(lo + int(np.argmax(pulse[lo:hi])))
    peaks = np.asarray(peaks)
    peaks = peaks[(peaks > 0) & (peaks < len(pulse) - 1)]
    a, b, c = pulse[peaks - 1], pulse[peaks], pulse[peaks + 1]
    offset = 0.5 * (a - c) / (a - 2 * b + c)
    return (peaks + offset) / RENDER_HZ


def make_record(condition: str, rate: int, seed: int, duration: int, nk):
    name = f"{condition}_{rate}hz_x{seed}"
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    spec = CONDITIONS[condition]
    draw = lambda key: float(rng.uniform(*spec[key]))  # noqa: E731
    hr = draw("hr")
    fast = condition == "fast"  # ppg_simulate skips its modulation when an interval would fall below 0.3 s
    modulation = float(rng.uniform(0.03, 0.06)) if fast else float(rng.uniform(0.1, 0.3))
    randomness = float(rng.uniform(0.01, 0.03)) if fast else float(rng.uniform(0.03, 0.15))
    with contextlib.redirect_stdout(io.StringIO()):
        # Rendered 10 s longer and cut: ppg_simulate fills the time after its last cycle with a constant.
        shape = nk.ppg_simulate(duration=duration + 10, sampling_rate=RENDER_HZ, heart_rate=hr,
                                frequency_modulation=modulation, ibi_randomness=randomness, drift=0,
                                motion_amplitude=0, powerline_amplitude=0, burst_number=0, burst_amplitude=0,
                                random_state=int(rng.integers(1 << 31)))[: duration * RENDER_HZ]
    t = np.arange(len(shape)) / RENDER_HZ
    breath_hz, phase = float(rng.uniform(0.1, 0.4)), float(rng.uniform(0, 2 * np.pi))
    breath = np.sin(2 * np.pi * breath_hz * t + phase)
    am = draw("am")
    pulse = (shape - np.median(shape)) * (1 + am * breath)
    truth = systolic_peaks(shape, pulse, hr)
    height = float(np.median(np.interp(truth, t, pulse)) - np.percentile(pulse, 2))
    signal = pulse + draw("wander") * height * np.sin(2 * np.pi * breath_hz * t + phase - 1.0)
    samples = signal[:: RENDER_HZ // rate]
    white = float(rng.uniform(0.2, 0.6))
    noise = np.sqrt(white) * rng.normal(size=len(samples)) + np.sqrt(1 - white) * pink_noise(len(samples), rng)
    snr = draw("snr")
    samples = samples + noise * height / snr
    ac, dc = draw("ac"), float(rng.uniform(100e3, 200e3))
    raw = np.clip(np.round(dc * (1 - ac / 100 * samples / height)), 0, 262143).astype(np.int64)
    truth = truth[(truth > 0) & (truth < duration)]
    meta = {
        "fs": rate, "polarity": "inverted", "n_samples": int(len(raw)), "duration_s": duration,
        "reference": "exact_ppg_peaks", "beats": [int(round(x * rate)) for x in truth],
        "beat_times_s": [float(x) for x in truth], "beat_numbers": list(range(len(truth))), "premature_beats": [],
        "excluded_s": [[0, 1], [duration - 0.5, duration]], "motion_s": [], "lifted_s": [],
        "condition": condition, "seed": seed,
        "parameters": {"heart_rate_bpm": hr, "frequency_modulation": modulation, "ibi_randomness": randomness,
                       "amplitude_modulation": am, "respiration_hz": breath_hz, "pulse_to_noise": snr,
                       "white_noise_share": white, "ac_percent": ac, "dc_counts": dc},
        "source": "scripts/evalset_crosscheck.py: NeuroKit2 ppg_simulate morphology, synthetic noise",
        "license": LICENSE,
        "notes": "Raw MAX30102-style intensity, 18-bit counts, pulses point down. beat_times_s: exact systolic "
                 "peaks of the pulse (without wander and noise).",
    }
    return name, raw, meta


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Score the records with scripts/bench_evalset.py --records DIR, or run "
                                        "scripts/bench-accuracy --crosscheck, which does both.")
    ap.add_argument("--out", required=True, help="directory to write (created; its records are replaced)")
    ap.add_argument("--seeds", type=int, default=2, help="records per condition and rate (default 2)")
    ap.add_argument("--duration", type=int, default=120, help="seconds per record (default 120, at least 20)")
    ap.add_argument("--conditions", default=",".join(CONDITIONS), help="comma-separated (default: all)")
    ap.add_argument("--rates", default=",".join(map(str, RATES)), help="comma-separated Hz, divisors of 2000")
    a = ap.parse_args()
    conditions = a.conditions.split(",")
    rates = [int(r) for r in a.rates.split(",")]
    unknown = [c for c in conditions if c not in CONDITIONS]
    if unknown:
        ap.error(f"unknown condition(s) {', '.join(unknown)}: choose from {', '.join(CONDITIONS)}")
    if any(r <= 0 or RENDER_HZ % r for r in rates):
        ap.error(f"each rate must divide {RENDER_HZ} Hz (e.g. {', '.join(map(str, RATES))})")
    if a.seeds < 1 or a.duration < 20:
        ap.error("--seeds must be at least 1 and --duration at least 20 s")
    try:
        import neurokit2 as nk
    except ImportError:
        print("evalset_crosscheck: NeuroKit2 is missing: run this with the Python scripts/bench-peers-venv prints",
              file=sys.stderr)
        return 69
    os.makedirs(a.out, exist_ok=True)
    index = []
    total = len(conditions) * len(rates) * a.seeds
    for condition in conditions:
        for rate in rates:
            for seed in range(1, a.seeds + 1):
                name, raw, meta = make_record(condition, rate, seed, a.duration, nk)
                with open(os.path.join(a.out, name + ".csv.tmp"), "w") as f:
                    f.write("ppg\n")
                    f.write("\n".join(map(str, raw.tolist())))
                    f.write("\n")
                os.replace(os.path.join(a.out, name + ".csv.tmp"), os.path.join(a.out, name + ".csv"))
                with open(os.path.join(a.out, name + ".json"), "w") as f:
                    json.dump(meta, f)
                index.append({"name": name, "condition": condition, "rate_hz": rate, "seed": seed,
                              "duration_s": a.duration, "beats": len(meta["beats"])})
                if len(index) % 10 == 0 or len(index) == total:
                    print(f"evalset_crosscheck: {len(index)}/{total} records written (last: {name})", file=sys.stderr)
    with open(os.path.join(a.out, "index.json"), "w") as f:
        json.dump({"records": index}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
