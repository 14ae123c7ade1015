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
