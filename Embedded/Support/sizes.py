#!/usr/bin/env python3
"""The size report of scripts/build-embedded: section sizes of each firmware image (llvm-size -A), .text split by
where it comes from (the linker map: the core's modules, the firmware's own code, picolibc, libgcc's soft float),
and the core's state in bytes (MemoryLayout on the target, written by the firmware's --layout run).

Usage: sizes.py JSON(true|false) MODULE...   (run from the repository root)
"""
import json
import os
import re
import shutil
import subprocess
import sys

ARCHES = [("armv7em", "Cortex-M4F, armv7em-none-none-eabi"), ("aarch64", "Cortex-A53, aarch64-none-none-elf")]


def tool(name):
    swiftc = shutil.which("swiftc")
    return os.path.join(os.path.dirname(os.path.realpath(swiftc)), name)


def sections(elf):
    out = subprocess.run([tool("llvm-objdump"), "-h", elf], check=True, capture_output=True, text=True).stdout
    sizes = {}
    for line in out.splitlines():  # "Idx Name Size VMA Type"
        parts = line.split()
        if len(parts) >= 4 and parts[0].isdigit():
            sizes[parts[1]] = int(parts[2], 16)
    return sizes


def text_by_origin(map_path, modules):
    """Bytes of .text input sections per origin, from a GNU ld or an LLVM lld map."""
    origin_of = {m + ".o": m for m in modules}
    origin_of["Firmware.o"] = "firmware"
    totals = {}
    text = open(map_path, encoding="utf-8", errors="replace").read()
    if text.lstrip().startswith("VMA"):  # lld: "VMA LMA Size Align Out In Symbol"
        pattern = re.compile(r"^\s*[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s+(\S+):\((\.text[^)]*)\)", re.M)
        entries = [(int(size, 16), path) for size, path, _ in pattern.findall(text)]
    else:  # GNU ld: " .text.name  0xADDR  0xSIZE path" (the name may sit alone on the line before)
        start = text.find("Linker script and memory map")
        pattern = re.compile(r"^ \.text(?:\.\S*)?\s*\n?\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+)", re.M)
        entries = [(int(size, 16), path) for size, path in pattern.findall(text[start:])]
    for size, path in entries:
        name = os.path.basename(path.split("(")[0])
        if name in origin_of:
            origin = origin_of[name]
        elif "libgcc" in path or "clang_rt" in path:
            origin = "libgcc"
        elif "picolibc" in path or name.startswith("lib"):
            origin = "picolibc"
        else:
            origin = "startup"
        totals[origin] = totals.get(origin, 0) + size
    return totals


def layout(path):
    """The state sizes the firmware wrote with --layout: "L detector N cleaner N windowing N analyzer N"."""
    if not os.path.exists(path):
        return {}
    words = open(path).read().split()
    return {words[i]: int(words[i + 1]) for i in range(1, len(words) - 1, 2)}


def main():
    as_json = sys.argv[1] == "true"
    modules = sys.argv[2:]
    report = {}
    for arch, description in ARCHES:
        out = os.path.join(".build-embedded", arch)
        elf = os.path.join(out, "firmware.elf")
        s = sections(elf)
        origins = text_by_origin(os.path.join(out, "firmware.map"), modules)
        report[arch] = {
            "target": description,
            "text": s.get(".text", 0), "rodata": s.get(".rodata", 0) + s.get(".ARM.exidx", 0),
            "data": s.get(".data", 0), "bss": s.get(".bss", 0),
            "text_core": sum(origins.get(m, 0) for m in modules),
            "text_by_origin": origins,
            "state_bytes": layout(os.path.join(out, "layout.txt")),
        }
    if as_json:
        print(json.dumps(report, sort_keys=True))
        return
    print(f"{'target':34} {'.text':>8} {'.rodata':>8} {'.data':>6} {'.bss':>6}   core .text   state (bytes)")
    for arch, r in report.items():
        state = ", ".join(f"{k} {v}" for k, v in r["state_bytes"].items())
        print(f"{r['target']:34} {r['text']:8} {r['rodata']:8} {r['data']:6} {r['bss']:6}   {r['text_core']:10}   {state}")
    for arch, r in report.items():
        parts = ", ".join(f"{k} {v}" for k, v in sorted(r["text_by_origin"].items(), key=lambda kv: -kv[1]))
        print(f"  {arch} .text by origin: {parts}")


if __name__ == "__main__":
    main()
