/*
 * The report's "Where, by stack" section (docs/stacks.md): the
 * differential flame graph of the report's selection, drawn in the browser
 * from a tree of frames embedded as JSON, with click-to-zoom, a search box
 * that highlights the matching frames and sums their time, and a reset.
 * Inline script, nothing fetched: the page stays one offline file.
 *
 * The tree: one node per distinct (parent, frame) of the rows by stack,
 * each with both sides' inclusive time; a node's parent always comes before
 * it, so the script rebuilds the tree in one pass.
 */
#include "util/util.h"
#include "present/html.h"
#include "present/out_common.h"
#include "util/utf8_text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct fl_node {
    const char *name;
    size_t len;
    double t[2];
    long parent, first, next; /* node indices, -1 none */
} fl_node;

typedef struct fl_tree {
    fl_node *n;
    size_t nn, cap;
} fl_tree;

static long child_of(fl_tree *t, long parent, const char *name, size_t len)
{
    for (long c = parent >= 0 ? t->n[parent].first : -1; c >= 0; c = t->n[c].next)
        if (t->n[c].len == len && memcmp(t->n[c].name, name, len) == 0)
            return c;
    fl_node *nn = td_grow(t->n, &t->cap, t->nn + 1, sizeof *nn);
    if (!nn)
        return -1;
    t->n = nn;
    long id = (long)t->nn++;
    t->n[id] = (fl_node){name, len, {0, 0}, parent, -1, -1};
    if (parent >= 0) {
        t->n[id].next = t->n[parent].first;
        t->n[parent].first = id;
    }
    return id;
}

static double usable(double v)
{
    return isfinite(v) && v > 0 ? v : 0;
}

/* The rows' frames ("a;b;kernel": ';' never inside a frame) as a tree. */
static int tree_build(fl_tree *t, const td_diff *d)
{
    if (child_of(t, -1, "all", 3) < 0)
        return -1;
    const td_row *rows = td_diff_rows(d);
    for (size_t i = 0; i < td_diff_nrows(d); i++) {
        const td_row *r = &rows[i];
        double v[2] = {usable(r->duration[0]), usable(r->duration[1])};
        t->n[0].t[0] += v[0];
        t->n[0].t[1] += v[1];
        long at = 0;
        for (size_t s = 0; s <= r->name_len;) {
            const char *semi = memchr(r->name + s, ';', r->name_len - s);
            size_t e = semi ? (size_t)(semi - r->name) : r->name_len;
            if ((at = child_of(t, at, r->name + s, e - s)) < 0)
                return -1;
            t->n[at].t[0] += v[0];
            t->n[at].t[1] += v[1];
            s = e + 1;
        }
    }
    return 0;
}

static void js_us(FILE *f, double v)
{
    char buf[48];
    td_fmt_num(buf, sizeof buf, v);
    fputs(buf, f);
}

/* Draws the tree as an icicle (root on top) in an SVG: width = test time,
 * colour = change as `plot flame`; a click zooms to a frame (its ancestors
 * drawn full width, dimmed), the search box marks the frames whose name
 * holds its text (any case) and sums the time under the outermost of them,
 * which is the time of the stacks that hold a match; reset undoes both. */
static const char script[] =
    "(function () {\n"
    "'use strict';\n"
    "var el = document.getElementById('td-flame-data');\n"
    "if (!el) return;\n"
    "var D = JSON.parse(el.textContent), N = D.nodes, n = N.length;\n"
    "var kids = [], depth = [], i;\n"
    "for (i = 0; i < n; i++) { kids.push([]); depth.push(0); }\n"
    "for (i = 1; i < n; i++) { kids[N[i][0]].push(i); depth[i] = depth[N[i][0]] + 1; }\n"
    "function byName(a, b) { return N[a][1] < N[b][1] ? -1 : N[a][1] > N[b][1] ? 1 : 0; }\n"
    "for (i = 0; i < n; i++) kids[i].sort(byName);\n"
    "var svg = document.getElementById('td-flame-svg');\n"
    "var box = document.getElementById('td-flame-q');\n"
    "var sum = document.getElementById('td-flame-sum');\n"
    "var where = document.getElementById('td-flame-path');\n"
    "var W = 1200, H = 16, MIN_W = 0.1;\n"
    "var state = {zoom: 0, q: ''};\n"
    "var NF = new Intl.NumberFormat('en-US', {maximumFractionDigits: 1});\n"
    "var MAP = {'&': '&amp;', '<': '&lt;', '>': '&gt;', '\"': '&quot;', \"'\": '&#39;'};\n"
    "function esc(s) { return s.replace(/[&<>\"']/g, function (c) { return MAP[c]; }); }\n"
    "function us(v) { return NF.format(v) + ' \\u00b5s'; }\n"
    "function change(c, t) {\n"
    "  if (c <= 0) return t > 0 ? 'new' : '\\u2014';\n"
    "  var p = (t - c) / c * 100;\n"
    "  return (p > 0 ? '+' : '') + p.toFixed(1) + '%';\n"
    "}\n"
    "function fill(k) {\n"
    "  var c = N[k][2], t = N[k][3];\n"
    "  if (c <= 0 && t > 0) return '#E03C31';\n"
    "  var ch = c > 0 ? (t - c) / c * 100 : 0;\n"
    "  if (ch === 0 || Math.abs(ch) < D.min_change) return '#C8C8C8';\n"
    "  var s = Math.min(Math.abs(ch) / 100, 1), lo = Math.round(210 - 170 * s);\n"
    "  return ch > 0 ? 'rgb(255,' + lo + ',' + lo + ')' : 'rgb(' + lo + ',' + lo + ',255)';\n"
    "}\n"
    "function matches(k) {\n"
    "  return k > 0 && state.q !== '' && N[k][1].toLowerCase().indexOf(state.q) >= 0;\n"
    "}\n"
    "function frame(out, k, x, w, cls) {\n"
    "  var y = depth[k] * H, name = esc(N[k][1]);\n"
    "  if (matches(k)) cls += ' match';\n"
    "  out.push('<g class=\"' + cls + '\" data-i=\"' + k + '\"><title>' + name + '\\n' +\n"
    "    esc(D.labels[0]) + ': ' + us(N[k][2]) + '\\n' + esc(D.labels[1]) + ': ' + us(N[k][3]) +\n"
    "    '\\nchange: ' + change(N[k][2], N[k][3]) + '<\\/title><rect x=\"' + x.toFixed(2) +\n"
    "    '\" y=\"' + y + '\" width=\"' + w.toFixed(2) + '\" height=\"' + (H - 1) +\n"
    "    '\" fill=\"' + (matches(k) ? '#E040FB' : fill(k)) + '\"/>' +\n"
    "    (N[k][2] <= 0 && N[k][3] > 0 ? '<rect x=\"' + x.toFixed(2) + '\" y=\"' + y +\n"
    "      '\" width=\"' + w.toFixed(2) + '\" height=\"' + (H - 1) +\n"
    "      '\" fill=\"url(#td-flame-hatch)\"/>' : ''));\n"
    "  var room = Math.floor((w - 6) / 6.2);\n"
    "  if (room >= 4) {\n"
    "    var s = N[k][1];\n"
    "    if (s.length > room) s = s.slice(0, room - 3) + '...';\n"
    "    out.push('<text x=\"' + (x + 3).toFixed(2) + '\" y=\"' + (y + H - 4.5) + '\">' +\n"
    "      esc(s) + '<\\/text>');\n"
    "  }\n"
    "  out.push('<\\/g>');\n"
    "}\n"
    "function render() {\n"
    "  var z = state.zoom, out = [], chain = [], maxd = 0, a;\n"
    "  for (a = z; a >= 0; a = N[a][0]) chain.unshift(a);\n"
    "  var tz = N[z][3], scale = tz > 0 ? W / tz : 0;\n"
    "  out.push('<defs><pattern id=\"td-flame-hatch\" width=\"6\" height=\"6\" ' +\n"
    "    'patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><line x1=\"0\" ' +\n"
    "    'y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#FFFFFF\" "
    "stroke-width=\"2\"/><\\/pattern><\\/defs>');\n"
    "  for (var c = 0; c < chain.length; c++)\n"
    "    frame(out, chain[c], 0, W, chain[c] === z ? 'frame zoomed' : 'frame ancestor');\n"
    "  maxd = depth[z];\n"
    "  (function lay(k, x) {\n"
    "    for (var j = 0; j < kids[k].length; j++) {\n"
    "      var ch = kids[k][j], w = N[ch][3] * scale;\n"
    "      if (w >= MIN_W) {\n"
    "        frame(out, ch, x, w, 'frame');\n"
    "        if (depth[ch] > maxd) maxd = depth[ch];\n"
    "        lay(ch, x);\n"
    "      }\n"
    "      x += w;\n"
    "    }\n"
    "  })(z, 0);\n"
    "  var h = (maxd + 1) * H;\n"
    "  svg.setAttribute('viewBox', '0 0 ' + W + ' ' + h);\n"
    "  svg.setAttribute('height', h);\n"
    "  svg.setAttribute('data-zoom', z);\n"
    "  svg.innerHTML = out.join('');\n"
    "  where.textContent = z ? chain.slice(1).map(function (k) { return N[k][1]; }).join(' \\u203a "
    "')\n"
    "                        : 'all stacks';\n"
    "}\n"
    "function search() {\n"
    "  var tot = [0, 0], frames = 0, top = [0];\n"
    "  while (top.length) {\n"
    "    var m = top.pop();\n"
    "    if (matches(m)) {\n"
    "      tot[0] += N[m][2];\n"
    "      tot[1] += N[m][3];\n"
    "      frames++;\n"
    "      continue;\n"
    "    }\n"
    "    for (var q = 0; q < kids[m].length; q++) top.push(kids[m][q]);\n"
    "  }\n"
    "  sum.setAttribute('data-control', tot[0]);\n"
    "  sum.setAttribute('data-test', tot[1]);\n"
    "  sum.setAttribute('data-frames', frames);\n"
    "  sum.textContent = state.q === '' ? '' :\n"
    "    frames ? 'matches: ' + D.labels[0] + ' ' + us(tot[0]) + ', ' + D.labels[1] + ' ' +\n"
    "             us(tot[1]) + ' (' + change(tot[0], tot[1]) + ')' : 'no frame matches';\n"
    "}\n"
    "svg.addEventListener('click', function (e) {\n"
    "  var g = e.target && e.target.closest ? e.target.closest('g.frame') : null;\n"
    "  if (!g) return;\n"
    "  state.zoom = +g.getAttribute('data-i');\n"
    "  render();\n"
    "});\n"
    "box.addEventListener('input', function () {\n"
    "  state.q = this.value.toLowerCase();\n"
    "  render();\n"
    "  search();\n"
    "});\n"
    "document.getElementById('td-flame-reset').addEventListener('click', function () {\n"
    "  state.zoom = 0;\n"
    "  state.q = box.value = '';\n"
    "  render();\n"
    "  search();\n"
    "});\n"
    "render();\n"
    "search();\n"
    "})();\n";

static const char css[] =
    "<style>\n"
    "#td-flame-wrap{background:#fff;border:1px solid var(--line);border-radius:8px;"
    "padding:10px;overflow-x:auto}\n"
    "#td-flame-svg{display:block;width:100%;min-width:900px;font:11px 'DejaVu Sans',"
    "sans-serif}\n"
    "#td-flame-svg g.frame{cursor:pointer}#td-flame-svg g.ancestor rect{opacity:.55}\n"
    "#td-flame-svg g.frame:hover rect{stroke:#1F2328;stroke-width:.5}\n"
    "#td-flame-q{font:inherit;padding:6px 10px;width:300px;max-width:100%;"
    "border:1px solid #B8C0CA;border-radius:6px}\n"
    "#td-flame-path{font-family:ui-monospace,'DejaVu Sans Mono',Menlo,monospace;"
    "font-size:12px;overflow-wrap:anywhere;margin:6px 0}\n"
    "</style>\n";

/* The selection's diff by stack: GPU time, or CPU time for a report of
 * the CPU (--device cpu; docs/stacks.md). */
static int stack_diff(td_diff **out, const td_report_input *in, td_error *err)
{
    td_compare_opts o = *in->opts; /* shallow: the lists stay the caller's */
    o.by = TD_BY_STACK;
    o.device = in->opts->device == TD_DEVICE_CPU ? TD_DEVICE_CPU : TD_DEVICE_GPU;
    o.only = NULL;
    return td_diff_compute(out, in->control, in->test, &o, err);
}

/* The section's first words: what the graph shows and how it is coloured. */
static void flame_intro(FILE *f, const td_report_input *in, const char *const label[2],
                        double min_change)
{
    if (in->opts->device == TD_DEVICE_CPU)
        fputs("<p class=\"sub\">CPU time by stack: each CPU event under the frames around it "
              "(python_function, user_annotation, cpu_op), root on top; a frame holds its own "
              "time and that of the events under it, as compare --device cpu counts them "
              "(docs/stacks.md). Width = ",
              f);
    else
        fputs("<p class=\"sub\">GPU time by stack: the CPU frames around each kernel's launch "
              "(python_function, user_annotation, cpu_op), root on top (docs/stacks.md). "
              "Width = ",
              f);
    td_html_text(f, label[1], strlen(label[1]));
    fputs(" time; red slower, blue faster than ", f);
    td_html_text(f, label[0], strlen(label[0]));
    fprintf(f, ", grey within %.6g%% (--min-change); hatched: only in ", min_change);
    td_html_text(f, label[1], strlen(label[1]));
}

int td_report_flame_section(FILE *f, const td_report_input *in, td_error *err)
{
    td_diff *d = NULL;
    td_error why = {0};
    fputs("<h2 id=\"flame\">Where, by stack</h2>\n", f);
    if (stack_diff(&d, in, &why) < 0) {
        if (why.code != TD_EUSAGE) {
            *err = why;
            return why.code;
        }
        /* No stacks (a summary, or sets opened without them): say why. */
        fputs("<p class=\"sub\" id=\"td-flame-none\">No flame graph: ", f);
        if (why.path[0]) {
            td_html_text(f, why.path, strlen(why.path));
            fputs(": ", f);
        }
        td_html_text(f, why.msg, strlen(why.msg));
        fputs(".</p>\n", f);
        return 0;
    }
    fl_tree t = {0};
    if (tree_build(&t, d) < 0) {
        free(t.n);
        td_diff_free(d);
        return td_fail(err, TD_ENOMEM, "", "out of memory");
    }
    const char *label[2] = {in->control_label ? in->control_label : "control",
                            in->test_label ? in->test_label : "test"};
    bool has_mc =
        in->size >= offsetof(td_report_input, has_min_change) + sizeof(bool) && in->has_min_change;
    double min_change = has_mc ? in->min_change : in->stats ? td_stats_min_change(in->stats) : 1.0;
    fputs(css, f);
    flame_intro(f, in, label, min_change);
    fputs(". Click a frame to zoom; the search marks the frames whose name holds the text "
          "(any case) and sums the time of the stacks that hold one.</p>\n"
          "<div class=\"controls\"><input id=\"td-flame-q\" type=\"search\" "
          "placeholder=\"Search frames\" aria-label=\"Search frames\">"
          "<button id=\"td-flame-reset\" type=\"button\">Reset</button>"
          "<span id=\"td-flame-sum\" class=\"sub\"></span></div>\n"
          "<div id=\"td-flame-path\"></div>\n"
          "<div id=\"td-flame-wrap\"><svg id=\"td-flame-svg\" xmlns=\"http://www.w3.org/2000/svg\" "
          "role=\"img\" aria-label=\"Differential flame graph\"></svg></div>\n"
          "<noscript><p>The flame graph needs JavaScript; the same stacks are in "
          "'tracediff plot flame' and 'compare --format folded'.</p></noscript>\n"
          "<script type=\"application/json\" id=\"td-flame-data\">{\"labels\": [",
          f);
    td_html_js_str(f, label[0], strlen(label[0]));
    fputs(", ", f);
    td_html_js_str(f, label[1], strlen(label[1]));
    fputs("], \"min_change\": ", f);
    js_us(f, min_change);
    fputs(",\n\"nodes\": [\n", f);
    for (size_t i = 0; i < t.nn; i++) {
        const fl_node *k = &t.n[i];
        fprintf(f, "[%ld,", k->parent);
        td_html_js_str(f, k->name, k->len);
        fputc(',', f);
        js_us(f, k->t[0]);
        fputc(',', f);
        js_us(f, k->t[1]);
        fprintf(f, "]%s\n", i + 1 < t.nn ? "," : "");
    }
    fprintf(f, "]}</script>\n<script>\n%s</script>\n", script);
    free(t.n);
    td_diff_free(d);
    return 0;
}
