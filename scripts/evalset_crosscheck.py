#!/usr/bin/env python3
"""Writes an independent cross-check set: pulses of other morphologies, made by other generators, in the
evaluation set's file format (docs/evaluation-set.md, "A cross-check the rules never saw").

    evalset_crosscheck.py --out DIR [--seeds 2] [--duration 120] [--conditions clean,af] [--rates 25,100]

The evaluation set is built from the shared recordings' averaged pulse shapes, their sensor noise and real RR
series; every detector rule was measured on it. This set shares none of that. Two pulse models:
- clean, fast, slow, noisy, respiration: NeuroKit2's `ppg_simulate` (Akima interpolation through onset, systolic
  peak, dicrotic notch and diastolic peak, each cycle's knots drawn afresh; its own timing model: slow frequency
  modulation plus a random offset per beat). It has no premature beats and no AF.
- premature_compensatory, premature_noncompensatory, af: three Gaussian waves a beat (systolic with a slower fall,
  reflected, diastolic), each beat whole from its onset and added to the tails of those before it, so an early beat
  rides on the last one's diastole and no beat's shape knows when the next comes. Timing: a synthetic sinus rhythm
  (breathing and AR(1) variability) with 3-10 % of beats 20-35 % early, or i.i.d. log-normal AF intervals.
The noise is synthetic: white plus 1/f (pink) noise, not a sensor's residual. Rendered as the evaluation set renders:
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
# condition: pulse model, heart rate (bpm), AC % of DC, pulse height / noise SD, breathing wander (pulse heights),
# amplitude modulation share
CONDITIONS = {
    "clean": dict(model="ppg_simulate", hr=(55, 95), ac=(0.5, 3), snr=(15, 60), wander=(0.1, 0.5), am=(0.02, 0.10)),
    "fast": dict(model="ppg_simulate", hr=(150, 185), ac=(0.3, 2), snr=(15, 60), wander=(0.1, 0.5), am=(0.02, 0.10)),
    "slow": dict(model="ppg_simulate", hr=(38, 44), ac=(0.5, 3), snr=(15, 60), wander=(0.1, 0.5), am=(0.02, 0.10)),
    "noisy": dict(model="ppg_simulate", hr=(55, 95), ac=(0.1, 0.5), snr=(2, 5), wander=(0.1, 0.5), am=(0.02, 0.10)),
    "respiration": dict(model="ppg_simulate", hr=(55, 95), ac=(0.5, 3), snr=(15, 60), wander=(0.5, 2.0),
                        am=(0.15, 0.40)),
    "premature_compensatory": dict(model="gaussian", hr=(55, 95), ac=(0.5, 3), snr=(15, 60), wander=(0.1, 0.5),
                                   am=(0.02, 0.10)),
    "premature_noncompensatory": dict(model="gaussian", hr=(55, 95), ac=(0.5, 3), snr=(15, 60), wander=(0.1, 0.5),
                                      am=(0.02, 0.10)),
    "af": dict(model="gaussian", hr=(50, 110), ac=(0.5, 3), snr=(15, 60), wander=(0.1, 0.5), am=(0.02, 0.10)),
}
LICENSE = ("Synthetic: pulses from NeuroKit2's ppg_simulate (NeuroKit2, MIT licence) or a sum of Gaussian waves, "
           "noise generated here. No recorded material.")


def pink_noise(n: int, rng: np.random.Generator) -> np.ndarray:
    """Unit-SD noise with a 1/f power spectrum (DC removed)."""
    spectrum = rng.normal(size=n // 2 + 1) + 1j * rng.normal(size=n // 2 + 1)
    f = np.fft.rfftfreq(n)
    spectrum[0] = 0
    spectrum[1:] /= np.sqrt(f[1:])
    x = np.fft.irfft(spectrum, n)
    return x / x.std()


def refine(pulse: np.ndarray, near: np.ndarray) -> np.ndarray:
    """Exact peak times (s) of `pulse` (rendered at RENDER_HZ): the highest sample within 20 ms of each index in
    `near`, refined by a parabola through it and its neighbours."""
    reach = RENDER_HZ // 50
    peaks = []
    for i in near:
        lo, hi = max(1, i - reach), min(len(pulse) - 1, i + reach + 1)
        if lo < hi:
            peaks.append(lo + int(np.argmax(pulse[lo:hi])))
    peaks = np.asarray(peaks, dtype=np.int64)
    peaks = peaks[(peaks > 0) & (peaks < len(pulse) - 1)]
    a, b, c = pulse[peaks - 1], pulse[peaks], pulse[peaks + 1]
    return (peaks + 0.5 * (a - c) / (a - 2 * b + c)) / RENDER_HZ


def ppg_simulate_train(condition: str, duration: int, rng: np.random.Generator, nk):
    """NeuroKit2's ppg_simulate: the pulse train at RENDER_HZ, its systolic peaks (indices, before amplitude
    modulation), no premature beats, and its parameters. Its systolic peaks rise about 1.5 above the cycle's foot,
    its diastolic ones a few hundredths above the notch."""
    from scipy.signal import find_peaks

    hr = float(rng.uniform(*CONDITIONS[condition]["hr"]))
    fast = condition == "fast"  # ppg_simulate skips its modulation when an interval would fall below 0.3 s
    modulation = float(rng.uniform(0.03, 0.06)) if fast else float(rng.uniform(0.1, 0.3))
    randomness = float(rng.uniform(0.01, 0.03)) if fast else float(rng.uniform(0.03, 0.15))
    with contextlib.redirect_stdout(io.StringIO()):
        # Rendered 10 s longer and cut: ppg_simulate fills the time after its last cycle with a constant.
        shape = nk.ppg_simulate(duration=duration + 10, sampling_rate=RENDER_HZ, heart_rate=hr,
                                frequency_modulation=modulation, ibi_randomness=randomness, drift=0,
                                motion_amplitude=0, powerline_amplitude=0, burst_number=0, burst_amplitude=0,
                                random_state=int(rng.integers(1 << 31)))[: duration * RENDER_HZ]
    found, _ = find_peaks(shape, distance=int(0.6 * 60 / hr * RENDER_HZ), prominence=0.5)
    parameters = {"pulse_model": "ppg_simulate", "heart_rate_bpm": hr, "frequency_modulation": modulation,
                  "ibi_randomness": randomness}
    return shape - np.median(shape), found, [], parameters


def gaussian_train(condition: str, duration: int, rng: np.random.Generator):
    """Three Gaussian waves a beat (systolic, reflected, diastolic; Couceiro et al. 2012's kind of model), each beat
    drawn whole from its onset and added to the tails of those before it: a beat's waveform does not depend on when
    the next one comes, and an early beat rides on the last one's diastole. The systole widens a little after a
    longer interval (ejection lasts longer) and the amplitude follows the filling time (Frank-Starling). Returns the
    train at RENDER_HZ, the systolic waves' centres (indices), the premature beats and the parameters."""
    mean = 60 / float(rng.uniform(*CONDITIONS[condition]["hr"]))
    n = int(duration / mean) + 20
    if condition == "af":
        spread = float(rng.uniform(0.15, 0.30))
        intervals = mean * np.clip(np.exp(rng.normal(-spread**2 / 2, spread, n)), 0.5, 1.8)
        onsets, premature = np.cumsum(intervals), []
    else:
        breath_hz = float(rng.uniform(0.15, 0.35))
        ar = np.zeros(n)
        for k in range(1, n):
            ar[k] = 0.7 * ar[k - 1] + rng.normal(0, 0.02)
        sinus = mean * (1 + float(rng.uniform(0.03, 0.08)) * np.sin(2 * np.pi * breath_hz * mean * np.arange(n)) + ar)
        onsets = np.cumsum(sinus)
        share, premature = float(rng.uniform(0.03, 0.10)), []
        for k in range(3, n - 1):
            if rng.random() < share and (not premature or premature[-1] < k - 2):
                early = float(rng.uniform(0.20, 0.35)) * (onsets[k] - onsets[k - 1])
                onsets[k] -= early
                if condition == "premature_noncompensatory":  # the sinus node resets: every later beat moves too
                    onsets[k + 1:] -= early
                premature.append(k)
    keep = onsets < duration
    onsets = onsets[keep]
    premature = [k for k in premature if k < len(onsets)]
    # The systolic wave rises in w1 and falls in w1d (ejection, then the arteries' run-off). Drawn alone, 70 % of
    # these beats show a second peak: at 0.40 / 0.56 / 0.69 of the systolic one (10th / 50th / 90th percentile),
    # after a notch at 0.24 / 0.42 / 0.61, as fingertip pulses with a visible diastolic wave do.
    d1, w1, w1d = float(rng.uniform(0.12, 0.18)), float(rng.uniform(0.04, 0.06)), float(rng.uniform(0.07, 0.12))
    d2, w2, r2 = d1 + float(rng.uniform(0.18, 0.30)), float(rng.uniform(0.05, 0.09)), float(rng.uniform(0.25, 0.55))
    d3, w3, r3 = d2 + float(rng.uniform(0.10, 0.20)), float(rng.uniform(0.10, 0.15)), float(rng.uniform(0.1, 0.3))
    gain = float(rng.uniform(0.5, 1.0))
    t = np.arange(duration * RENDER_HZ) / RENDER_HZ
    train = np.zeros_like(t)
    centres = []
    for k, onset in enumerate(onsets):
        previous = onsets[k] - onsets[k - 1] if k else mean
        widen = (previous / mean) ** 0.2
        amplitude = np.clip(1 + gain * (previous / mean - 1), 0.4, 1.6) * (1 + rng.normal(0, 0.02))
        lo, hi = int(max(0, onset - 0.1) * RENDER_HZ), int(min(duration, onset + 1.5) * RENDER_HZ)
        x = t[lo:hi] - onset
        rise = x < d1 * widen
        systolic = np.exp(-0.5 * ((x - d1 * widen) / np.where(rise, w1 * widen, w1d * widen)) ** 2)
        train[lo:hi] += amplitude * (systolic
                                     + r2 * np.exp(-0.5 * ((x - d2 * widen) / w2) ** 2)
                                     + r3 * np.exp(-0.5 * ((x - d3 * widen) / w3) ** 2))
        centres.append(int(round((onset + d1 * widen) * RENDER_HZ)))
    parameters = {"pulse_model": "gaussian", "heart_rate_bpm": 60 / mean, "systolic_delay_s": d1,
                  "systolic_rise_s": w1, "systolic_fall_s": w1d, "reflected_delay_s": d2, "reflected_ratio": r2,
                  "diastolic_delay_s": d3, "diastolic_ratio": r3, "frank_starling_gain": gain}
    return train, np.asarray(centres), premature, parameters


def make_record(condition: str, rate: int, seed: int, duration: int, nk):
    name = f"{condition}_{rate}hz_x{seed}"
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    spec = CONDITIONS[condition]
    draw = lambda key: float(rng.uniform(*spec[key]))  # noqa: E731
    if spec["model"] == "gaussian":
        shape, near, premature, parameters = gaussian_train(condition, duration, rng)
    else:
        shape, near, premature, parameters = ppg_simulate_train(condition, duration, rng, nk)
    t = np.arange(len(shape)) / RENDER_HZ
    breath_hz, phase = float(rng.uniform(0.1, 0.4)), float(rng.uniform(0, 2 * np.pi))
    am = draw("am")
    pulse = shape * (1 + am * np.sin(2 * np.pi * breath_hz * t + phase))
    truth = refine(pulse, near)
    height = float(np.median(np.interp(truth, t, pulse)) - np.percentile(pulse, 2))
    signal = pulse + draw("wander") * height * np.sin(2 * np.pi * breath_hz * t + phase - 1.0)
    samples = signal[:: RENDER_HZ // rate]
    white = float(rng.uniform(0.2, 0.6))
    noise = np.sqrt(white) * rng.normal(size=len(samples)) + np.sqrt(1 - white) * pink_noise(len(samples), rng)
    snr = draw("snr")
    samples = samples + noise * height / snr
    ac, dc = draw("ac"), float(rng.uniform(100e3, 200e3))
    raw = np.clip(np.round(dc * (1 - ac / 100 * samples / height)), 0, 262143).astype(np.int64)
    inside = (truth > 0) & (truth < duration)
    premature_set = set(premature)
    kept = [k for k in range(len(truth)) if inside[k]]
    truth = truth[inside]
    parameters.update({"amplitude_modulation": am, "respiration_hz": breath_hz, "pulse_to_noise": snr,
                       "white_noise_share": white, "ac_percent": ac, "dc_counts": dc})
    meta = {
        "fs": rate, "polarity": "inverted", "n_samples": int(len(raw)), "duration_s": duration,
        "reference": "exact_ppg_peaks", "beats": [int(round(x * rate)) for x in truth],
        "beat_times_s": [float(x) for x in truth], "beat_numbers": list(range(len(truth))),
        "premature_beats": [i for i, k in enumerate(kept) if k in premature_set],
        "excluded_s": [[0, 1], [duration - 0.5, duration]], "motion_s": [], "lifted_s": [],
        "condition": condition, "seed": seed, "parameters": parameters,
        "source": f"scripts/evalset_crosscheck.py: {parameters['pulse_model']} pulse model, synthetic noise",
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
