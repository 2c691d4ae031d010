#!/usr/bin/env python3
"""timeline-svg.py TIMELINE.json OUT.svg [FROM_CYCLE TO_CYCLE] - draws a timeline written by
--timeline (Chrome trace-event JSON) as an SVG picture: one lane per track with its spans, then
the counters as step plots. For documentation where the Perfetto UI itself cannot be shown
(this machine has no network to load ui.perfetto.dev); Perfetto shows the same tracks
interactively."""
import json
import sys
from xml.sax.saxutils import escape

COLOURS = ["#6c8ebf", "#82b366", "#d6b656", "#b85450", "#9673a6", "#d79b00", "#1ba1e2"]


def main():
    if len(sys.argv) not in (3, 5):
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        events = json.load(f)["traceEvents"]
    lo = int(sys.argv[3]) if len(sys.argv) == 5 else None
    hi = int(sys.argv[4]) if len(sys.argv) == 5 else None
    tracks, spans, counters = {}, [], {}
    for e in events:
        if e["ph"] == "M" and e["name"] == "thread_name":
            tracks[e["tid"]] = e["args"]["name"]
        elif e["ph"] == "X":
            spans.append((e["tid"], e["args"]["cycle"], e["args"]["cycles"], e["name"]))
        elif e["ph"] == "C":
            counters.setdefault(e["name"], []).append((e["ts"], e["args"]["value"]))
    if not spans:
        sys.exit("timeline-svg.py: no spans in " + sys.argv[1])
    # Counter times are microseconds: back to cycles through a span's own ts/cycle ratio.
    x0 = next(e for e in events if e["ph"] == "X" and e["args"]["cycle"] > 0)
    us_per_cycle = x0["ts"] / x0["args"]["cycle"]
    end = max(c + d for _, c, d, _ in spans)
    lo = 0 if lo is None else lo
    hi = end if hi is None else hi
    width, left, lane = 1100, 210, 26
    scale = (width - left - 10) / max(1, hi - lo)
    tids = sorted(tracks)
    cnames = sorted(counters)
    height = 40 + lane * len(tids) + 42 * len(cnames) + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="8" y="18" font-size="13">{escape(sys.argv[1].split("/")[-1])}: cycles '
           f'{lo} to {hi}</text>']
    y = 30
    for k, tid in enumerate(tids):
        out.append(f'<text x="8" y="{y + 17}">{escape(tracks[tid])}</text>')
        out.append(f'<rect x="{left}" y="{y + 2}" width="{width - left - 10}" height="{lane - 4}" '
                   f'fill="#f4f4f4"/>')
        for t, c, d, name in spans:
            if t != tid or c + d < lo or c > hi:
                continue
            x = left + (max(c, lo) - lo) * scale
            w = max(0.6, (min(c + d, hi) - max(c, lo)) * scale)
            out.append(f'<rect x="{x:.2f}" y="{y + 3}" width="{w:.2f}" height="{lane - 6}" '
                       f'fill="{COLOURS[k % len(COLOURS)]}" stroke="white" stroke-width="0.3">'
                       f'<title>{escape(name)} ({d} cycles from {c})</title></rect>')
            if w > 60:
                out.append(f'<text x="{x + 3:.2f}" y="{y + 17}" fill="white" font-size="9">'
                           f'{escape(name[:int(w / 5.5)])}</text>')
        y += lane
    y += 8
    for name in cnames:
        pts = sorted(counters[name])
        top = max(v for _, v in pts) or 1
        out.append(f'<text x="8" y="{y + 22}">{escape(name)} (max {top:g})</text>')
        # One column per pixel: the value entering it, its extremes (a one-cycle token shows as
        # a spike) and the value leaving it, so the drawing stays small however many changes.
        cols, last = {}, 0.0
        for ts, v in pts:
            c = ts / us_per_cycle
            if c < lo:
                last = v
                continue
            if c > hi:
                break
            col = int((c - lo) * scale)
            if col not in cols:
                cols[col] = [v, v, v, v]
            e = cols[col]
            e[1], e[2], e[3] = min(e[1], v), max(e[2], v), v
        path, prev = [(left, last)], last
        for col in sorted(cols):
            first, mn, mx, fin = cols[col]
            x = left + col
            path += [(x, prev), (x, first), (x, mx), (x, mn), (x, fin)]
            prev = fin
        path.append((width - 10, prev))
        d = " ".join(f"{x:.1f},{y + 36 - 32 * v / top:.1f}" for x, v in path)
        out.append(f'<polyline points="{d}" fill="none" stroke="#444" stroke-width="1"/>')
        y += 42
    out.append("</svg>")
    with open(sys.argv[2] + ".tmp", "w") as f:
        f.write("\n".join(out) + "\n")
    import os
    os.replace(sys.argv[2] + ".tmp", sys.argv[2])


if __name__ == "__main__":
    main()
