#!/usr/bin/env python3
"""The measurements behind scripts/bench-daemon (run it through that script: it builds the release binary).

Standard library only. Every figure comes from this run on this machine: /proc/PID/status (VmRSS, VmHWM),
/proc/PID/stat (utime, stime), /proc/PID/io (write_bytes, wchar), /proc/PID/task/*/status (context switches per
thread), and the daemon's own --json events (process_ms stamps on its monotonic clock; emulator_cpu_ms, the CPU
time the emulated sensor spent computing its samples, which a real MAX30102 spends in silicon).

Wake-ups: voluntary context switches summed over the process's threads (a thread that blocks and is woken again
counts one), per thread id so that threads that come and go are counted; involuntary switches (preemption, which
depends on what else the machine runs) are reported apart.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import pwd
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_recordings import repeat_recording  # noqa: E402

TARGET_RSS_MB = 15.0
TARGET_CPU_PERCENT = 1.0
TARGET_FIRST_CATEGORY_MS = 1000.0
# Issue 13: a wearable that sleeps; the desk's LEDs may blink.
TARGET_WAKEUPS = {"desk": 40.0, "wearable": 20.0}
TARGET_WEARABLE_CPU_PERCENT = 0.3
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def proc_status(pid: int) -> dict[str, int]:
    values = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile", "Threads"):
                values[key] = int(rest.split()[0])
    return values


def proc_cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime (fields 14, 15)


def proc_threads(pid: int) -> dict[int, tuple[int, int, str]]:
    """Per thread: voluntary and involuntary context switches so far, and the thread's name."""
    threads = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        voluntary = involuntary = 0
        name = ""
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    key, _, rest = line.partition(":")
                    if key == "voluntary_ctxt_switches":
                        voluntary = int(rest)
                    elif key == "nonvoluntary_ctxt_switches":
                        involuntary = int(rest)
                    elif key == "Name":
                        name = rest.strip()
        except (FileNotFoundError, ProcessLookupError):
            continue
        threads[int(tid)] = (voluntary, involuntary, name)
    return threads


def proc_io(pid: int) -> dict[str, int]:
    values = {}
    with open(f"/proc/{pid}/io") as f:
        for line in f:
            key, _, rest = line.partition(":")
            values[key] = int(rest)
    return values


class Run:
    """One `stressmon run --json` in real time, sampled once a second."""

    def __init__(self, name: str, binary: str, work: str, extra: list[str], config: str | None = None):
        self.name = name
        self.directory = os.path.join(work, name)
        os.makedirs(self.directory, exist_ok=True)
        arguments = [binary, "run", "--board", "sim", "--json", "--db", os.path.join(self.directory, "run.db")] + extra
        if config:
            path = os.path.join(self.directory, "run.toml")
            with open(path, "w") as f:
                f.write(config)
            arguments += ["--config", path]
        self.events: list[dict] = []
        self.samples: list[tuple[float, dict, float, dict]] = []
        self.threads: list[tuple[float, dict[int, tuple[int, int, str]]]] = []
        self.started = time.monotonic()
        self.process = subprocess.Popen(arguments, cwd=self.directory, stdout=subprocess.PIPE,
                                        stderr=open(os.path.join(self.directory, "stderr.txt"), "w"), text=True)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stdout:
            try:
                self.events.append(json.loads(line))
            except json.JSONDecodeError:
                pass

    def sample(self):
        pid = self.process.pid
        try:
            now = time.monotonic() - self.started
            self.samples.append((now, proc_status(pid), proc_cpu_seconds(pid), proc_io(pid)))
            self.threads.append((now, proc_threads(pid)))
        except (FileNotFoundError, ProcessLookupError):
            pass

    def switches_since(self, start: float) -> tuple[float, float, dict[str, float]]:
        """Voluntary and involuntary context switches per second from `start` to the last sample, summed per
        thread id (a thread born later counts from 0), and the voluntary rate per thread name."""
        steady = [t for t in self.threads if t[0] >= start] or self.threads
        (t0, first), (t1, last) = steady[0], steady[-1]
        seen: dict[int, tuple[int, int, str]] = {}
        for _, threads in steady:
            seen.update(threads)
        seconds = max(t1 - t0, 1e-9)
        voluntary = involuntary = 0
        by_name: dict[str, float] = {}
        for tid, (v, n, name) in seen.items():
            v0, n0, _ = first.get(tid, (0, 0, name))
            voluntary += v - v0
            involuntary += n - n0
            by_name[name] = by_name.get(name, 0) + (v - v0) / seconds
        return voluntary / seconds, involuntary / seconds, by_name

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=60)
        self.reader.join(timeout=5)
        return code

    def report(self) -> dict:
        # A sample read while the process was exiting has no memory lines (a zombie's status): leave it out.
        samples = [s for s in self.samples if "VmRSS" in s[1] and "VmHWM" in s[1]]
        end_t, end_status, end_cpu, end_io = samples[-1]
        # Steady state: after the first full window and the panel's first category refresh (from 90 s on).
        steady = [s for s in samples if s[0] >= 90] or samples
        first_t, _, first_cpu, first_io = steady[0]
        windows = [e for e in self.events if e.get("event") == "window"]
        first_window = windows[0] if windows else None
        led_category = None
        if first_window:
            for e in self.events:
                if e.get("event") == "led_state" and e.get("state") not in ("measuring", "no contact", "error", "off") \
                        and e["process_ms"] >= first_window["process_ms"]:
                    led_category = e
                    break
        stopped = next((e for e in self.events if e.get("event") == "stopped"), {})
        hours = (end_t - first_t) / 3600
        wakeups, involuntary, by_name = self.switches_since(90)
        # The emulated sensor's own CPU (it computes samples when read, at an even rate): its share of the steady
        # part is taken out, leaving what the daemon would cost with a real MAX30102.
        emulator_ms = stopped.get("emulator_cpu_ms") or 0.0
        emulator_steady_s = emulator_ms / 1000 * (end_t - first_t) / end_t if end_t > 0 else 0.0
        cpu_steady = 100 * (end_cpu - first_cpu) / (end_t - first_t)
        cpu_daemon = 100 * ((end_cpu - first_cpu) - emulator_steady_s) / (end_t - first_t)
        return {
            "name": self.name,
            "seconds": round(end_t, 1),
            "rss_steady_mb": round(statistics.median(s[1]["VmRSS"] for s in steady) / 1024, 2),
            "rss_peak_mb": round(end_status["VmHWM"] / 1024, 2),
            # VmRSS = private memory (RssAnon: heap, stacks, relocated data) + pages of the binary and its
            # libraries mapped from the page cache (RssFile: clean, shared, reclaimable).
            "rss_anon_steady_mb": round(statistics.median(s[1]["RssAnon"] for s in steady) / 1024, 2),
            "rss_anon_max_mb": round(max(s[1]["RssAnon"] for s in samples) / 1024, 2),
            "rss_file_max_mb": round(max(s[1]["RssFile"] for s in samples) / 1024, 2),
            "threads": end_status["Threads"],
            "cpu_percent_whole_run": round(100 * end_cpu / end_t, 3),
            "cpu_percent_steady": round(cpu_steady, 3),
            "cpu_percent_steady_without_emulator": round(cpu_daemon, 3),
            "emulator_cpu_ms": emulator_ms,
            "wakeups_per_s": round(wakeups, 2),
            "involuntary_switches_per_s": round(involuntary, 2),
            "wakeups_by_thread": {name: round(rate, 2) for name, rate in sorted(by_name.items(), key=lambda x: -x[1])},
            "write_bytes_per_hour": round((end_io["write_bytes"] - first_io["write_bytes"]) / hours) if hours > 0 else None,
            "wchar_per_hour": round((end_io["wchar"] - first_io["wchar"]) / hours) if hours > 0 else None,
            "windows": len(windows),
            "first_window_end_s": first_window and first_window["end_s"],
            "first_window_emitted_at_data_s": first_window and first_window["t"],
            "first_category_after_window_ms": round(led_category["process_ms"] - first_window["process_ms"], 3)
            if led_category else None,
            "lost_samples": stopped.get("lost_samples"),
            "stopped_reason": stopped.get("reason"),
            "unwritten": stopped.get("unwritten_measurements"),
        }


def realtime(binary: str, work: str, minutes: float, only_mqtt: bool = False) -> list[dict]:
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)
    token = os.path.join(work, "token")
    # 0600: the daemon refuses a token file that group or others can read (issue 14).
    with open(os.open(token, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write("bench-token\n")
    sync_config = f"""[sync]
hub = "http://127.0.0.1:{silent.getsockname()[1]}"
insecure_http = true
token_file = "{token}"
interval_s = 60
"""
    # Home Assistant over MQTT with the broker away: a port nobody listens on (every connect refused, retried
    # with backoff) and a listener that accepts and never answers (CONNECT waits for its CONNACK timeout).
    refused = socket.socket()
    refused.bind(("127.0.0.1", 0))
    refused_port = refused.getsockname()[1]
    refused.close()
    mqtt_config = "[mqtt]\nbroker = \"mqtt://127.0.0.1:{port}\"\ninsecure = true\n"
    # And connected to a real mosquitto (when installed: scripts/setup --test), to see what publishing costs.
    broker = None
    if os.path.exists("/usr/sbin/mosquitto"):
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        broker_port = probe.getsockname()[1]
        probe.close()
        broker_config = os.path.join(work, "mosquitto.conf")
        with open(broker_config, "w") as f:
            f.write(f"listener {broker_port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
                    f"user {pwd.getpwuid(os.getuid()).pw_name}\n")
        broker = subprocess.Popen(["/usr/sbin/mosquitto", "-c", broker_config], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
    variants = [
        ("desk", ["--mode", "desk", "--device", "bench-desk"], None),
        ("wearable", ["--mode", "wearable", "--device", "bench-wear"], None),
        ("desk+sync (hub not answering)", ["--device", "bench-sync"], sync_config),
        ("desk+mqtt (broker refusing)", ["--device", "bench-mqtt"], mqtt_config.format(port=refused_port)),
        ("desk+mqtt (broker silent)", ["--device", "bench-mqtt"], mqtt_config.format(port=silent.getsockname()[1])),
    ]
    if broker:
        variants.append(("desk+mqtt (broker up)", ["--device", "bench-mqtt"], mqtt_config.format(port=broker_port)))
    if only_mqtt:
        variants = [v for v in variants if v[0] == "desk" or "mqtt" in v[0]]
    # One after the other: a device runs one daemon, and two daemons mapping the same binary would share its pages
    # (the kernel then keeps pages another process maps, which changes what each one's RSS counts).
    reports = []
    for name, extra, config in variants:
        print(f"bench-daemon: {name}: real time on the simulated board for {minutes:g} min", file=sys.stderr)
        run = Run(name, binary, work, extra, config=config)
        deadline = time.monotonic() + minutes * 60
        while time.monotonic() < deadline:
            run.sample()
            time.sleep(1)
        run.sample()
        code = run.stop()
        report = run.report()
        report["exit"] = code
        reports.append(report)
    silent.close()
    if broker:
        broker.kill()
        broker.wait()
    return reports


def sizes(binary: str, work: str) -> dict:
    stripped = os.path.join(work, "stressmon.stripped")
    subprocess.run(["strip", "-o", stripped, binary], check=True)
    libs = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    return {
        "binary_mb": round(os.path.getsize(binary) / 1e6, 2),
        "stripped_mb": round(os.path.getsize(stripped) / 1e6, 2),
        "shared_libraries": len([line for line in libs.splitlines() if "=>" in line]),
        "links_full_foundation": "libFoundation.so" in libs,
    }


def stress_level(hrv: float, hr: float, baseline_hrv: float, resting_hr: float) -> float:
    """DESIGN.md's formula, written again independently to check the stored personal-baseline rows."""
    n_hrv = max(0.0, (baseline_hrv - hrv) / baseline_hrv)
    n_hr = max(0.0, (hr - resting_hr) / resting_hr)
    return min(100.0, max(0.0, 100 * (0.7 * n_hrv ** 0.8 + 0.3 * math.atan(2 * n_hr) / (math.pi / 2))))


def equivalence(binary: str, data: str, work: str, hours: float) -> dict:
    name = "heartpy_data3"
    duration_s = json.load(open(os.path.join(data, name + ".json")))["duration_s"]
    copies = math.ceil(hours * 3600 / duration_s)
    path, _, _ = repeat_recording(data, work, name, copies, f"{hours:g}h")
    db = os.path.join(work, "replay.db")
    print(f"bench-daemon: {hours:g} h replay ({copies} x {name}) at --speed max, then analyze", file=sys.stderr)
    started = time.monotonic()
    replay = subprocess.run([binary, "run", "--board", "sim", "--source", "replay:" + path, "--speed", "max",
                             "--db", db, "--device", "bench-replay", "--json"], cwd=work, capture_output=True, text=True)
    replay_seconds = time.monotonic() - started
    if replay.returncode != 0:
        return {"error": f"replay exit {replay.returncode}: {replay.stderr[-500:]}"}
    stopped = json.loads(replay.stdout.strip().splitlines()[-1])
    started = time.monotonic()
    analyzed = subprocess.run([binary, "analyze", path, "--json"], capture_output=True, text=True)
    analyze_seconds = time.monotonic() - started
    windows = json.loads(analyzed.stdout)["windows"]
    export = os.path.join(work, "replay.json")
    subprocess.run([binary, "export", "--db", db, "--out", export], check=True, capture_output=True)
    document = json.load(open(export))
    rows = sorted(document["measurements"] if isinstance(document, dict) else document, key=lambda r: r["window_end"])
    mismatches = []
    personal = 0
    origin = rows[0]["window_end"] - windows[0]["end_s"] if rows and windows else 0
    for row, window in zip(rows, windows):
        problems = []
        if abs(row["window_end"] - origin - window["end_s"]) > 1e-3:
            problems.append("time")
        for key, tolerance in (("sdnn_ms", 0.005), ("rmssd_ms", 0.005), ("heart_rate_bpm", 0.005)):
            a, b = row.get(key), window.get(key)
            if (a is None) != (b is None) or (a is not None and abs(a - b) > tolerance):
                problems.append(key)
        if row["quality"] != window["quality"] or row["beats"] != window["beats"] or row["rejected_beats"] != window["rejected"]:
            problems.append("quality/beats")
        if row["baseline_personal"]:
            personal += 1
            if row.get("stress_level") is not None:
                expected = stress_level(row["sdnn_ms"], row["heart_rate_bpm"], row["baseline_hrv_ms"],
                                        row["resting_heart_rate_bpm"])
                if abs(expected - row["stress_level"]) > 1e-6:
                    problems.append("personal level")
        else:
            a, b = row.get("stress_level"), window.get("stress_level")
            if (a is None) != (b is None) or (a is not None and abs(a - b) > 0.05):
                problems.append("level")
        if problems:
            mismatches.append((window["end_s"], problems))
    return {
        "hours": hours,
        "samples": stopped.get("samples"),
        "replay_seconds": round(replay_seconds, 1),
        "replay_samples_per_s": round(stopped.get("samples", 0) / replay_seconds),
        "analyze_seconds": round(analyze_seconds, 1),
        "windows_analyze": len(windows),
        "windows_stored": len(rows),
        "rows_with_personal_baseline": personal,
        "mismatches": len(mismatches),
        "first_mismatches": mismatches[:5],
        "equivalent": len(rows) == len(windows) and not mismatches,
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--minutes", type=float, default=5)
    parser.add_argument("--hours", type=float, default=24)
    parser.add_argument("--only", choices=["realtime", "replay", "mqtt"])
    args = parser.parse_args()

    result = {"sizes": sizes(args.binary, args.work)}
    s = result["sizes"]
    print(f"Release binary: {s['binary_mb']} MB, stripped {s['stripped_mb']} MB, {s['shared_libraries']} shared "
          f"libraries, full Foundation linked: {s['links_full_foundation']}", flush=True)
    if args.only in (None, "realtime", "mqtt"):
        result["realtime"] = realtime(args.binary, args.work, args.minutes, only_mqtt=args.only == "mqtt")
        print(f"\nReal time on the simulated board, 100 samples/s, {args.minutes:g} min each "
              f"(targets: RSS <= {TARGET_RSS_MB} MB, CPU <= {TARGET_CPU_PERCENT} %, first category <= 1 s):")
        columns = [("run", "name", 32, "<"), ("RSS steady", "rss_steady_mb", 10, ">"),
                   ("RSS peak", "rss_peak_mb", 9, ">"), ("anon st.", "rss_anon_steady_mb", 8, ">"),
                   ("anon max", "rss_anon_max_mb", 8, ">"), ("file max", "rss_file_max_mb", 8, ">"),
                   ("CPU %", "cpu_percent_whole_run", 7, ">"), ("CPU % 90s+", "cpu_percent_steady", 10, ">"),
                   ("w/o emu", "cpu_percent_steady_without_emulator", 8, ">"), ("wake/s", "wakeups_per_s", 7, ">"),
                   ("invol/s", "involuntary_switches_per_s", 7, ">"), ("thr", "threads", 4, ">"),
                   ("device B/h", "write_bytes_per_hour", 11, ">"), ("write() B/h", "wchar_per_hour", 12, ">"),
                   ("1st cat ms", "first_category_after_window_ms", 10, ">"), ("lost", "lost_samples", 5, ">")]
        print(" ".join(f"{title:{align}{width}}" for title, _, width, align in columns))
        for r in result["realtime"]:
            print(" ".join(f"{r[key]!s:{align}{width}}" for _, key, width, align in columns), flush=True)
        print("(RSS in MB. 'anon' is the process's own memory; 'file' the binary's and libraries' pages mapped from "
              "the page cache,\n sampled once a second. The peak is file pages touched at start-up: see "
              "docs/daemon.md.\n 'w/o emu': steady CPU without the emulated sensor's own share (emulator_cpu_ms). "
              "'wake/s': voluntary\n"
              " context switches per second summed over the threads, from 90 s on; 'invol/s' preemptions, which depend\n"
              " on the machine's load.)")
        for r in result["realtime"]:
            threads = ", ".join(f"{name} {rate}" for name, rate in r["wakeups_by_thread"].items() if rate >= 0.05)
            print(f"  {r['name']}: wake-ups/s by thread: {threads}")
    if args.only in (None, "replay"):
        result["equivalence"] = equivalence(args.binary, args.data, args.work, args.hours)
        e = result["equivalence"]
        if "error" in e:
            print(f"\nReplay equivalence: {e['error']}")
        else:
            print(f"\n{e['hours']:g}-hour replay at --speed max: {e['samples']} samples in {e['replay_seconds']} s "
                  f"({e['replay_samples_per_s']} samples/s); analyze {e['analyze_seconds']} s. Windows: stored "
                  f"{e['windows_stored']}, analyze {e['windows_analyze']}; {e['rows_with_personal_baseline']} rows "
                  f"against the personal baseline; mismatches {e['mismatches']}: "
                  f"{'EQUIVALENT' if e['equivalent'] else 'DIFFERENT'}")
    print("\n" + json.dumps(result))
    failed = []
    for r in result.get("realtime", []):
        if r["name"] in ("desk", "wearable"):
            if r["rss_steady_mb"] > TARGET_RSS_MB:
                failed.append(f"{r['name']} RSS steady")
            if r["rss_peak_mb"] > TARGET_RSS_MB:
                failed.append(f"{r['name']} RSS peak")
            if r["cpu_percent_steady"] > TARGET_CPU_PERCENT:
                failed.append(f"{r['name']} CPU")
            if r["first_category_after_window_ms"] is None or r["first_category_after_window_ms"] > TARGET_FIRST_CATEGORY_MS:
                failed.append(f"{r['name']} first category")
            if r["wakeups_per_s"] > TARGET_WAKEUPS[r["name"]]:
                failed.append(f"{r['name']} wake-ups")
            if r["name"] == "wearable" and r["cpu_percent_steady_without_emulator"] > TARGET_WEARABLE_CPU_PERCENT:
                failed.append("wearable CPU")
    if "equivalence" in result and not result["equivalence"].get("equivalent"):
        failed.append("replay equivalence")
    if failed:
        print("bench-daemon: targets missed: " + ", ".join(failed), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
