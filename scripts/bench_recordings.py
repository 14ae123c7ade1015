"""Long benchmark inputs made from the shared real recordings, shared by bench-run.py and bench-daemon.py."""
from __future__ import annotations

import json
import os


def repeat_recording(data: str, work: str, name: str, copies: int, label: str) -> tuple[str, float, int]:
    """Writes `copies` repetitions of the recording `name` from `data` as `<work>/<name>_<label>.csv` with a
    sidecar (fs, polarity); returns the path, the sample rate and the number of samples."""
    meta = json.load(open(os.path.join(data, name + ".json")))
    with open(os.path.join(data, name + ".csv")) as f:
        header = f.readline()
        body = f.read()
    if not body.endswith("\n"):
        body += "\n"
    path = os.path.join(work, f"{name}_{label}.csv")
    with open(path, "w") as out:
        out.write(header)
        for _ in range(copies):
            out.write(body)
    with open(path[:-4] + ".json", "w") as side:
        json.dump({"fs": meta["fs"], "polarity": meta.get("polarity", "normal")}, side)
    return path, float(meta["fs"]), body.count("\n") * copies


def ir_red_recording(data: str, work: str, hours: float = 24) -> tuple[str, float, int]:
    """A day of the sensor's own format, `ir,red` raw 18-bit counts (the light falls with each pulse: polarity
    inverted), made from heartpy_data3 (100 Hz) repeated: ir = 200 000 − 100 × value, red = 150 000 − 61 × value +
    the row's index mod 7 (so the two columns differ in every digit). Written once per work folder; returns the
    path, the sample rate and the number of samples."""
    name = "heartpy_data3"
    meta = json.load(open(os.path.join(data, name + ".json")))
    fs = float(meta["fs"])
    with open(os.path.join(data, name + ".csv")) as f:
        f.readline()
        values = [int(round(float(line))) for line in f if line.strip()]
    samples = int(hours * 3600 * fs)
    path = os.path.join(work, f"ir_red_{hours:g}h.csv")
    if not os.path.exists(path):
        rows = [f"{200_000 - 100 * v},{150_000 - 61 * v + k % 7}\n" for k, v in enumerate(values)]
        with open(path, "w") as out:
            out.write("ir,red\n")
            written = 0
            while written < samples:
                chunk = rows[: samples - written]
                out.write("".join(chunk))
                written += len(chunk)
        with open(path[:-4] + ".json", "w") as side:
            json.dump({"fs": fs, "polarity": "inverted"}, side)
    return path, fs, samples
