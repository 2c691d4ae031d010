/* sweep_report.c - what a sweep leaves for people: results.csv and results.jsonl (one row per
 * point and workload), pareto.svg (latency against LUTs and against DSPs, log scales, the Pareto
 * front and the parts' limits) and report.md (the best point for each part, the rtl sample).
 *
 * Every file is written to a temporary name and renamed, so a reader never sees half of one.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/sweep.h"

static void seterr(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

static FILE *open_tmp(const char *out, const char *name, char *tmp, size_t n, char *err,
                      size_t errlen) {
  snprintf(tmp, n, "%s/%s.tmp", out, name);
  FILE *f = fopen(tmp, "w");
  if (!f)
    seterr(err, errlen, "cannot write %s", tmp);
  return f;
}

static int close_rename(FILE *f, const char *tmp, const char *out, const char *name, char *err,
                        size_t errlen) {
  char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/%s", out, name);
  if (ferror(f) | (fclose(f) != 0) || rename(tmp, path) != 0) {
    unlink(tmp);
    seterr(err, errlen, "cannot write %s", path);
    return -1;
  }
  return 0;
}

/* The distinct resource estimates of the spec's parts (xc7, xcup, xcup-nouram), and for each
 * the index of its first part. */
static int families(const sweep_spec *s, int *first) {
  int n = 0;
  for (int p = 0; p < s->nparts; p++) {
    int seen = 0;
    for (int q = 0; q < n; q++)
      if (strcmp(s->parts[first[q]]->estimate, s->parts[p]->estimate) == 0)
        seen = 1;
    if (!seen)
      first[n++] = p;
  }
  return n;
}

static void num_or_empty(FILE *f, double v, const char *fmt) {
  if (v >= 0 && isfinite(v))
    fprintf(f, fmt, v);
}

static void json_num(FILE *f, const char *k, double v, int comma) {
  if (v >= 0 && isfinite(v))
    fprintf(f, "%s\"%s\":%.10g", comma ? "," : "", k, v);
  else
    fprintf(f, "%s\"%s\":null", comma ? "," : "", k);
}

static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      fprintf(f, "\\%c", *s);
    else if ((unsigned char)*s < 0x20)
      fprintf(f, "\\u%04x", *s);
    else
      fputc(*s, f);
  }
  fputc('"', f);
}

static void csv_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s == '\n' ? ' ' : *s, f);
  }
  fputc('"', f);
}

static const char *const res_names[5] = {"lut", "ff", "dsp", "bram36", "uram"};

static int write_csv(const sweep_spec *s, const char *out, const sweep_row *rows, size_t n,
                     char *err, size_t errlen) {
  char tmp[PATH_MAX + 64];
  int first[SWEEP_MAX_PARTS], nf = families(s, first);
  FILE *f = open_tmp(out, "results.csv", tmp, sizeof tmp, err, errlen);
  if (!f)
    return -1;
  fprintf(f, "id,label,shape,LOG_BATCH,LOG_BLOCK_IN,LOG_BLOCK_OUT,LOG_INP_BUFF_SIZE,"
             "LOG_WGT_BUFF_SIZE,LOG_ACC_BUFF_SIZE,LOG_UOP_BUFF_SIZE,LOG_BUS_WIDTH,DRAM_LATENCY,"
             "CLOCK_MHZ,model_key,workload,backend,ok,cycles,latency_ms,compute_bound,utilisation,"
             "macs,bytes_read,bytes_written,rtl_cycles,rtl_diff,sc_error_bound,rtl_within_bound");
  for (int q = 0; q < nf; q++)
    for (int r = 0; r < 5; r++)
    {
      /* CSV column names without '-': lut_xcup_nouram. */
      char col[64];
      snprintf(col, sizeof col, "%s_%s", res_names[r], s->parts[first[q]]->estimate);
      for (char *c = col; *c; c++)
        if (*c == '-')
          *c = '_';
      fprintf(f, ",%s", col);
    }
  for (int p = 0; p < s->nparts; p++)
    fprintf(f, ",fits_%s,use_%s", s->parts[p]->name, s->parts[p]->name);
  fprintf(f, ",error\n");
  for (size_t i = 0; i < n; i++) {
    const sweep_row *r = &rows[i];
    const vta_config *c = &r->pt->cfg;
    char shape[64];
    vta_config_shape_name(c, shape, sizeof shape);
    fprintf(f, "%s,", r->pt->id);
    csv_str(f, r->pt->label);
    fprintf(f, ",%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%g,%s,", shape, c->log_batch, c->log_block_in,
            c->log_block_out, c->log_inp_buff_size, c->log_wgt_buff_size, c->log_acc_buff_size,
            c->log_uop_buff_size, c->log_bus_width, c->dram_latency, c->clock_mhz,
            r->pt->model_key);
    csv_str(f, s->workloads[r->workload]);
    fprintf(f, ",%s,%d,", r->backend, r->ok);
    if (r->ok) {
      fprintf(f, "%.0f,%.6g,", r->cycles, r->latency_ms);
      num_or_empty(f, r->compute_bound, "%.0f");
      fputc(',', f);
      num_or_empty(f, r->utilisation, "%.4f");
      fputc(',', f);
      num_or_empty(f, r->macs, "%.0f");
      fputc(',', f);
      num_or_empty(f, r->bytes_read, "%.0f");
      fputc(',', f);
      num_or_empty(f, r->bytes_written, "%.0f");
      fputc(',', f);
      num_or_empty(f, r->rtl_cycles, "%.0f");
      fputc(',', f);
      if (r->rtl_cycles >= 0)
        fprintf(f, "%.6f", r->rtl_diff);
      fputc(',', f);
      num_or_empty(f, r->rtl_bound, "%g");
      fputc(',', f);
      if (r->rtl_within >= 0)
        fprintf(f, "%d", r->rtl_within);
    } else {
      fprintf(f, ",,,,,,,,,,");
    }
    for (int q = 0; q < nf; q++)
      for (int k = 0; k < 5; k++) {
        fputc(',', f);
        if (r->part_res[first[q]])
          fprintf(f, "%g", r->res_by_part[first[q]][k]);
      }
    for (int p = 0; p < s->nparts; p++) {
      if (r->part_res[p])
        fprintf(f, ",%d,%.3f", r->fits[p], r->util_by_part[p]);
      else
        fprintf(f, ",,");
    }
    fputc(',', f);
    csv_str(f, r->ok ? "" : r->error);
    fputc('\n', f);
  }
  return close_rename(f, tmp, out, "results.csv", err, errlen);
}

static int write_jsonl(const sweep_spec *s, const char *out, const sweep_row *rows, size_t n,
                       char *err, size_t errlen) {
  char tmp[PATH_MAX + 64];
  int first[SWEEP_MAX_PARTS], nf = families(s, first);
  FILE *f = open_tmp(out, "results.jsonl", tmp, sizeof tmp, err, errlen);
  if (!f)
    return -1;
  for (size_t i = 0; i < n; i++) {
    const sweep_row *r = &rows[i];
    fprintf(f, "{\"id\":\"%s\",\"label\":", r->pt->id);
    json_str(f, r->pt->label);
    fprintf(f, ",\"config\":%s,\"model_key\":\"%s\",\"workload\":", r->pt->json, r->pt->model_key);
    json_str(f, s->workloads[r->workload]);
    fprintf(f, ",\"backend\":\"%s\",\"ok\":%s", r->backend, r->ok ? "true" : "false");
    json_num(f, "cycles", r->ok ? r->cycles : -1, 1);
    json_num(f, "latency_ms", r->ok ? r->latency_ms : -1, 1);
    json_num(f, "compute_bound", r->ok ? r->compute_bound : -1, 1);
    json_num(f, "utilisation", r->ok ? r->utilisation : -1, 1);
    json_num(f, "macs", r->ok ? r->macs : -1, 1);
    json_num(f, "bytes_read", r->ok ? r->bytes_read : -1, 1);
    json_num(f, "bytes_written", r->ok ? r->bytes_written : -1, 1);
    json_num(f, "rtl_cycles", r->ok ? r->rtl_cycles : -1, 1);
    if (r->ok && r->rtl_cycles >= 0)
      fprintf(f, ",\"rtl_diff\":%.6g", r->rtl_diff);
    else
      fprintf(f, ",\"rtl_diff\":null");
    json_num(f, "sc_error_bound", r->ok ? r->rtl_bound : -1, 1);
    if (r->ok && r->rtl_within >= 0)
      fprintf(f, ",\"rtl_within_bound\":%s", r->rtl_within ? "true" : "false");
    else
      fprintf(f, ",\"rtl_within_bound\":null");
    fprintf(f, ",\"resources\":");
    if (s->resources) {
      fputc('{', f);
      for (int q = 0; q < nf; q++) {
        fprintf(f, "%s\"%s\":", q ? "," : "", s->parts[first[q]]->estimate);
        if (!r->part_res[first[q]]) {
          fprintf(f, "null");
          continue;
        }
        fputc('{', f);
        for (int k = 0; k < 5; k++)
          fprintf(f, "%s\"%s\":%g", k ? "," : "", res_names[k], r->res_by_part[first[q]][k]);
        fputc('}', f);
      }
      fprintf(f, "},\"fit\":{");
      for (int p = 0; p < s->nparts; p++) {
        if (r->part_res[p])
          fprintf(f, "%s\"%s\":{\"fits\":%s,\"use\":%.4f}", p ? "," : "", s->parts[p]->name,
                  r->fits[p] ? "true" : "false", r->util_by_part[p]);
        else
          fprintf(f, "%s\"%s\":null", p ? "," : "", s->parts[p]->name);
      }
      fputc('}', f);
    } else {
      fprintf(f, "null,\"fit\":null");
    }
    fprintf(f, ",\"error\":");
    if (r->ok)
      fprintf(f, "null");
    else
      json_str(f, r->error);
    fprintf(f, "}\n");
  }
  return close_rename(f, tmp, out, "results.jsonl", err, errlen);
}

/* ---- the plot ---- */

typedef struct {
  double x, y;
  size_t row;
} xy;

static int cmp_xy(const void *a, const void *b) {
  const xy *p = a, *q = b;
  if (p->x != q->x)
    return p->x < q->x ? -1 : 1;
  return p->y < q->y ? -1 : p->y > q->y;
}

/* One panel: latency (y, log) against a resource (x, log), its Pareto front, parts' limits. */
static void panel(FILE *f, const sweep_spec *s, const sweep_row *rows, size_t n, int res,
                  const char *xlabel, double ox, double oy, double w, double h) {
  xy *pts = calloc(n ? n : 1, sizeof *pts);
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (rows[i].ok && s->nparts && rows[i].part_res[0] && rows[i].workload == 0 && rows[i].latency_ms > 0) {
      double x = res == 0 ? rows[i].lut : rows[i].dsp;
      pts[m++] = (xy){x > 1 ? x : 1, rows[i].latency_ms, i};
    }
  double x0 = 1e30, x1 = 0, y0 = 1e30, y1 = 0;
  for (size_t i = 0; i < m; i++) {
    x0 = fmin(x0, pts[i].x), x1 = fmax(x1, pts[i].x);
    y0 = fmin(y0, pts[i].y), y1 = fmax(y1, pts[i].y);
  }
  for (int p = 0; p < s->nparts; p++) {
    double lim = res == 0 ? s->parts[p]->lut : s->parts[p]->dsp;
    if (m)
      x1 = fmax(x1, lim);
  }
  if (!m) {
    x0 = 1, x1 = 10, y0 = 1, y1 = 10;
  }
  /* Whole decades around the data. */
  double lx0 = floor(log10(x0)), lx1 = ceil(log10(x1) + 1e-9), ly0 = floor(log10(y0)),
         ly1 = ceil(log10(y1) + 1e-9);
  if (lx1 <= lx0)
    lx1 = lx0 + 1;
  if (ly1 <= ly0)
    ly1 = ly0 + 1;
#define PX(v) (ox + (log10(v) - lx0) / (lx1 - lx0) * w)
#define PY(v) (oy + h - (log10(v) - ly0) / (ly1 - ly0) * h)
  fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#444\"/>\n",
          ox, oy, w, h);
  for (double d = lx0; d <= lx1 + 1e-9; d++) {
    double x = ox + (d - lx0) / (lx1 - lx0) * w;
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", x, oy, x, oy + h);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\">%g</text>\n", x,
            oy + h + 14, pow(10, d));
  }
  for (double d = ly0; d <= ly1 + 1e-9; d++) {
    double y = oy + h - (d - ly0) / (ly1 - ly0) * h;
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", ox, y, ox + w, y);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">%g</text>\n", ox - 4,
            y + 4, pow(10, d));
  }
  /* Over one or two decades, also 2x and 5x lines, so a reader can place a point. */
  if (ly1 - ly0 <= 2)
    for (double d = ly0; d < ly1; d++)
      for (int m = 2; m <= 5; m += 3) {
        double v = m * pow(10, d), y = oy + h - (log10(v) - ly0) / (ly1 - ly0) * h;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", ox, y, ox + w, y);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"10\" fill=\"#666\">%g</text>\n",
                ox - 4, y + 4, v);
      }
  fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\">%s</text>\n",
          ox + w / 2, oy + h + 32, xlabel);
  fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\" transform=\"rotate(-90 %.1f %.1f)\">latency (ms)</text>\n",
          ox - 44, oy + h / 2, ox - 44, oy + h / 2);
  /* Parts' limits: vertical dashed lines. */
  static const char *const colours[] = {"#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
                                        "#17becf", "#bcbd22", "#7f7f7f"};
  for (int p = 0; p < s->nparts; p++) {
    double lim = res == 0 ? s->parts[p]->lut : s->parts[p]->dsp;
    if (lim <= 0 || log10(lim) < lx0 || log10(lim) > lx1)
      continue;
    double x = PX(lim);
    const char *c = colours[p % 8];
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-dasharray=\"5,3\"/>\n",
            x, oy, x, oy + h, c);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"%s\" transform=\"rotate(-90 %.1f %.1f)\" text-anchor=\"end\">%s (%s)</text>\n",
            x - 3, oy + 4 + 0.0 * p, c, x - 3, oy + 4, s->parts[p]->name, s->parts[p]->board);
  }
  /* Pareto front: sorted by resource, each point faster than every cheaper one. */
  qsort(pts, m, sizeof *pts, cmp_xy);
  double best = INFINITY;
  int first = 1;
  fprintf(f, "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\" points=\"");
  double lastx = 0, lasty = 0;
  for (size_t i = 0; i < m; i++)
    if (pts[i].y < best) {
      if (!first)
        fprintf(f, " %.1f,%.1f", PX(pts[i].x), PY(lasty));
      fprintf(f, " %.1f,%.1f", PX(pts[i].x), PY(pts[i].y));
      best = pts[i].y;
      lastx = pts[i].x, lasty = pts[i].y;
      first = 0;
    }
  (void)lastx;
  fprintf(f, "\"/>\n");
  best = INFINITY;
  for (size_t i = 0; i < m; i++) {
    int front = pts[i].y < best;
    if (front)
      best = pts[i].y;
    const sweep_row *r = &rows[pts[i].row];
    fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\" stroke=\"#000\" stroke-width=\"0.5\"><title>%s %s: %.3f ms, %.0f LUT, %.0f DSP</title></circle>\n",
            PX(pts[i].x), PY(pts[i].y), front ? "4.5" : "3", front ? "#1f77b4" : "#bbb", r->pt->id,
            r->pt->label, r->latency_ms, r->lut, r->dsp);
  }
#undef PX
#undef PY
  free(pts);
}

static int write_svg(const sweep_spec *s, const char *out, const sweep_row *rows, size_t n,
                     char *err, size_t errlen) {
  char tmp[PATH_MAX + 64];
  FILE *f = open_tmp(out, "pareto.svg", tmp, sizeof tmp, err, errlen);
  if (!f)
    return -1;
  const char *fam = s->nparts ? s->parts[0]->family : "-";
  const char *uram = s->nparts && strstr(s->parts[0]->estimate, "nouram") ? ", no URAM" : "";
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"980\" height=\"440\" font-family=\"sans-serif\">\n"
             "<rect width=\"980\" height=\"440\" fill=\"white\"/>\n");
  fprintf(f, "<text x=\"490\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">%s: %s latency on %s against resources (yosys synth_xilinx -family %s%s)</text>\n",
          s->name, s->workloads[0], s->backend, fam, uram);
  fprintf(f, "<text x=\"490\" y=\"36\" text-anchor=\"middle\" font-size=\"11\">blue: the Pareto front (no point is both smaller and faster); dashed: the parts' capacity; hover a point for its configuration</text>\n");
  panel(f, s, rows, n, 0, "LUTs", 70, 50, 380, 320);
  panel(f, s, rows, n, 1, "DSP slices", 560, 50, 380, 320);
  fprintf(f, "</svg>\n");
  return close_rename(f, tmp, out, "pareto.svg", err, errlen);
}

/* ---- the report ---- */

static int write_md(const sweep_spec *s, const char *out, const sweep_row *rows, size_t n,
                    const char *invalid, char *err, size_t errlen) {
  char tmp[PATH_MAX + 64], shape[64];
  FILE *f = open_tmp(out, "report.md", tmp, sizeof tmp, err, errlen);
  if (!f)
    return -1;
  size_t ok = 0, npts = 0;
  for (size_t i = 0; i < n; i++) {
    ok += rows[i].ok;
    npts += rows[i].workload == 0;
  }
  fprintf(f, "# Sweep %s\n\n", s->name);
  fprintf(f, "%zu points, %d workload(s), cycles from `%s`%s; %zu of %zu results ok. ", npts,
          s->nworkloads, s->backend,
          strcmp(s->backend, "model") == 0 ? " (the tiling cost model's prediction, fsim run)" : "",
          ok, n);
  fprintf(f, "Resources: yosys `synth_xilinx` of the whole accelerator (an estimate: Vivado's "
             "counts differ, see docs/user-guide/sweep.md). Plot: [pareto.svg](pareto.svg).\n\n");
  /* The rtl sample: how far the cycles backend is from the RTL. */
  size_t nsampled = 0, nwithin = 0, njudged = 0;
  double worst = 0;
  const sweep_row *worst_row = NULL;
  for (size_t i = 0; i < n; i++)
    if (rows[i].ok && rows[i].rtl_cycles >= 0) {
      nsampled++;
      if (rows[i].rtl_within >= 0)
        njudged++, nwithin += rows[i].rtl_within;
      if (!worst_row || fabs(rows[i].rtl_diff) > worst)
        worst = fabs(rows[i].rtl_diff), worst_row = &rows[i];
    }
  if (nsampled) {
    fprintf(f, "rtl sample: %zu result(s) also run on rtl; the largest difference of `%s` from rtl is "
               "%+.3f%% (`%s`, %s).",
            nsampled, s->backend, 100 * worst_row->rtl_diff, worst_row->pt->id,
            s->workloads[worst_row->workload]);
    if (njudged)
      fprintf(f, " %zu of %zu within sc's calibrated error (%g%% on the whole ResNet-18, %g%% on "
                 "other workloads; docs/sc.md).",
              nwithin, njudged, 100 * SWEEP_SC_ERROR_RESNET18, 100 * SWEEP_SC_ERROR_OTHER);
    else
      fprintf(f, " (The `%s` backend has no calibrated bound against rtl.)", s->backend);
    fprintf(f, "\n\n");
  }
  for (int w = 0; w < s->nworkloads; w++) {
    fprintf(f, "## %s\n\n### Best point per part\n\n", s->workloads[w]);
    fprintf(f, "| part | board | estimate | best point | shape | latency (ms) | cycles | LUT | FF | DSP | BRAM36 | URAM | largest use |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int p = 0; p < s->nparts; p++) {
      const sweep_row *best = NULL;
      for (size_t i = 0; i < n; i++) {
        const sweep_row *r = &rows[i];
        if (r->workload != w || !r->ok || !r->part_res[p] || !r->fits[p])
          continue;
        if (!best || r->latency_ms < best->latency_ms ||
            (r->latency_ms == best->latency_ms && r->util_by_part[p] < best->util_by_part[p]))
          best = r;
      }
      if (!best) {
        int known = 0;
        for (size_t i = 0; i < n; i++)
          known |= rows[i].workload == w && rows[i].ok && rows[i].part_res[p];
        fprintf(f, "| %s | %s | %s | %s | | | | | | | | | |\n", s->parts[p]->name,
                s->parts[p]->board, s->parts[p]->estimate,
                known ? "none fits" : "no resource estimate yet");
        continue;
      }
      /* Points run but not estimated for this part's estimate: the best is only among the rest. */
      size_t unestimated = 0;
      char note[96] = "";
      for (size_t i = 0; i < n; i++)
        unestimated += rows[i].workload == w && rows[i].ok && !rows[i].part_res[p];
      if (unestimated)
        snprintf(note, sizeof note, " (best of those estimated; %zu point(s) without an estimate)",
                 unestimated);
      vta_config_shape_name(&best->pt->cfg, shape, sizeof shape);
      fprintf(f, "| %s | %s | %s | `%s` %s%s | %s | %.3f | %.0f | %.0f | %.0f | %.0f | %g | %.0f | %.0f%% |\n",
              s->parts[p]->name, s->parts[p]->board, s->parts[p]->estimate, best->pt->id,
              best->pt->label, note, shape, best->latency_ms, best->cycles, best->res_by_part[p][0],
              best->res_by_part[p][1], best->res_by_part[p][2], best->res_by_part[p][3],
              best->res_by_part[p][4], 100 * best->util_by_part[p]);
    }
    fprintf(f, "\n### All points\n\n| point | configuration | shape | cycles | latency (ms) | utilisation | rtl diff |");
    int first[SWEEP_MAX_PARTS], nf = families(s, first);
    for (int q = 0; q < nf; q++)
      fprintf(f, " LUT/FF/DSP/BRAM36/URAM (%s) |", s->parts[first[q]]->estimate);
    fprintf(f, " fits |\n|---|---|---|---|---|---|---|");
    for (int q = 0; q < nf; q++)
      fprintf(f, "---|");
    fprintf(f, "---|\n");
    for (size_t i = 0; i < n; i++) {
      const sweep_row *r = &rows[i];
      if (r->workload != w)
        continue;
      vta_config_shape_name(&r->pt->cfg, shape, sizeof shape);
      fprintf(f, "| `%s` | %s | %s | ", r->pt->id, r->pt->label, shape);
      if (r->ok) {
        fprintf(f, "%.0f | %.3f | ", r->cycles, r->latency_ms);
        if (r->utilisation >= 0)
          fprintf(f, "%.1f%% | ", 100 * r->utilisation);
        else
          fprintf(f, "- | ");
        if (r->rtl_cycles >= 0 && r->rtl_within >= 0)
          fprintf(f, "%+.3f%% (%s %g%%) |", 100 * r->rtl_diff, r->rtl_within ? "within" : "OVER",
                  100 * r->rtl_bound);
        else if (r->rtl_cycles >= 0)
          fprintf(f, "%+.3f%% |", 100 * r->rtl_diff);
        else
          fprintf(f, "- |");
      } else {
        fprintf(f, "failed: %s | | | |", r->error);
      }
      for (int q = 0; q < nf; q++) {
        if (r->part_res[first[q]])
          fprintf(f, " %.0f / %.0f / %.0f / %g / %.0f |", r->res_by_part[first[q]][0],
                  r->res_by_part[first[q]][1], r->res_by_part[first[q]][2],
                  r->res_by_part[first[q]][3], r->res_by_part[first[q]][4]);
        else
          fprintf(f, " - |");
      }
      fputc(' ', f);
      int any = 0;
      for (int p = 0; p < s->nparts; p++)
        if (r->part_res[p] && r->fits[p]) {
          fprintf(f, "%s%s", any ? ", " : "", s->parts[p]->name);
          any = 1;
        }
      fprintf(f, "%s |\n", any ? "" : "-");
    }
    fputc('\n', f);
  }
  if (invalid && *invalid) {
    fprintf(f, "## Invalid points (skipped, with isa/'s reason)\n\n");
    for (const char *l = invalid; *l;) {
      size_t len = strcspn(l, "\n");
      fprintf(f, "- %.*s\n", (int)len, l);
      l += len + (l[len] == '\n');
    }
    fputc('\n', f);
  }
  return close_rename(f, tmp, out, "report.md", err, errlen);
}

void sweep_row_set_rtl(const sweep_spec *s, sweep_row *row, double rtl_cycles) {
  row->rtl_cycles = rtl_cycles;
  row->rtl_diff = (row->cycles - rtl_cycles) / rtl_cycles;
  row->rtl_bound = -1;
  row->rtl_within = -1;
  /* sc is calibrated against rtl: its difference must stay within that error. The model
   * backend's difference is the cost model's, which has no such bound. */
  if (strcmp(s->backend, "sc") == 0) {
    row->rtl_bound = strcmp(s->workloads[row->workload], "builtin:resnet18") == 0
                         ? SWEEP_SC_ERROR_RESNET18
                         : SWEEP_SC_ERROR_OTHER;
    row->rtl_within = fabs(row->rtl_diff) <= row->rtl_bound;
  }
}

int sweep_write_outputs(const sweep_spec *s, const char *out, const sweep_row *rows, size_t n,
                        const char *invalid, char *err, size_t errlen) {
  if (write_csv(s, out, rows, n, err, errlen) || write_jsonl(s, out, rows, n, err, errlen) ||
      write_svg(s, out, rows, n, err, errlen) || write_md(s, out, rows, n, invalid, err, errlen))
    return -1;
  return 0;
}
