/*
 * The HTML report: one self-contained page that opens from disk with no
 * network. Static parts (sides, headline, notes, charts, ops_diff lists) are
 * written as HTML; the full table is rendered in the browser from a JSON array
 * embedded in the page, which keeps a page of tens of thousands of rows small
 * and quick, and lets a small script sort and filter it.
 *
 * Everything from a trace is escaped: names hold <, >, & and quotes. The JSON
 * inside <script> also escapes '<' (so no "</script>" or "<!--" can end or
 * confuse the element) and U+2028/U+2029.
 */
#include "util/util.h"
#include "present/html.h"
#include "present/out_common.h"
#include "util/utf8_text.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct report {
    FILE *f;
    const td_report_input *in;
    const char *label[2];
    char names[2][256]; /* the sets' names, when they are the labels */
    td_diff *own[3];    /* comparisons made here, freed at the end */
    const td_diff *gpu; /* device gpu: total GPU time */
    const td_diff *cpu; /* device cpu: ProfilerStep rows, the step times */
    const td_diff *ops; /* full names: ops_diff (spec §7) */
    td_view_opts chart_view[2];
    size_t *chart_rows[2];
    size_t chart_n[2];
} report;

static const char css[] =
    ":root{--ctl:#4E79A7;--tst:#F28E2B;--dif:#B07AA1;--pos:#C0392B;--neg:#1E8449;"
    "--line:#DDE1E6;--muted:#5F6B7A;--bg:#F6F7F9}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',"
    "sans-serif;color:#1F2328;background:var(--bg)}\n"
    "main{max-width:1500px;margin:0 auto;padding:20px 28px 60px}\n"
    "h1{font-size:24px;margin:6px 0 2px}h2{font-size:18px;margin:30px 0 10px;"
    "border-bottom:1px solid var(--line);padding-bottom:4px;scroll-margin-top:52px}"
    "h3{font-size:15px;margin:0 0 6px}\n"
    /* the table of contents: one line that stays at the top of the window */
    "#toc{position:sticky;top:0;z-index:10;display:flex;flex-wrap:wrap;gap:4px 16px;"
    "margin:10px -28px 0;padding:8px 28px;background:var(--bg);"
    "border-bottom:1px solid var(--line);font-size:13px}\n"
    "#toc:empty{display:none}#toc a{color:var(--muted);text-decoration:none;"
    "white-space:nowrap}#toc a:hover{color:#1F2328;text-decoration:underline}\n"
    ".sub{color:var(--muted);margin:0}\n"
    ".swatch{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:6px;"
    "vertical-align:-1px}\n"
    ".cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:14px}\n"
    ".card{background:#fff;border:1px solid var(--line);border-radius:8px;padding:14px 16px;"
    "min-width:0;overflow-x:auto}\n"
    ".big{font-size:22px;font-weight:600;font-variant-numeric:tabular-nums}\n"
    ".kv{border-collapse:collapse;font-variant-numeric:tabular-nums}"
    ".kv td{padding:2px 14px 2px 0;vertical-align:top}.kv td:first-child{color:var(--muted)}\n"
    ".path{font-family:ui-monospace,'DejaVu Sans Mono',Menlo,monospace;font-size:12px;"
    "overflow-wrap:anywhere}\n"
    ".files{border-collapse:collapse;margin-top:8px;font-size:12px;width:100%;"
    "font-variant-numeric:tabular-nums}"
    ".files th,.files td{border-top:1px solid var(--line);padding:3px 6px;text-align:right}"
    ".files td.path{max-width:170px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}"
    ".files th:first-child,.files td:first-child{text-align:left}\n"
    ".pos{color:var(--pos)}.neg{color:var(--neg)}.warn{color:#9A6700;font-weight:600}\n"
    ".notes li{margin:3px 0}\n"
    "#charts{display:flex;flex-wrap:wrap;gap:14px}\n"
    "figure{flex:1 1 560px;min-width:0;margin:0;background:#fff;border:1px solid var(--line);"
    "border-radius:8px;padding:10px;overflow-x:auto}\n"
    "figure svg{display:block;width:100%;height:auto;margin:0 auto}\n"
    "figure.wide{flex-basis:100%}\n"
    "figcaption{color:var(--muted);font-size:13px;margin-top:4px;width:0;min-width:100%}\n"
    ".controls{display:flex;gap:12px;align-items:center;margin-bottom:8px}"
    "#td-filter{font:inherit;padding:6px 10px;width:380px;max-width:100%;"
    "border:1px solid #B8C0CA;border-radius:6px}#td-count{color:var(--muted)}\n"
    ".table-wrap{background:#fff;border:1px solid var(--line);border-radius:8px;"
    "overflow:auto;max-height:80vh}\n"
    "#td-table{min-width:1000px;font-variant-numeric:tabular-nums}\n"
    ".tr{display:grid;grid-template-columns:minmax(260px,1fr) repeat(7,118px);"
    "align-items:baseline}\n"
    "#td-table.stats .tr{grid-template-columns:minmax(220px,1fr) repeat(7,96px) "
    "repeat(4,92px) 80px}#td-table.stats{min-width:1340px}\n"
    "#td-table.stats.call .tr{grid-template-columns:minmax(220px,1fr) repeat(7,96px) "
    "repeat(5,92px) 80px}#td-table.stats.call{min-width:1440px}\n"
    ".tr.noise>div{color:#8A929B}.tr.noise>.v{font-style:italic}\n"
    ".v-slower{color:var(--pos);font-weight:600}.v-faster{color:var(--neg);font-weight:600}\n"
    ".tr>div{padding:4px 10px;text-align:right;white-space:nowrap;overflow:hidden;"
    "border-bottom:1px solid #EEF0F2}\n"
    ".tr>div:first-child{text-align:left}\n"
    /* the wide table scrolls inside its card: the name stays at the left
     * edge and, with --stats, the verdict at the right one */
    "#td-tbody .tr>div:first-child{position:sticky;left:0;background:#fff;"
    "box-shadow:1px 0 0 var(--line)}\n"
    "#td-table.stats #td-tbody .tr>div:last-child{position:sticky;right:0;background:#fff;"
    "box-shadow:-1px 0 0 var(--line)}\n"
    ".th>div:first-child{position:sticky;left:0;z-index:2;background:#EEF1F4}\n"
    "#td-table.stats .th>div:last-child{position:sticky;right:0;z-index:2;"
    "background:#EEF1F4}\n"
    ".th{position:sticky;top:0;z-index:1;background:#EEF1F4;font-weight:600;"
    "border-bottom:1px solid #C9D0D8}\n"
    ".th>div{padding:7px 10px;cursor:pointer;user-select:none;white-space:normal;"
    "align-self:end;border-bottom:0}\n"
    ".th>div:hover{background:#E2E7EC}\n"
    ".th>[aria-sort=ascending]::after{content:' \\25B2';font-size:10px}\n"
    ".th>[aria-sort=descending]::after{content:' \\25BC';font-size:10px}\n"
    ".chunk{content-visibility:auto;contain-intrinsic-size:auto 5800px}\n"
    ".tr>.name{font-family:ui-monospace,'DejaVu Sans Mono',Menlo,monospace;font-size:12px;"
    "text-overflow:ellipsis;cursor:pointer}\n"
    ".tr>.name.open{white-space:normal;overflow-wrap:anywhere}\n"
    "#td-tbody .tr:hover{background:#F5F8FB}\n"
    "details{background:#fff;border:1px solid var(--line);border-radius:8px;"
    "padding:8px 14px;margin-bottom:8px}summary{cursor:pointer;font-weight:600}\n"
    "details ul{margin:8px 0;padding-left:20px;font-family:ui-monospace,'DejaVu Sans Mono',"
    "Menlo,monospace;font-size:12px;overflow-wrap:anywhere}\n"
    ".moved{border-collapse:collapse;background:#fff;width:100%;margin-bottom:14px;"
    "font-variant-numeric:tabular-nums}.moved>thead th{text-align:right;padding:5px 8px;"
    "background:#EEF1F4}.moved>thead th:first-child{text-align:left}"
    ".moved td{border-top:1px solid var(--line);padding:4px 8px;vertical-align:top}"
    ".moved td.num{text-align:right;white-space:nowrap}.moved td.name{font-family:"
    "ui-monospace,'DejaVu Sans Mono',Menlo,monospace;font-size:12px;overflow-wrap:anywhere}"
    ".moved details{border:0;padding:0;margin:0}.kernels{width:100%;margin-top:6px;"
    "border-collapse:collapse}.kernels td{font-size:12px}\n";

/* The table: sort on header click or from "#sort=COL&dir=asc|desc" (both
 * call sortBy), filter by substring (typed, or "#q=TEXT"), rows drawn as one
 * HTML string: quick enough for tens of thousands of rows. "<\/" keeps end
 * tags in strings from ending the script for parsers that stop at any "</". */
static const char script[] =
    /* The table of contents, from the page's <h2> headings, whichever file
     * wrote them: a heading without an id gets one from its text. A link
     * scrolls to its section and leaves the address (#sort=, #q=) alone. */
    "(function () {\n"
    "'use strict';\n"
    "var toc = document.getElementById('toc');\n"
    "if (!toc) return;\n"
    "var hs = document.querySelectorAll('main h2'), used = {};\n"
    "for (var i = 0; i < hs.length; i++) {\n"
    "  var h = hs[i], text = h.textContent.replace(/\\s+/g, ' ').trim();\n"
    "  if (!h.id) {\n"
    "    var id = 'sec-' + (text.toLowerCase().replace(/[^a-z0-9]+/g, '-')"
    ".replace(/^-|-$/g, '') || i);\n"
    "    while (document.getElementById(id) || used[id]) id += '-' + i;\n"
    "    h.id = id;\n"
    "  }\n"
    "  used[h.id] = 1;\n"
    "  var a = document.createElement('a');\n"
    "  a.href = '#' + h.id;\n"
    "  a.textContent = text.replace(/ \\([0-9]+\\)$/, '');\n"
    "  a.addEventListener('click', (function (t) {\n"
    "    return function (e) { e.preventDefault(); t.scrollIntoView(); };\n"
    "  })(h));\n"
    "  toc.appendChild(a);\n"
    "}\n"
    "})();\n"
    "(function () {\n"
    "'use strict';\n"
    "var D = JSON.parse(document.getElementById('td-data').textContent);\n"
    "var COLS = D.columns, R = D.rows, order = R.map(function (_, i) { return i; });\n"
    "var state = {col: null, dir: 'asc', filter: ''};\n"
    "var NF = new Intl.NumberFormat('en-US', {maximumFractionDigits: 3});\n"
    "var body = document.getElementById('td-tbody');\n"
    "var count = document.getElementById('td-count');\n"
    "var heads = document.querySelectorAll('#td-table [data-col]');\n"
    "var filter = document.getElementById('td-filter');\n"
    "var MAP = {'&': '&amp;', '<': '&lt;', '>': '&gt;', '\"': '&quot;', \"'\": '&#39;'};\n"
    "function esc(s) { return s.replace(/[&<>\"']/g, function (c) { return MAP[c]; }); }\n"
    "var VK = COLS.indexOf('verdict');\n"
    "function isText(k) { return k === 0 || k === 7 || k === VK; }\n"
    "var SIGNED = {change_pct: 1, ci_low_pct: 1, ci_high_pct: 1};\n"
    "function cell(v, k) {\n"
    "  var s, cls = '';\n"
    "  if (v === null) {\n"
    "    s = '\\u2014';\n"
    "  } else if (k === VK) {\n"
    "    s = esc(v);\n"
    "    cls = 'v v-' + v.replace('/', '');\n"
    "  } else if (k === 7) {\n"
    "    s = esc(v);\n"
    "    cls = v === '+' ? 'pos' : v === '-' ? 'neg' : '';\n"
    "  } else {\n"
    "    s = NF.format(v);\n"
    "    var signed = k === 5 || k === 6 || SIGNED[COLS[k]] === 1;\n"
    "    if (signed && v > 0) {\n"
    "      s = '+' + s;\n"
    "      cls = 'pos';\n"
    "    } else if (signed && v < 0) {\n"
    "      cls = 'neg';\n"
    "    }\n"
    "  }\n"
    "  var c = cls ? ' class=\"' + cls + '\"' : '';\n"
    "  return '<div role=\"cell\"' + c + '>' + s + '<\\/div>';\n"
    "}\n"
    "function render() {\n"
    "  var f = state.filter.toLowerCase(), out = [], shown = 0;\n"
    "  for (var j = 0; j < order.length; j++) {\n"
    "    var r = R[order[j]];\n"
    "    if (f && r[0].toLowerCase().indexOf(f) < 0) continue;\n"
    "    if (shown % 200 === 0)\n"
    "      out.push((shown ? '<\\/div>' : '') + '<div class=\"chunk\" role=\"presentation\">');\n"
    "    var n = esc(r[0]);\n"
    "    var rc = VK >= 0 && r[VK] === 'noise' ? 'tr noise' : 'tr';\n"
    "    var h = '<div class=\"' + rc + '\" role=\"row\">' +\n"
    "      '<div class=\"name\" role=\"cell\" title=\"' + n + '\">' + n + '<\\/div>';\n"
    "    for (var k = 1; k < r.length; k++) h += cell(r[k], k);\n"
    "    out.push(h + '<\\/div>');\n"
    "    shown++;\n"
    "  }\n"
    "  if (shown) out.push('<\\/div>');\n"
    "  body.innerHTML = out.join('');\n"
    "  count.textContent = shown === R.length ? R.length + ' rows'\n"
    "                                         : shown + ' of ' + R.length + ' rows';\n"
    "}\n"
    "function byName(a, b) { return R[a][0] < R[b][0] ? -1 : R[a][0] > R[b][0] ? 1 : 0; }\n"
    "function sortBy(col, dir) {\n"
    "  var k = COLS.indexOf(col);\n"
    "  if (k < 0) return false;\n"
    "  if (dir !== 'asc' && dir !== 'desc') dir = isText(k) ? 'asc' : 'desc';\n"
    "  var s = dir === 'asc' ? 1 : -1;\n"
    "  order.sort(function (a, b) {\n"
    "    var x = R[a][k], y = R[b][k];\n"
    "    var c = isText(k) ? (x < y ? -1 : x > y ? 1 : 0)\n"
    "          : x === null ? (y === null ? 0 : -1) : y === null ? 1 : x - y;\n"
    "    return s * c || byName(a, b) || a - b;\n"
    "  });\n"
    "  state.col = col;\n"
    "  state.dir = dir;\n"
    "  for (var i = 0; i < heads.length; i++) {\n"
    "    var on = heads[i].getAttribute('data-col') === col;\n"
    "    var a = on ? (dir === 'asc' ? 'ascending' : 'descending') : 'none';\n"
    "    heads[i].setAttribute('aria-sort', a);\n"
    "  }\n"
    "  render();\n"
    "  return true;\n"
    "}\n"
    "function fromHash() {\n"
    "  var p = new URLSearchParams(location.hash.replace(/^#/, ''));\n"
    "  if (p.has('q')) filter.value = state.filter = p.get('q');\n"
    "  if (!p.has('sort') || !sortBy(p.get('sort'), p.get('dir'))) render();\n"
    "}\n"
    "function onHead(e) {\n"
    "  if (e.type === 'keydown' && e.key !== 'Enter' && e.key !== ' ') return;\n"
    "  e.preventDefault();\n"
    "  var col = this.getAttribute('data-col'), k = COLS.indexOf(col);\n"
    "  var dir = state.col === col ? (state.dir === 'asc' ? 'desc' : 'asc')\n"
    "                              : (isText(k) ? 'asc' : 'desc');\n"
    "  sortBy(col, dir);\n"
    "  try {\n"
    "    history.replaceState(null, '', '#sort=' + col + '&dir=' + dir);\n"
    "  } catch (err) {\n"
    "    /* some browsers refuse it for file:// pages; the sort still applies */\n"
    "  }\n"
    "}\n"
    "for (var i = 0; i < heads.length; i++) {\n"
    "  heads[i].addEventListener('click', onHead);\n"
    "  heads[i].addEventListener('keydown', onHead);\n"
    "}\n"
    "var timer = null;\n"
    "filter.addEventListener('input', function () {\n"
    "  var v = this.value;\n"
    "  clearTimeout(timer);\n"
    "  timer = setTimeout(function () { state.filter = v; render(); }, 120);\n"
    "});\n"
    "body.addEventListener('click', function (e) {\n"
    "  var t = e.target;\n"
    "  if (t && t.classList && t.classList.contains('name')) t.classList.toggle('open');\n"
    "});\n"
    "window.addEventListener('hashchange', fromHash);\n"
    "fromHash();\n"
    "})();\n";

/* ------------------------------------------------------------------------ */
/* Text.                                                                      */

static void html_str(FILE *f, const char *s)
{
    td_html_text(f, s, strlen(s));
}

static void js_num(FILE *f, double v)
{
    char buf[48];
    if (!isfinite(v)) {
        fputs("null", f);
        return;
    }
    td_fmt_num(buf, sizeof buf, v);
    fputs(buf, f);
}

/* ------------------------------------------------------------------------ */
/* Sections.                                                                  */

static void put_ints(FILE *f, const int64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%lld", i ? ", " : "", (long long)v[i]);
}

static void swatch(FILE *f, const char *var)
{
    fprintf(f, "<span class=\"swatch\" style=\"background:var(%s)\"></span>", var);
}

static void head(report *r)
{
    FILE *f = r->f;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"tracediff " TD_VERSION "\">\n<title>tracediff: ",
          f);
    html_str(f, r->label[0]);
    fputs(" vs ", f);
    html_str(f, r->label[1]);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n", css);
    fputs("<h1>Trace comparison: ", f);
    swatch(f, "--ctl");
    html_str(f, r->label[0]);
    fputs(" vs ", f);
    swatch(f, "--tst");
    html_str(f, r->label[1]);
    fprintf(f,
            "</h1>\n<p class=\"sub\">device %s &middot; %s%s &middot; made by tracediff %s"
            "</p>\n",
            td_device_name(r->in->opts->device),
            r->in->opts->short_names ? "short names" : "full names",
            r->in->opts->normalize_names
                ? ", folded where they differ only by noise (<code>--no-normalize-names</code> "
                  "keeps them apart)"
                : "",
            TD_VERSION);
    /* Filled by the script from the <h2> headings (sections written by
     * other files included): no list of sections to keep in step here. */
    fputs("<nav id=\"toc\" aria-label=\"Contents\"></nav>\n", f);
}

static void step_time(const td_diff *d, int side, double *sum, uint64_t *n)
{
    const td_row *rows = td_diff_rows(d);
    *sum = 0;
    *n = 0;
    for (size_t i = 0; i < td_diff_nrows(d); i++)
        if (rows[i].name_len >= 12 && memcmp(rows[i].name, "ProfilerStep", 12) == 0) {
            *sum += rows[i].duration[side];
            *n += rows[i].counts[side];
        }
}

/* The breakdown given with the input, when its size says it has one. */
static const td_breakdown *input_breakdown(const td_report_input *in)
{
    return in->size >= offsetof(td_report_input, breakdown) + sizeof in->breakdown ? in->breakdown
                                                                                   : NULL;
}

/* Whether the breakdown measured a side's whole trace (no ProfilerStep, or one). */
static bool bd_whole(const td_breakdown *b, int side)
{
    for (size_t i = 0; td_breakdown_note(b, side, i); i++)
        if (strstr(td_breakdown_note(b, side, i), "the whole trace is one iteration"))
            return true;
    return false;
}

/* The step time from the breakdown (docs/breakdown.md): each side's mean per
 * (rank, iteration) of its selected steps, or its trace span without steps. */
static void step_card_bd(report *r, const td_breakdown *b)
{
    FILE *f = r->f;
    size_t n;
    const td_bd_row *rows = td_breakdown_rows(b, &n), *step = NULL;
    for (size_t i = 0; i < n && !step; i++)
        if (strcmp(rows[i].name, "step_us") == 0)
            step = &rows[i];
    if (!step)
        return;
    fputs("<div class=\"card\" id=\"step-time\"><h3>Step time</h3><table class=\"kv\">", f);
    for (int s = 0; s < 2; s++) {
        size_t k = td_breakdown_samples(b, s);
        fputs("<tr><td>", f);
        html_str(f, r->label[s]);
        fprintf(f, "</td><td data-us=\"%.17g\">", step->value[s]);
        td_html_us(f, step->value[s]);
        if (bd_whole(b, s))
            fputs(" (the trace's span: fewer than 2 ProfilerSteps)", f);
        else
            fprintf(f, " (%zu step%s)", k, k == 1 ? "" : "s");
        fputs("</td></tr>", f);
    }
    fputs("</table><div class=\"big\">", f);
    td_html_change(f, step->value[0], step->value[1]);
    fputs("</div><p class=\"sub\">mean per (rank, iteration) of the selected steps, or of the "
          "trace's span on a side without ProfilerStep (breakdown: every rank, the steady "
          "iterations unless chosen)</p></div>\n",
          f);
}

/* A component's change: more is worse; a part that went to 0 is no warning
 * here (td_html_change's), as the whole step is measured on both sides. */
static void bar_change(FILE *f, double c, double d)
{
    fprintf(f, "<span class=\"%s\">%s", d > 0 ? "pos" : d < 0 ? "neg" : "", d > 0 ? "+" : "");
    td_html_us(f, d);
    if (c != 0)
        fprintf(f, " (%+.1f%%)", 100.0 * d / c);
    fputs("</span>", f);
}

/* The waterfall: from control's step time to test's through each
 * component's change; the changes add up to the step time's. */
static void waterfall_card(report *r, const td_breakdown *b)
{
    FILE *f = r->f;
    size_t n;
    const td_bd_bar *bars = td_breakdown_waterfall(b, &n);
    if (n == 0)
        return;
    fputs("<div class=\"card\" id=\"waterfall\"><h3>Where the step time went</h3>"
          "<table class=\"kv\"><tr><th></th><th>",
          f);
    html_str(f, r->label[0]);
    fputs("</th><th>", f);
    html_str(f, r->label[1]);
    fputs("</th><th>change</th></tr>", f);
    for (size_t i = 0; i < n; i++) {
        fputs("<tr><td>", f);
        html_str(f, bars[i].component);
        for (int s = 0; s < 2; s++) {
            fprintf(f, "</td><td data-us=\"%.17g\">", bars[i].value[s]);
            if (isnan(bars[i].value[s]))
                fputs("n/a", f);
            else
                td_html_us(f, bars[i].value[s]);
        }
        fprintf(f, "</td><td data-us=\"%.17g\">", bars[i].diff);
        if (isnan(bars[i].diff))
            fputs("n/a", f);
        else
            bar_change(f, bars[i].value[0], bars[i].diff);
        fputs("</td></tr>", f);
    }
    fputs("</table>\n<figure>\n", f);
    /* The chart of tracediff plot breakdown; a failed write shows in the
     * stream's error, which the page's end checks. */
    td_bd_chart_opts co = TD_BD_CHART_OPTS_INIT;
    co.control_label = r->label[0];
    co.test_label = r->label[1];
    td_error err = {0};
    (void)td_breakdown_chart(f, b, &co, 0, NULL, &err);
    fputs("</figure><p class=\"sub\">control's step time, each component's change, test's step "
          "time (tracediff breakdown; the last component is the remainder)</p></div>\n",
          f);
}

static void names_card(report *r);

static void headline(report *r)
{
    FILE *f = r->f;
    double gpu[2] = {0, 0}, step[2];
    uint64_t nsteps[2];
    const td_row *rows = td_diff_rows(r->gpu);
    for (size_t i = 0; i < td_diff_nrows(r->gpu); i++)
        for (int s = 0; s < 2; s++)
            gpu[s] += rows[i].duration[s];
    for (int s = 0; s < 2; s++)
        step_time(r->cpu, s, &step[s], &nsteps[s]);
    fputs("<h2>Headline</h2>\n<div class=\"cards\" id=\"headline\">\n", f);
    fputs("<div class=\"card\"><h3>Total GPU kernel time</h3><table class=\"kv\">", f);
    for (int s = 0; s < 2; s++) {
        fputs("<tr><td>", f);
        html_str(f, r->label[s]);
        fputs("</td><td>", f);
        td_html_us(f, gpu[s]);
        fputs("</td></tr>", f);
    }
    fputs("</table><div class=\"big\">", f);
    td_html_change(f, gpu[0], gpu[1]);
    /* --per-iteration: every time below is per selected (rank, iteration). */
    const char *per = r->in->opts->per_iteration ? ", per (rank, iteration)" : "";
    fprintf(f,
            "</div><p class=\"sub\">every event on a GPU stream (kernels, memcpy, memset) of "
            "the selected ranks and iterations%s</p></div>\n",
            per);

    const td_breakdown *bd = input_breakdown(r->in);
    if (bd) {
        step_card_bd(r, bd);
        names_card(r);
        waterfall_card(r, bd);
        fputs("</div>\n", f);
        return;
    }
    fputs("<div class=\"card\"><h3>Step time</h3><table class=\"kv\">", f);
    int whole = 0;
    for (int s = 0; s < 2; s++) {
        const td_side_notes *n = td_diff_notes(r->in->diff, s);
        fputs("<tr><td>", f);
        html_str(f, r->label[s]);
        fputs("</td><td>", f);
        if (n->whole_trace || nsteps[s] == 0) {
            fputs("n/a (no ProfilerStep)", f);
            whole = 1;
        } else {
            td_html_us(f, step[s]);
            fprintf(f, " (%llu step%s)", (unsigned long long)nsteps[s], nsteps[s] == 1 ? "" : "s");
        }
        fputs("</td></tr>", f);
    }
    fputs("</table><div class=\"big\">", f);
    if (whole)
        fputs("&mdash;", f);
    else
        td_html_change(f, step[0], step[1]);
    fprintf(f,
            "</div><p class=\"sub\">total duration of the ProfilerStep rows (CPU) of the "
            "selected iterations%s</p></div>\n",
            per);
    names_card(r);
    fputs("</div>\n", f);
}

/* The number of names, per op category. */
static void names_card(report *r)
{
    FILE *f = r->f;
    size_t k[TD_OP_NCATEGORIES] = {0};
    const td_row *orows = td_diff_rows(r->ops);
    for (size_t i = 0; i < td_diff_nrows(r->ops); i++) {
        td_op_category c = td_row_op_category(&orows[i]);
        if (c >= 0 && c < TD_OP_NCATEGORIES)
            k[c]++;
    }
    fprintf(f,
            "<div class=\"card\"><h3>Names (by full name)</h3><div class=\"big\">%zu</div>"
            "<table class=\"kv\">",
            td_diff_nrows(r->ops));
    for (int c = 0; c < TD_OP_NCATEGORIES; c++)
        fprintf(f, "<tr><td>%s</td><td>%zu</td></tr>", td_op_category_name((td_op_category)c),
                k[c]);
    fputs("</table></div>\n", f);
}

static void side_card(report *r, int side, const td_set *set)
{
    FILE *f = r->f;
    const td_side_notes *n = td_diff_notes(r->in->diff, side);
    fputs("<div class=\"card\"><h3>", f);
    swatch(f, side ? "--tst" : "--ctl");
    html_str(f, r->label[side]);
    fputs("</h3><table class=\"kv\"><tr><td>path</td><td class=\"path\">", f);
    html_str(f, td_set_path(set));
    fprintf(f, "</td></tr><tr><td>rank%s</td><td>", n->nranks == 1 ? "" : "s");
    put_ints(f, n->ranks, n->nranks);
    fputs("</td></tr><tr><td>iterations</td><td>", f);
    if (n->whole_trace)
        fputs("whole trace (no ProfilerStep)", f);
    else
        put_ints(f, n->iters, n->niters);
    fprintf(f, "</td></tr><tr><td>events compared</td><td>%llu</td></tr>",
            (unsigned long long)n->events);
    /* GPU names, each once. */
    fputs("<tr><td>GPU</td><td>", f);
    int any = 0;
    for (size_t i = 0; i < td_set_nfiles(set); i++) {
        td_file_info fi, fj;
        td_set_file_info(set, i, &fi);
        if (!fi.device_name)
            continue;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++) {
            td_set_file_info(set, j, &fj);
            seen = fj.device_name && strcmp(fj.device_name, fi.device_name) == 0;
        }
        if (seen)
            continue;
        fputs(any++ ? "; " : "", f);
        html_str(f, fi.device_name);
    }
    fputs(any ? "" : "(not recorded)", f);
    fputs("</td></tr></table>\n<table class=\"files\"><tr><th>file</th><th>rank</th>"
          "<th>events</th><th>counted</th><th>cpu</th><th>gpu</th><th>no launch</th>"
          "<th>skipped</th><th>steps</th></tr>",
          f);
    for (size_t i = 0; i < td_set_nfiles(set); i++) {
        td_file_info fi;
        td_set_file_info(set, i, &fi);
        /* Inside the set's folder, the file's own name says enough. */
        const char *p = fi.path, *sp = td_set_path(set);
        size_t spl = strlen(sp);
        if (strncmp(p, sp, spl) == 0 && p[spl] == '/' && p[spl + 1])
            p += spl + 1;
        fputs("<tr><td class=\"path\" title=\"", f);
        html_str(f, fi.path);
        fputs("\">", f);
        html_str(f, p);
        fprintf(f,
                "</td><td>%lld</td><td>%llu</td><td>%llu</td><td>%llu</td><td>%llu</td>"
                "<td>%llu</td><td>%llu</td><td>%llu</td></tr>",
                (long long)fi.rank, (unsigned long long)fi.events_total,
                (unsigned long long)fi.events_counted, (unsigned long long)fi.events_cpu,
                (unsigned long long)fi.events_gpu, (unsigned long long)fi.events_no_launch,
                (unsigned long long)fi.events_skipped, (unsigned long long)fi.steps);
    }
    fputs("</table></div>\n", f);
}

/* The notes the command line prints on stderr, in the same words. */
static void notes(report *r)
{
    FILE *f = r->f;
    const td_set *sets[2] = {r->in->control, r->in->test};
    int started = 0;
    char small[1024];
    for (int s = 0; s < 2; s++)
        for (size_t i = 0;; i++) {
            size_t n =
                td_diff_side_note(r->in->diff, s, sets[s], r->label[s], i, small, sizeof small);
            if (!n)
                break;
            char *text = n < sizeof small ? small : malloc(n + 1);
            if (text != small && text)
                td_diff_side_note(r->in->diff, s, sets[s], r->label[s], i, text, n + 1);
            if (!started++)
                fputs("<h2>Notes</h2>\n<ul class=\"notes\" id=\"notes\">\n", f);
            fputs("<li>", f);
            html_str(f, text ? text : small);
            fputs("</li>\n", f);
            if (text != small)
                free(text);
        }
    size_t noisy = td_diff_noisy_names(r->in->diff);
    if (noisy && !started++)
        fputs("<h2>Notes</h2>\n<ul class=\"notes\" id=\"notes\">\n", f);
    if (noisy)
        fprintf(f,
                "<li>%zu names differ only by addresses or line numbers; "
                "<code>--normalize-names</code> folds them</li>\n",
                noisy);
    char round[256];
    if (td_diff_rounding_note(r->in->diff, round, sizeof round)) {
        if (!started++)
            fputs("<h2>Notes</h2>\n<ul class=\"notes\" id=\"notes\">\n", f);
        fputs("<li class=\"rounding\">", f);
        html_str(f, round);
        fputs("</li>\n", f);
    }
    if (started)
        fputs("</ul>\n", f);
}

/* Says which rows a chart shows, from the view that picked them. */
static void caption(FILE *f, const td_view_opts *v, size_t n)
{
    static const char *const col[TD_NCOLUMNS] = {"name",
                                                 "control_counts",
                                                 "control_total_duration",
                                                 "test_counts",
                                                 "test_total_duration",
                                                 "diff_counts",
                                                 "diff_duration",
                                                 "counts_change_categories",
                                                 "abs_diff_counts",
                                                 "abs_diff_duration"};
    const char *c = v->sort >= 0 && v->sort < TD_NCOLUMNS ? col[v->sort] : "?";
    const char *s = n == 1 ? "" : "s";
    if (!v->has_sort || v->sort == TD_COL_NAME)
        fprintf(f, "%s %zu row%s in name order", v->top ? "The first" : "All", n, s);
    else
        fprintf(f, "%s %zu row%s by %s (%s first)", v->top ? "The first" : "All", n, s, c,
                v->ascending ? "smallest" : "largest");
    if (v->include) {
        fputs("; names matching <code>", f);
        html_str(f, v->include);
        fputs("</code>", f);
    }
    if (v->exclude) {
        fputs("; names matching <code>", f);
        html_str(f, v->exclude);
        fputs("</code> left out", f);
    }
    fputs(v->exclude_steps ? "; ProfilerStep rows left out." : ".", f);
}

static int charts(report *r, td_error *err)
{
    FILE *f = r->f;
    char sub[1024];
    td_chart_subtitle(sub, sizeof sub, r->in->diff, r->in->opts, r->label[0], r->label[1]);
    td_chart_opts co = TD_CHART_OPTS_INIT;
    co.control_label = r->label[0];
    co.test_label = r->label[1];
    co.subtitle = sub;
    co.width = r->in->chart_width;
    co.height = r->in->chart_height;
    fputs("<h2>Charts</h2>\n<div id=\"charts\">\n", f);
    for (int k = 1; k >= 0; k--) {
        /* A chart of many rows gets the full width and scrolls rather than
         * shrinking its labels out of reach. */
        fputs(r->chart_n[k] > 16 ? "<figure class=\"wide\">\n" : "<figure>\n", f);
        int rc = td_chart_svg_opts(f, (td_chart_kind)k, r->in->diff, r->chart_rows[k],
                                   r->chart_n[k], &co, err);
        if (rc < 0)
            return rc;
        fputs("<figcaption>", f);
        caption(f, &r->chart_view[k], r->chart_n[k]);
        fputs(" Hover a bar for its number, a group for its full name.</figcaption>\n"
              "</figure>\n",
              f);
    }
    fputs("</div>\n", f);
    return 0;
}

/* The statistics columns of the table (JSON keys, as compare --stats): per
 * iteration, the change of the mean and Welch's interval, in percent of the
 * control's mean like the change beside it (ci_low_pct, ci_high_pct: the
 * terminal table's "[low, high]"; compare --stats keeps them in us); per
 * call, the Hodges-Lehmann shift and its interval (docs/stats.md, "One
 * interval, one statistic"). */
#define NSTAT_COLS 5
static const char *const stat_cols[2][NSTAT_COLS] = {
    {"change_pct", "ci_low_pct", "ci_high_pct", "q_value", "verdict"},
    {"change_pct", "shift_us", "shift_low", "shift_high", "q_value"}};
static const char *const stat_heads[2][NSTAT_COLS] = {
    {"change_%", "ci_low_%", "ci_high_%", "q_value", "verdict"},
    {"change_%", "shift_us", "shift_low", "shift_high", "q_value"}};

/* 1 when the statistics are per call (the shift columns, then verdict). */
static int stat_mode(const td_stats *st)
{
    return st && td_stats_samples(st) == TD_SAMPLES_CALL;
}

static void column_head(FILE *f, const char *key, const char *h)
{
    fprintf(f,
            "<div role=\"columnheader\" tabindex=\"0\" data-col=\"%s\" "
            "aria-sort=\"none\">",
            key);
    /* Long column names break after their underscores, not mid-word. */
    for (const char *u; (u = strchr(h, '_')) != NULL; h = u + 1) {
        td_html_text(f, h, (size_t)(u - h + 1));
        fputs("<wbr>", f);
    }
    html_str(f, h);
    fputs("</div>", f);
}

static void table(report *r)
{
    FILE *f = r->f;
    const char *names[TD_OUT_NCOLS];
    char bufs[4][160];
    td_write_opts wo = TD_WRITE_OPTS_INIT;
    wo.control_label = r->label[0];
    wo.test_label = r->label[1];
    td_column_names(names, bufs, r->in->diff, &wo);
    /* Keys of "#sort=": the spec's names, whatever the labels. */
    static const char *const keys[TD_OUT_NCOLS] = {
        "name",          "control_counts",          "control_total_duration",
        "test_counts",   "test_total_duration",     "diff_counts",
        "diff_duration", "counts_change_categories"};
    fprintf(f,
            "<h2 id=\"rows\">All rows (%zu)</h2>\n<div class=\"controls\">"
            "<input id=\"td-filter\" type=\"search\" placeholder=\"Filter names\" "
            "aria-label=\"Filter names\"><span id=\"td-count\"></span><span class=\"sub\">"
            "Click a column to sort; click a name to unfold it.</span></div>\n",
            td_diff_nrows(r->in->diff));
    /* A grid of divs, not a <table>: the browser can then skip laying out
     * the chunks of rows that are out of view (content-visibility), which a
     * table's rows do not allow. The roles keep it a table to assistive
     * technology. */
    fprintf(f,
            "<div class=\"table-wrap\"><div id=\"td-table\" role=\"table\"%s "
            "aria-label=\"All rows\"><div class=\"tr th\" role=\"row\">",
            !r->in->stats             ? ""
            : stat_mode(r->in->stats) ? " class=\"stats call\""
                                      : " class=\"stats\"");
    for (int c = 0; c < TD_OUT_NCOLS; c++)
        column_head(f, keys[c], c == 0 ? "name" : names[c]);
    int m = stat_mode(r->in->stats);
    for (size_t c = 0; r->in->stats && c < NSTAT_COLS; c++)
        column_head(f, stat_cols[m][c], stat_heads[m][c]);
    if (r->in->stats && m)
        column_head(f, "verdict", "verdict");
    fputs("</div><div id=\"td-tbody\" role=\"rowgroup\"></div></div></div>\n"
          "<noscript><p>The table needs JavaScript; the same rows are in "
          "'tracediff compare --format csv'.</p></noscript>\n",
          f);
}

static void ops_lists(report *r)
{
    FILE *f = r->f;
    const td_row *rows = td_diff_rows(r->ops);
    size_t n = td_diff_nrows(r->ops);
    fputs("<h2>ops_diff</h2>\n<p class=\"sub\">Names by full name: added (only in test), "
          "deleted (only in control), increased, decreased or unchanged in count.</p>\n"
          "<div id=\"ops\">\n",
          f);
    for (int c = 0; c < TD_OP_NCATEGORIES; c++) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            k += td_row_op_category(&rows[i]) == (td_op_category)c;
        const char *name = td_op_category_name((td_op_category)c);
        fprintf(f, "<details class=\"ops-%s\"><summary>%s (%zu)</summary><ul>", name, name, k);
        for (size_t i = 0; i < n; i++) {
            if (td_row_op_category(&rows[i]) != (td_op_category)c)
                continue;
            fputs("<li>", f);
            td_html_text(f, rows[i].name, rows[i].name_len);
            fputs("</li>\n", f);
        }
        fputs("</ul></details>\n", f);
    }
    fputs("</div>\n", f);
}

static void stat_cells(FILE *f, const td_row_stats *s, int call)
{
    double m = s->mean[0]; /* NaN unless a nonzero mean: as the table's */
    double pct = 100.0 / (m != 0 && !isnan(s->change_pct) ? m : NAN);
    const double iter[4] = {s->change_pct, s->ci_low * pct, s->ci_high * pct, s->q};
    const double per_call[5] = {s->change_pct, s->hl_shift, s->shift_low, s->shift_high, s->q};
    const double *v = call ? per_call : iter;
    for (int k = 0; k < (call ? 5 : 4); k++) {
        fputc(',', f);
        js_num(f, v[k]); /* null when undefined */
    }
    fprintf(f, ",\"%s\"", td_verdict_name(s->verdict));
}

static void data_and_script(report *r)
{
    FILE *f = r->f;
    const td_diff *d = r->in->diff;
    const td_row *rows = td_diff_rows(d);
    size_t n = td_diff_nrows(d);
    const td_row_stats *st = r->in->stats ? td_stats_rows(r->in->stats) : NULL;
    fputs("<script type=\"application/json\" id=\"td-data\">{\"columns\": [\"name\", "
          "\"control_counts\", \"control_total_duration\", \"test_counts\", "
          "\"test_total_duration\", \"diff_counts\", \"diff_duration\", "
          "\"counts_change_categories\"",
          f);
    int m = stat_mode(r->in->stats);
    for (size_t c = 0; st && c < NSTAT_COLS; c++)
        fprintf(f, ", \"%s\"", stat_cols[m][c]);
    if (st && m)
        fputs(", \"verdict\"", f);
    fputs("],\n\"rows\": [\n", f);
    for (size_t i = 0; i < n; i++) {
        const td_row *w = &rows[i];
        fputc('[', f);
        td_html_js_str(f, w->name, w->name_len);
        /* Counts as the CSV writer prints them: divided with --per-iteration. */
        const double v[6] = {td_row_count(d, w, 0), w->duration[0],          td_row_count(d, w, 1),
                             w->duration[1],        td_row_diff_count(d, w), w->diff_duration};
        for (int k = 0; k < 6; k++) {
            fputc(',', f);
            js_num(f, v[k]);
        }
        fprintf(f, ",\"%c\"", w->category);
        if (st)
            stat_cells(f, &st[i], m);
        fprintf(f, "]%s\n", i + 1 < n ? "," : "");
    }
    fprintf(f, "]}</script>\n<script>\n%s</script>\n</main>\n</body>\n</html>\n", script);
}

/* ------------------------------------------------------------------------ */

/* The last part of a set's path (its folder or file), trailing '/' left
 * out: the bytes from *out, their length returned. */
static size_t set_name(const td_set *set, const char **out)
{
    const char *p = td_set_path(set);
    size_t n = p ? strlen(p) : 0;
    while (n > 1 && p[n - 1] == '/')
        n--;
    size_t b = n;
    while (b > 0 && p[b - 1] != '/')
        b--;
    *out = p ? p + b : "";
    return n - b;
}

/* The sides' labels: the caller's, else the sets' names (the last part of
 * each path), so that the title, legends and columns say which set is
 * which; "control" and "test" when the names are empty or the same. */
static void set_labels(report *r)
{
    const td_report_input *in = r->in;
    const char *nm[2];
    size_t len[2] = {set_name(in->control, &nm[0]), set_name(in->test, &nm[1])};
    bool named = len[0] && len[1] && len[0] < sizeof r->names[0] && len[1] < sizeof r->names[1] &&
                 (len[0] != len[1] || memcmp(nm[0], nm[1], len[0]) != 0);
    for (int s = 0; s < 2; s++) {
        const char *given = s ? in->test_label : in->control_label;
        if (given) {
            r->label[s] = given;
        } else if (named) {
            memcpy(r->names[s], nm[s], len[s]);
            r->names[s][len[s]] = '\0';
            r->label[s] = r->names[s];
        } else
            r->label[s] = s ? "test" : "control";
    }
}

static int prepare(report *r, td_error *err)
{
    const td_report_input *in = r->in;
    td_compare_opts o = *in->opts; /* shallow: the lists stay the caller's */
    o.by = TD_BY_KERNEL;
    o.only = NULL;
    int rc;
    r->gpu = r->cpu = r->ops = in->diff;
    if (in->opts->device != TD_DEVICE_GPU) {
        o.device = TD_DEVICE_GPU;
        if ((rc = td_diff_compute(&r->own[0], in->control, in->test, &o, err)) < 0)
            return rc;
        r->gpu = r->own[0];
    }
    if (in->opts->device != TD_DEVICE_CPU) {
        o.device = TD_DEVICE_CPU;
        if ((rc = td_diff_compute(&r->own[1], in->control, in->test, &o, err)) < 0)
            return rc;
        r->cpu = r->own[1];
    }
    if (in->opts->short_names) {
        o = *in->opts;
        o.short_names = false;
        if ((rc = td_diff_compute(&r->own[2], in->control, in->test, &o, err)) < 0)
            return rc;
        r->ops = r->own[2];
    }
    for (int k = 0; k < 2; k++) {
        td_view_opts *v = &r->chart_view[k];
        if ((rc = TD_OPTS_TAKE(v, in->chart_view[k], td_view_opts, TD_VIEW_OPTS_INIT, err)) < 0)
            return rc;
        if (!in->chart_view[k])
            td_chart_default_view(v, (td_chart_kind)k);
        long n = td_view_make(&r->chart_rows[k], in->diff, v, err);
        if (n < 0)
            return (int)n;
        r->chart_n[k] = (size_t)n;
    }
    return 0;
}

int td_report_write_html(FILE *f, const td_report_input *input, td_error *err)
{
    td_report_input inc;
    td_compare_opts oc;
    int rc = TD_OPTS_TAKE(&inc, input, td_report_input, TD_REPORT_INPUT_INIT, err);
    if (rc < 0)
        return rc;
    const td_report_input *in = &inc;
    if (!input || !in->control || !in->test || !in->opts || !in->diff)
        return td_fail(err, TD_EUSAGE, "", "report: sets, options and diff are required");
    if ((rc = TD_OPTS_TAKE(&oc, in->opts, td_compare_opts, TD_COMPARE_OPTS_INIT, err)) < 0)
        return rc;
    inc.opts = &oc;
    report r = {0};
    r.f = f;
    r.in = in;
    set_labels(&r);
    /* The sections in other files (td_report_attr_section, ...) read the
     * labels from the input: they get the same ones. */
    inc.control_label = r.label[0];
    inc.test_label = r.label[1];
    rc = prepare(&r, err);
    if (rc < 0)
        goto done;
    head(&r);
    headline(&r);
    fputs("<h2>Sides</h2>\n<div class=\"cards\" id=\"sides\">\n", f);
    side_card(&r, 0, in->control);
    side_card(&r, 1, in->test);
    fputs("</div>\n", f);
    notes(&r);
    if ((rc = charts(&r, err)) < 0)
        goto done;
    if ((rc = td_report_attr_section(f, in, err)) < 0)
        goto done;
    if ((rc = td_report_why_section(f, in, err)) < 0)
        goto done;
    if ((rc = td_report_flame_section(f, in, err)) < 0)
        goto done;
    if ((rc = td_report_tree_section(f, in, err)) < 0)
        goto done;
    table(&r);
    ops_lists(&r);
    data_and_script(&r);
    rc = td_write_end(f, err);
done:
    for (int k = 0; k < 3; k++)
        td_diff_free(r.own[k]);
    free(r.chart_rows[0]);
    free(r.chart_rows[1]);
    return rc;
}
