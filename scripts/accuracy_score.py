"""Scoring of the evaluation set (docs/evaluation-set.md): the one definition. Tests/EvaluationSet/EvalScore.swift
and EvalSummary.swift do the same in Swift for the tests, step by step (the names below are theirs too).

Beats (score_beats): truth = the sidecar's beat_times_s outside excluded_s; detections likewise. One-to-one
matching, closest pairs first, within +-150 ms (as ../shared/peers/score.py). F1 = 2TP / (2TP + FP + FN).
Timing: detection - truth over the matched pairs, mean (bias) and population SD, ms; pooled over records, the
SD is taken around each record's own mean (precision; the bias moves with the pulse shape).

True NN intervals (truth_nn): consecutive heartbeats (beat_numbers differ by 1), neither premature. An interval
belongs to the window its end beat falls in. SDNN (n - 1) over every interval, RMSSD over successive differences of
adjacent intervals only; none with fewer than 3 intervals or no successive difference (StressModel.HRVMetrics).

Pairs (pair_hrv): the true NN intervals whose two beats were both detected, timed by the truth and by the
detector; the gap between the two SDNNs is the detector's timing, the gap between the analyzer's cleaned SDNN and
the detector's is the cleaning (issue 12: on clean records they must agree within 1 ms).

Windows (score_windows): each window the analyzer reports, [start, end), against the truth in the same span; its
kind is "lifted" (>= 50 % under a lifted finger), "noisy" (a noisy record), "artefact" (motion or a lift touches
it) or "clean". A window is shown when the device would give it a category (quality "good").

Peers (peer_windows): NeuroKit2 and HeartPy have no quality gate or interval cleaner. Their intervals go through
score.py's documented clean-up (kept if within 20 % of the median of the 11 around it and 300-2000 ms); a window
is "shown" when the kept intervals cover >= 50 % of it, are >= 3, and <= 30 % of its intervals were dropped
(stressmon's own coverage and rejected-share limits), on the same 60 s / 10 s grid.
"""
from __future__ import annotations

import math

TOLERANCE_S = 0.15
WINDOW_S = 60.0
STEP_S = 10.0


# ----------------------------------------------------------------------------- beats

def in_spans(t, spans):
    return any(a <= t < b for a, b in spans)


def match(ref, det, tol):
    """Greedy closest-first one-to-one matching (score.py `match`). Returns sorted (i_ref, j_det) pairs."""
    pairs = []
    j0 = 0
    for i, r in enumerate(ref):
        while j0 < len(det) and det[j0] < r - tol:
            j0 += 1
        j = j0
        while j < len(det) and det[j] <= r + tol:
            pairs.append((abs(det[j] - r), i, j))
            j += 1
    pairs.sort()
    used_r, used_d, out = set(), set(), []
    for _, i, j in pairs:
        if i not in used_r and j not in used_d:
            used_r.add(i)
            used_d.add(j)
            out.append((i, j))
    return sorted(out)


def score_beats(sidecar, detected_s):
    """TP/FP/FN, the matched offsets, and `matched`: sidecar beat index -> the detection matched to it.

    The matching runs over every beat and every detection, and only then are the excluded spans applied: a pair
    counts when its beat lies outside them, a detection left over is false when it lies outside them. So a detection
    a few ms inside a span still pairs with the scored beat just past its edge, and one that belongs to an excluded
    beat cannot take a scored beat's place."""
    excluded = sidecar["excluded_s"]
    times = sidecar["beat_times_s"]
    det = sorted(detected_s)
    pairs = match(times, det, TOLERANCE_S)
    scored = [i for i, t in enumerate(times) if not in_spans(t, excluded)]
    counted = set(scored)
    kept = [(i, j) for i, j in pairs if i in counted]
    used = {j for _, j in pairs}
    fp = sum(1 for j, t in enumerate(det) if j not in used and not in_spans(t, excluded))
    tp = len(kept)
    return {"tp": tp, "fp": fp, "fn": len(scored) - tp,
            "offsets_ms": [(det[j] - times[i]) * 1000.0 for i, j in kept],
            "matched": {i: det[j] for i, j in kept}}


def f1(tp, fp, fn):
    d = 2 * tp + fp + fn
    return 1.0 if d == 0 else 2 * tp / d


# ----------------------------------------------------------------------------- HRV

def truth_nn(sidecar, matched=None):
    """[(ms, end_s, end_number)] between consecutive visible heartbeats, neither premature. With `matched` (from
    score_beats): only the intervals whose two beats were both detected."""
    return _nn(sidecar, matched, detected=False)


def _nn(sidecar, matched, detected):
    t, n = sidecar["beat_times_s"], sidecar["beat_numbers"]
    premature = set(sidecar["premature_beats"])
    out = []
    for i in range(1, len(t)):
        if n[i] == n[i - 1] + 1 and i not in premature and (i - 1) not in premature:
            if matched is not None and not (i in matched and (i - 1) in matched):
                continue
            a, b = (matched[i - 1], matched[i]) if detected else (t[i - 1], t[i])
            out.append(((b - a) * 1000.0, t[i], n[i]))
    return out


def pair_hrv(sidecar, matched):
    """HRV over the true NN pairs whose beats were both detected: (truth, the detector's own intervals over the
    same pairs). Their difference is the detector's timing; the analyzer's cleaned HRV against the second is
    what its interval cleaning does."""
    return hrv(runs(truth_nn(sidecar, matched))), hrv(runs(_nn(sidecar, matched, detected=True)))


def runs(intervals):
    """Runs of adjacent intervals (each starts where the previous ended), by end number."""
    out, previous = [], None
    for ms, _, number in intervals:
        if previous is not None and number == previous + 1:
            out[-1].append(ms)
        else:
            out.append([ms])
        previous = number
    return out


def hrv(run_list):
    """(SDNN, RMSSD) as StressModel.HRVMetrics(segmentsMs:), or None."""
    values = [v for r in run_list for v in r]
    if len(values) < 3:
        return None
    diffs = [r[i] - r[i - 1] for r in run_list for i in range(1, len(r))]
    if not diffs:
        return None
    mean = sum(values) / len(values)
    sdnn = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    rmssd = math.sqrt(sum(d * d for d in diffs) / len(diffs))
    return sdnn, rmssd


def window_kind(sidecar, start, end):
    lifted = sum(max(0.0, min(b, end) - max(a, start)) for a, b in sidecar["lifted_s"])
    motion = sum(max(0.0, min(b, end) - max(a, start)) for a, b in sidecar["motion_s"])
    if lifted >= 0.5 * (end - start):
        return "lifted"
    if sidecar["condition"] == "noisy":
        return "noisy"
    return "artefact" if lifted + motion > 0 else "clean"


def score_windows(sidecar, windows):
    """windows: [{start_s, end_s, shown, sdnn_ms, rmssd_ms}] as the analyzer reports them."""
    nn = truth_nn(sidecar)
    out = []
    for w in windows:
        start, end = w["start_s"], w["end_s"]
        truth = hrv(runs([x for x in nn if start <= x[1] < end]))
        out.append({"start_s": start, "end_s": end, "kind": window_kind(sidecar, start, end), "shown": w["shown"],
                    "condition": sidecar["condition"],
                    "truth_sdnn": truth[0] if truth else None, "truth_rmssd": truth[1] if truth else None,
                    "sdnn": w.get("sdnn_ms"), "rmssd": w.get("rmssd_ms")})
    return out


def peer_intervals(beats_s, frac=0.2, half=5):
    """score.py `sdnn_rmssd_filtered`'s clean-up: [(ms, end_s, index, kept)]."""
    b = sorted(beats_s)
    rr = [(b[i] - b[i - 1]) * 1000.0 for i in range(1, len(b))]
    out = []
    for i, v in enumerate(rr):
        around = sorted(rr[max(0, i - half): i + half + 1])
        m = len(around)
        med = around[m // 2] if m % 2 else 0.5 * (around[m // 2 - 1] + around[m // 2])
        out.append((v, b[i + 1], i, abs(v - med) <= frac * med and 300 <= v <= 2000))
    return out


def peer_windows(beats_s, duration_s):
    intervals = peer_intervals(beats_s)
    out = []
    end = WINDOW_S
    while end <= duration_s + 1e-9:
        start = end - WINDOW_S
        inside = [x for x in intervals if start <= x[1] < end]
        kept = [(ms, t, i) for ms, t, i, k in inside if k]
        metrics = hrv(runs(kept))
        coverage = sum(ms for ms, _, _ in kept) / (WINDOW_S * 1000.0)
        rejected = (len(inside) - len(kept)) / len(inside) if inside else 0.0
        shown = metrics is not None and coverage >= 0.5 and rejected <= 0.3
        out.append({"start_s": start, "end_s": end, "shown": shown,
                    "sdnn_ms": metrics[0] if metrics else None, "rmssd_ms": metrics[1] if metrics else None})
        end += STEP_S
    return out


def peer_record_hrv(beats_s):
    kept = [(ms, t, i) for ms, t, i, k in peer_intervals(beats_s) if k]
    return hrv(runs(kept))


# ----------------------------------------------------------------------------- records and summaries

def score_record(sidecar, detected_s, windows, record_hrv):
    """Everything for one record and one analyzer. record_hrv: (sdnn, rmssd) of the analyzer, or None."""
    beats = score_beats(sidecar, detected_s)
    matched = beats.pop("matched")
    truth = hrv(runs(truth_nn(sidecar)))
    pair_truth, pair_detected = pair_hrv(sidecar, matched)
    return {"condition": sidecar["condition"], "rate_hz": sidecar["fs"], **beats,
            "f1": f1(beats["tp"], beats["fp"], beats["fn"]),
            "pair_truth_sdnn": pair_truth[0] if pair_truth else None,
            "pair_sdnn": pair_detected[0] if pair_detected else None,
            "windows": score_windows(sidecar, windows),
            "truth_sdnn": truth[0] if truth else None, "truth_rmssd": truth[1] if truth else None,
            "sdnn": record_hrv[0] if record_hrv else None, "rmssd": record_hrv[1] if record_hrv else None}


def percentile(values, q):
    """numpy.percentile's default (linear interpolation)."""
    if not values:
        return None
    s = sorted(values)
    pos = (len(s) - 1) * q / 100.0
    i = int(pos)
    return s[i] + (pos - i) * (s[i + 1] - s[i]) if i + 1 < len(s) else s[i]


def share(items, predicate):
    return sum(1 for x in items if predicate(x)) / len(items) if items else None


def summarise(records):
    """Pools records (EvalSummary in Swift): beats and offsets pooled, window errors over every shown window."""
    tp = sum(r["tp"] for r in records)
    fp = sum(r["fp"] for r in records)
    fn = sum(r["fn"] for r in records)
    offsets = [o for r in records for o in r["offsets_ms"]]
    mean = sum(offsets) / len(offsets) if offsets else None
    # Precision: the SD of each record's offsets around that record's own mean, pooled. (The bias differs from
    # shape to shape, since filtering moves a peak by an amount that depends on the pulse; that is bias.)
    spread = 0.0
    for r in records:
        o = r["offsets_ms"]
        if o:
            m = sum(o) / len(o)
            spread += sum((x - m) ** 2 for x in o)
    sd = math.sqrt(spread / len(offsets)) if offsets else None
    windows = [w for r in records for w in r["windows"]]
    judged = [w for w in windows if w["shown"] and w["sdnn"] is not None and w["truth_sdnn"] is not None]
    sdnn_err = [abs(w["sdnn"] - w["truth_sdnn"]) for w in judged]
    rmssd_err = [abs(w["rmssd"] - w["truth_rmssd"]) for w in windows
                 if w["shown"] and w["rmssd"] is not None and w["truth_rmssd"] is not None]

    def kind(k):
        return [w for w in windows if w["kind"] == k]

    def record_err(key):
        return [abs(r[key] - r["truth_" + key]) for r in records
                if r[key] is not None and r["truth_" + key] is not None]

    return {
        "records": len(records), "tp": tp, "fp": fp, "fn": fn, "f1": f1(tp, fp, fn),
        "min_f1": min((r["f1"] for r in records), default=None),
        "bias_ms": mean, "sd_ms": sd,
        "windows": len(windows), "shown": sum(1 for w in windows if w["shown"]),
        "sdnn_median": percentile(sdnn_err, 50), "sdnn_p90": percentile(sdnn_err, 90),
        "rmssd_median": percentile(rmssd_err, 50), "rmssd_p90": percentile(rmssd_err, 90),
        "sdnn_within10": share(judged, lambda w: abs(w["sdnn"] - w["truth_sdnn"]) <= 0.1 * w["truth_sdnn"]),
        "clean_shown": share(kind("clean"), lambda w: w["shown"]),
        # The same without the AF-like records, whose windows are clean signal but no sinus rhythm (the device
        # names them irregular_rhythm and shows no category: docs/detector.md), and the AF windows not shown.
        "clean_shown_sinus": share([w for w in kind("clean") if w["condition"] != "af"], lambda w: w["shown"]),
        "irregular_uncategorised": share([w for w in windows if w["condition"] == "af"], lambda w: not w["shown"]),
        "noisy_uncategorised": share(kind("noisy"), lambda w: not w["shown"]),
        "lifted_uncategorised": share(kind("lifted"), lambda w: not w["shown"]),
        "record_sdnn_median": percentile(record_err("sdnn"), 50),
        "record_rmssd_median": percentile(record_err("rmssd"), 50),
        # Whole records: the detector's own intervals over the detected true pairs against the truth of those
        # pairs (timing), and the analyzer's cleaned SDNN against those intervals (cleaning).
        "pair_sdnn_median": percentile([abs(r["pair_sdnn"] - r["pair_truth_sdnn"]) for r in records
                                        if r["pair_sdnn"] is not None and r["pair_truth_sdnn"] is not None], 50),
        "cleaning_sdnn_median": percentile([abs(r["sdnn"] - r["pair_sdnn"]) for r in records
                                            if r["sdnn"] is not None and r["pair_sdnn"] is not None], 50),
    }
