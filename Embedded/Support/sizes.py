#!/usr/bin/env python3
"""The size report of scripts/build-embedded: section sizes of each firmware image (llvm-size -A), .text split by
where it comes from (the linker map: the core's modules, the firmware's own code, picolibc, libgcc's soft float),
the core's .text by source file and its largest functions, and the core's state in bytes (MemoryLayout on the
target, written by the firmware's --layout run).

A function's source file is found from its demangled name: the file of its module that declares or extends its
type and defines a member of that name. Generic standard-library code specialised for the core (array growth,
pointer moves) and the Embedded runtime's allocation and reference counting are linked once, from whichever core
module comes first, and are counted together as "(stdlib generics and runtime)".

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


def text_sections(map_path):
    """(size, object path, section name) of every .text input section linked, from a GNU ld or an LLVM lld map."""
    text = open(map_path, encoding="utf-8", errors="replace").read()
    if text.lstrip().startswith("VMA"):  # lld: "VMA LMA Size Align Out In Symbol"
        pattern = re.compile(r"^\s*[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s+(\S+):\((\.text[^)]*)\)", re.M)
        return [(int(size, 16), path, section) for size, path, section in pattern.findall(text)]
    # GNU ld: " .text.name  0xADDR  0xSIZE path" (the name may sit alone on the line before)
    start = text.find("Linker script and memory map")
    pattern = re.compile(r"^ (\.text(?:\.\S*)?)\s*\n?\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+)", re.M)
    return [(int(size, 16), path, section) for section, size, path in pattern.findall(text[start:])]


def text_by_origin(map_path, modules):
    """Bytes of .text input sections per origin."""
    origin_of = {m + ".o": m for m in modules}
    origin_of["Firmware.o"] = "firmware"
    totals = {}
    for size, path, _ in text_sections(map_path):
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


STDLIB_TYPES = {"Array", "ArraySlice", "ContiguousArray", "Collection", "BidirectionalCollection",
                "RandomAccessCollection", "RangeReplaceableCollection", "MutableCollection", "Sequence",
                "UnsafeMutablePointer", "UnsafePointer", "UnsafeMutableBufferPointer", "UnsafeBufferPointer",
                "Double", "Float", "Int", "Int32", "Int64", "OptionSet<>", "FixedWidthInteger", "BinaryInteger"}
STDLIB = "(stdlib generics and runtime)"
PREFIX = re.compile(r"^(specialized |merged |outlined (init with copy|copy|destroy|assign with (take|copy)|retain|"
                    r"release|consume|variable #\d+)( of)? |(closure|\w+) #\d+ (\([^)]*\) )?in |static )+")


def source_index(modules):
    """Per module: {file: text} of its Swift sources."""
    index = {}
    for module in modules:
        folder = os.path.join("Sources", module)
        index[module] = {name: open(os.path.join(folder, name), encoding="utf-8").read()
                         for name in sorted(os.listdir(folder)) if name.endswith(".swift")}
    return index


def source_file(module, name, index):
    """The source file (module/file.swift) a demangled core function comes from; module/(machine-outlined
    fragments) for the pieces -Osize's outliner shares between functions."""
    plain = PREFIX.sub("", name)
    head = plain.split("(")[0].split(" ")[0].split("<")[0]
    parts = [p for p in head.split(".") if p]
    types = [p for p in parts if p[:1].isupper() or p.startswith("_")]
    if not types or types[0] in STDLIB_TYPES or types[0].startswith("_") or plain.startswith("swift_"):
        return STDLIB
    member = next((p for p in parts[parts.index(types[-1]) + 1:]), "")
    owner = re.compile(r"\b(struct|enum|class|extension|actor|protocol)\s+(\w+\.)*" + re.escape(types[-1]) + r"\b")
    declares = [f for f, text in index[module].items() if owner.search(text)]
    if not declares:  # a specialisation of another module's generic code, emitted where it is used
        for other in index:
            declares = [f for f, text in index[other].items() if owner.search(text)]
            if declares:
                module = other
                break
    if member:
        word = r"init\(" if member == "init" else r"(func|var|let|case)\s+" + re.escape(member.split(" ")[0]) + r"\b"
        defines = [f for f in declares if re.search(word, index[module][f])]
        if defines:
            return module + "/" + defines[0]
    return module + "/" + (declares[0] if declares else "(machine-outlined fragments)")


def core_functions(map_path, modules):
    """[(bytes, module, demangled name)] of the core's linked functions, largest first."""
    rows = [(size, os.path.basename(path.split("(")[0])[:-2], section[len(".text."):])
            for size, path, section in text_sections(map_path)
            if os.path.basename(path.split("(")[0])[:-2] in modules and section.startswith(".text.") and size]
    names = subprocess.run([tool("swift-demangle"), "-simplified"], input="\n".join(r[2] for r in rows),
                           check=True, capture_output=True, text=True).stdout.splitlines()
    return sorted(((size, module, name) for (size, module, _), name in zip(rows, names)), reverse=True)


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
    index = source_index(modules)
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
        functions = core_functions(os.path.join(out, "firmware.map"), modules)
        by_file = {}
        for size, module, name in functions:
            path = source_file(module, name, index)
            by_file[path] = by_file.get(path, 0) + size
        report[arch]["text_core_by_file"] = by_file
        report[arch]["text_core_largest"] = [[size, module, name] for size, module, name in functions[:25]]
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
    for arch, r in report.items():
        files = sorted(r["text_core_by_file"].items(), key=lambda kv: -kv[1])
        print(f"  {arch} core .text by source file (largest 15 of {len(files)}): "
              + ", ".join(f"{path} {size}" for path, size in files[:15]))
        print(f"  {arch} largest core functions: "
              + "; ".join(f"{name} {size}" for size, _, name in r["text_core_largest"][:10]))


if __name__ == "__main__":
    main()
