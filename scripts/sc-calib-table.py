#!/usr/bin/env python3
"""sc-calib-table.py - the calibration table of docs/sc.md from scripts/sc-calibrate.sh's JSON
lines: per configuration, every workload's rtl and sc cycles, the error, and the ratio of
simulated cycles per second (sc over rtl, measured back to back in one run), from the wall
time of the device runs and from their CPU time."""
import json
import sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
configs = []
for r in rows:
    if r["config_file"] not in configs:
        configs.append(r["config_file"])
worst = {}
for c in configs:
    print(f"\n#### {c}\n")
    print("| workload | rtl cycles | sc cycles | error | speed, wall (sc/rtl cycles per s) "
          "| speed, CPU (sc/rtl cycles per CPU s) |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        if r["config_file"] != c:
            continue
        name = r["bench"] + (f" {r['layer']}" if "layer" in r else "")
        rc, sc = r["rtl_cycles"], r["sc_cycles"]
        err = (sc - rc) / rc
        rs, ss = r.get("rtl_seconds", 0), r.get("sc_seconds", 0)
        # Random programs run in the sanitized test binary: their times say nothing of speed.
        speed = f"{(sc / ss) / (rc / rs):.0f}x" if rs and ss and r["bench"] != "random" else "-"
        rp, sp = r.get("rtl_cpu_seconds", 0), r.get("sc_cpu_seconds", 0)
        cpu = f"{(sc / sp) / (rc / rp):.0f}x" if rp and sp else "-"
        extra = ""
        if r["bench"] == "random":
            seed = f", seed {r['worst_seed']}" if r.get("worst_abs_error") and "worst_seed" in r else ""
            extra = (f" (mean {100 * r['mean_abs_error']:.2f} %, "
                     f"worst {100 * r['worst_abs_error']:.2f} %{seed})")
            key = "random program (worst)"
            worst[key] = max(worst.get(key, 0), r["worst_abs_error"])
        else:
            key = "resnet18 whole" if r["bench"] == "resnet18" and "layer" not in r else (
                "model" if r["bench"] == "model" else "benchmark layer")
            worst[key] = max(worst.get(key, 0), abs(err))
        print(f"| {name} | {rc:,} | {sc:,} | {100 * err:+.3f} %{extra} | {speed} | {cpu} |")
print("\n| worst over all configurations | error |\n|---|---:|")
for k, v in worst.items():
    print(f"| {k} | {100 * v:.3f} % |")
