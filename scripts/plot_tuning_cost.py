#!/usr/bin/env python3
"""Plots bench/tuning_cost's JSON as an SVG (no dependencies): one panel per model, the
model-level fraction of the oracle against evaluations per operator (log scale), one line per
search policy.

    tuning_cost > tuning_cost.json
    scripts/plot_tuning_cost.py tuning_cost.json docs/images/tuning_cost.svg
"""
import json
import math
import sys

COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2"]


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: plot_tuning_cost.py IN.json OUT.svg\n")
        return 2
    with open(argv[1]) as f:
        data = json.load(f)
    rows = data["results"]
    models = list(dict.fromkeys(r["model"] for r in rows))
    searches = list(dict.fromkeys(r["search"] for r in rows))
    budgets = sorted({r["evaluations_per_operator"] for r in rows})
    lo = min(r["model_fraction_of_oracle"] for r in rows)
    lo = math.floor(min(lo, 0.9) * 20) / 20
    cols = 3
    pw, ph = 300, 220
    left, top = 50, 40
    rows_n = (len(models) + cols - 1) // cols
    width = cols * (pw + left) + 20
    height = rows_n * (ph + top + 30) + 60 + 18 * len(searches)
    out = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
           "font-family='sans-serif' font-size='11'>",
           "<rect width='100%' height='100%' fill='white'/>",
           f"<text x='10' y='16' font-size='13'>Model-level fraction of the oracle against "
           f"evaluations per operator (simulated, Ascend910A; default: {data['default_search']})"
           "</text>"]
    lb, hb = math.log(budgets[0]), math.log(budgets[-1])

    def x_of(b, x0):
        return x0 + (math.log(b) - lb) / (hb - lb if hb > lb else 1) * pw

    def y_of(v, y0):
        return y0 + ph - (v - lo) / (1.0 - lo) * ph

    for i, m in enumerate(models):
        x0 = left + (i % cols) * (pw + left)
        y0 = 40 + (i // cols) * (ph + top + 30)
        out.append(f"<text x='{x0}' y='{y0 - 6}' font-weight='bold'>{m}</text>")
        out.append(f"<rect x='{x0}' y='{y0}' width='{pw}' height='{ph}' fill='none' "
                   "stroke='#999'/>")
        steps = int(round((1.0 - lo) / 0.05))
        for k in range(steps + 1):
            v = lo + k * 0.05
            y = y_of(v, y0)
            out.append(f"<line x1='{x0}' x2='{x0 + pw}' y1='{y:.1f}' y2='{y:.1f}' "
                       "stroke='#eee'/>")
            out.append(f"<text x='{x0 - 4}' y='{y + 4:.1f}' text-anchor='end'>{v:.2f}</text>")
        y99 = y_of(0.99, y0)
        out.append(f"<line x1='{x0}' x2='{x0 + pw}' y1='{y99:.1f}' y2='{y99:.1f}' "
                   "stroke='#999' stroke-dasharray='4 3'/>")
        for b in budgets:
            x = x_of(b, x0)
            out.append(f"<text x='{x:.1f}' y='{y0 + ph + 14}' text-anchor='middle'>{b}</text>")
        for j, s in enumerate(searches):
            pts = sorted((r["evaluations_per_operator"], r["model_fraction_of_oracle"])
                         for r in rows if r["model"] == m and r["search"] == s)
            if not pts:
                continue
            c = COLOURS[j % len(COLOURS)]
            path = " ".join(f"{x_of(b, x0):.1f},{y_of(max(v, lo), y0):.1f}" for b, v in pts)
            out.append(f"<polyline points='{path}' fill='none' stroke='{c}' stroke-width='1.6'/>")
            for b, v in pts:
                out.append(f"<circle cx='{x_of(b, x0):.1f}' cy='{y_of(max(v, lo), y0):.1f}' "
                           f"r='2.2' fill='{c}'/>")
    ly = 40 + rows_n * (ph + top + 30)
    for j, s in enumerate(searches):
        c = COLOURS[j % len(COLOURS)]
        y = ly + 18 * j
        out.append(f"<line x1='{left}' x2='{left + 24}' y1='{y}' y2='{y}' stroke='{c}' "
                   "stroke-width='2'/>")
        out.append(f"<text x='{left + 30}' y='{y + 4}'>{s}</text>")
    out.append(f"<text x='{left + 250}' y='{ly + 4}'>dashed: 0.99 (the target at 32)</text>")
    out.append("</svg>")
    with open(argv[2], "w") as f:
        f.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
