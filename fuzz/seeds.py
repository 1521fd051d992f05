#!/usr/bin/env python3
"""Writes the committed seed corpus, fuzz/corpus/<target>/, from the test
traces in tests/golden/traces and a list of tricky JSON texts. Run from the
repository root; it replaces the seed files it writes and leaves any other
file (e.g. a minimised input added by hand) alone. Keep the total < 2 MB.

    python3 fuzz/seeds.py [TRACEDIFF]

Given a tracediff binary, it also writes the packed target's seeds: the
files.packed bytes of summaries of the same snippets, of the attribution
traces of tests/data (sorted-int with attribution), of a decimal trace (raw)
and of the schema 1 fixture (the older sorted-int encoding); and the summary
target's seeds, whole summary files: two snippets as two runs of one file,
an attribution trace, a decimal trace with --ns, and the schema 1 fixture.
"""
import glob, gzip, json, os, sqlite3, subprocess, sys, tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
TRACES = os.path.join(ROOT, "tests", "golden", "traces")
OUT = os.path.join(ROOT, "fuzz", "corpus")

TRICKY = {
    "empty": b"",
    "ws_only": b" \t\r\n ",
    "bom_object": b"\xef\xbb\xbf{\"a\": 1}",
    "bom_only": b"\xef\xbb\xbf",
    "half_bom": b"\xef\xbb{}",
    "escapes": br'["\"\\\/\b\f\n\r\t", "\u00e9\u4e2d", "x\u0041y"]',
    "surrogate_pair": br'["\ud83d\ude00", "\uD834\uDD1E", "a\ud83d\ude00b"]',
    "lone_high": br'["\ud800", "\udbff", "x\ud800y", "\ud800\u0041"]',
    "lone_low": br'["\udc00", "\udfff", "\udc00\ud800"]',
    "high_high": br'["\ud800\ud800", "\ud83d\ud83d\ude00"]',
    "nul_escape": br'{"a\u0000b": "\u0000", "a": 1}',
    "bad_escape": br'["\x41"]',
    "short_u": br'["\u12"]',
    "raw_control": b'["a\x01b"]',
    "raw_nul": b'["a\x00b"]',
    "utf8_ok": '["é", "中文", "😀", "\u07ff\u0800\uffff"]'.encode(),
    "utf8_overlong": b'["\xc0\xaf", "\xe0\x80\xaf"]',
    "utf8_surrogate": b'["\xed\xa0\x80"]',
    "utf8_cut": b'["\xe4\xb8"]',
    "utf8_too_big": b'["\xf4\x90\x80\x80"]',
    "big_ints": b"[9223372036854775807, -9223372036854775808, 9223372036854775808, "
                b"123456789012345678, 1234567890123456789, 99999999999999999999999]",
    "floats": b"[1712195495502094.5, 0.1, 5e-324, 2.2250738585072014e-308, "
              b"1.7976931348623157e308, 1e400, -1e400, 1e-400, -0, -0.0, 0e0, 1E+2, 1e-2]",
    "bad_numbers": b"[01, 1., .5, -, +1, 1e, 0x10, 1.e5]",
    "nan_inf": b"[NaN, Infinity, -Infinity]",
    "literals": b"[true, false, null, tru, nul]",
    "comment_line": b"// c\n{}",
    "comment_block": b"{/* c */}",
    "single_quotes": b"{'a': 1}",
    "trailing_comma_arr": b"[1, 2, ]",
    "trailing_comma_obj": b'{"a": 1, }',
    "missing_colon": b'{"a" 1}',
    "missing_comma": b'[1 2]',
    "two_values": b"{} {}",
    "top_number": b"42",
    "top_string": b'"trace"',
    "top_null": b"null",
    "deep_arrays": b"[" * 5000 + b"]" * 5000,
    "deep_objects": b'{"a":' * 300 + b"1" + b"}" * 300,
    "deep_unclosed": b"[" * 5000,
    "long_string": b'["' + b"x" * 3000 + b'"]',
    "long_escaped": b'["' + b"\\u00e9" * 400 + b'"]',
    "long_number": b"[" + b"1" * 400 + b".5]",
    "long_key": b'{"' + b"k" * 500 + b'": 1}',
    "nul_after": b"{}\x00",
    "dup_keys": b'{"a": 1, "a": "x", "a": [1]}',
    "spaced_colons": b'{ "a" : 1 , "b"\t:\n[ 1 , "x" ] ,"c":{"d" :null}}',
    "tight": b'{"a":1,"b":[1,"x",true],"c":{"d":null},"e":-0.5e-3}',
    "short_strings": b'["", "a", "ab", "abc", "\\u00e9", "\xc3\xa9", "abcdefghijklmnopq"]',
}


def events_of(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8") as f:
        d = json.load(f)
    return d


def snippet(doc, budget=3500):
    """A small valid trace: the metadata and the events around the first
    step, with the device events their launches correlate with."""
    ev = doc["traceEvents"] if isinstance(doc, dict) else doc
    steps = [i for i, e in enumerate(ev) if str(e.get("name", "")).startswith("ProfilerStep")]
    start = steps[0] if steps else 0
    keep = set(range(min(2, len(ev))))
    if steps:
        keep.add(start)
    corr = set()
    for i in range(start, len(ev)):
        e = ev[i]
        if len(keep) > 14:
            break
        if e.get("ph") == "X":
            keep.add(i)
            c = (e.get("args") or {}).get("correlation")
            if c is not None:
                corr.add(c)
    for i, e in enumerate(ev):
        if (e.get("args") or {}).get("correlation") in corr and len(keep) < 24:
            keep.add(i)
    out = {}
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k == "traceEvents":
                continue
            if k == "distributedInfo" and isinstance(v, dict):
                v = {kk: v[kk] for kk in ("backend", "rank", "world_size") if kk in v}
            elif k == "deviceProperties" and isinstance(v, list):
                v = v[:1]
            elif len(json.dumps(v)) > 200:
                continue
            out[k] = v
    chosen = [ev[i] for i in sorted(keep)]
    while True:
        out["traceEvents"] = chosen
        text = "{\n" + ",\n".join(
            (json.dumps(k) + ": " + json.dumps(v)) if k != "traceEvents" else
            '"traceEvents": [\n' + ",\n".join(json.dumps(e) for e in chosen) + "\n]"
            for k, v in out.items()) + "\n}\n"
        if len(text) <= budget or len(chosen) <= 4:
            return text.encode()
        chosen = chosen[:-1]


def cuts(text):
    """Truncations at telling places: inside a string, after a comma, inside
    args, before the closing brace."""
    res = {}
    i = text.find(b'"name": "')
    if i > 0:
        res["in_string"] = text[: i + 12]
    i = text.find(b"},\n")
    if i > 0:
        res["after_comma"] = text[: i + 2]
    i = text.find(b'"args": {')
    if i > 0:
        res["in_args"] = text[: i + 14]
    res["before_brace"] = text.rstrip()[:-1]
    return res


def write(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


TRACE_EDGES = {
    "no_trace_events": b'{"schemaVersion": 1}',
    "trace_events_not_array": b'{"traceEvents": {"a": 1}}',
    "bare_array": b'[{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 1, "dur": 2}]',
    "two_trace_events": b'{"traceEvents": [{"cat": "x", "name": "a", "ts": 1.5, "dur": 1}], '
                        b'"traceEvents": [{"cat": "x", "name": "b", "ts": 1, "dur": 1}]}',
    "dup_event_keys": b'{"traceEvents": [{"cat": "x", "name": 5, "name": "a", "ts": 1, '
                      b'"dur": "x", "dur": 2}, {"cat": "Trace", "cat": "y", "name": "b", '
                      b'"dur": 1, "ts": 3}]}',
    "wrong_types": b'{"traceEvents": [1, "x", null, [], {"cat": null, "dur": 1, "name": "a"}, '
                   b'{"cat": "c", "dur": "5", "name": "b", "ts": 1}, {"cat": "c", "dur": 1, '
                   b'"name": 7, "ts": "2"}, {"cat": "c", "dur": 1, "ts": 1}]}',
    "names_nul_surrogate": br'{"traceEvents": [{"cat": "c", "name": "a\u0000b", "ts": 1, '
                           br'"dur": 1}, {"cat": "c", "name": "a", "ts": 1, "dur": 1}, '
                           br'{"cat": "c", "name": "x\ud800", "ts": 2, "dur": 1}, '
                           br'{"cat": "c", "name": "x\udc00", "ts": 2, "dur": 1}]}',
    "rank_big": b'{"distributedInfo": {"rank": 99999999999999999999}, "traceEvents": []}',
    "rank_string": b'{"distributedInfo": {"rank": "3"}, "traceEvents": []}',
    "rank_float": b'{"distributedInfo": {"rank": 3.5}, "traceEvents": []}',
    "rank_null": b'{"distributedInfo": {"rank": null}, "traceEvents": []}',
    "big_values": b'{"traceEvents": [{"cat": "c", "name": "ProfilerStep#99999999999999999999", '
                  b'"ts": 0, "dur": 100}, {"cat": "c", "name": "ProfilerStep#9223372036854775807",'
                  b' "ts": 0, "dur": 100}, {"cat": "c", "name": "a", "ts": 99999999999999999999,'
                  b' "dur": 1e400}, {"cat": "c", "name": "b", "ts": 1, "dur": -1e308}, '
                  b'{"cat": "c", "name": "b", "ts": 1, "dur": -1e308}, {"cat": "k", "name": "k",'
                  b' "ts": 1, "dur": 1, "args": {"stream": 1e30, "correlation": 18446744073709551616}}]}',
    "decimal_ts": b'{"traceEvents": [{"cat": "user_annotation", "name": "ProfilerStep#3", '
                  b'"ts": 1712195495502094.5, "dur": 10.25}, {"cat": "cpu_op", "name": "op", '
                  b'"ts": 1712195495502095.7, "dur": 2.6, "args": {"correlation": 1}}, {"cat": '
                  b'"kernel", "name": "k", "ts": 1712195495502099.1, "dur": 0.4, "args": '
                  b'{"stream": 7, "correlation": 1}}, {"cat": "cpu_op", "name": "nots", "dur": 1}]}',
    "overlapping_steps": b'{"traceEvents": [{"cat": "u", "name": "ProfilerStep#1", "ts": 0, '
                         b'"dur": 100}, {"cat": "u", "name": "ProfilerStep # 2", "ts": 50, '
                         b'"dur": 100}, {"cat": "u", "name": "ProfilerStep#2", "ts": 60, "dur": 0},'
                         b' {"cat": "cpu_op", "name": "a", "ts": 55, "dur": 1, "args": '
                         b'{"stream": 0, "correlation": 5}}, {"cat": "k", "name": "g", "ts": 56, '
                         b'"dur": 1, "args": {"stream": 0, "correlation": 5}}, {"cat": "k", '
                         b'"name": "g", "ts": 57, "dur": 1, "args": {"stream": 3, "correlation": '
                         b'5}}, {"cat": "k", "name": "Event Sync", "ts": 58, "dur": 1, "args": '
                         b'{"correlation": 5}}]}',
    "corr_int64_min": b'{"traceEvents": [{"cat": "u", "name": "ProfilerStep#1", "ts": 0, '
                      b'"dur": 100}, {"cat": "cpu_op", "name": "launch", "ts": 5, "dur": 1, '
                      b'"args": {"correlation": -9223372036854775808}}, {"cat": "kernel", '
                      b'"name": "k", "ts": 6, "dur": 1, "args": {"stream": 7, "correlation": '
                      b'-9223372036854775808}}]}',
    "bom_trace": b'\xef\xbb\xbf{"traceEvents": [{"cat": "c", "name": "a", "ts": 1, "dur": 1}]}',
    "nul_in_file": b'{"traceEvents": []}\x00',
    "short_names": b'{"traceEvents": [{"cat": "k", "name": "void f<int, g<h> >(int*) const", '
                   b'"ts": 1, "dur": 1}, {"cat": "k", "name": "a->b(c)", "ts": 1, "dur": 1}, '
                   b'{"cat": "k", "name": "{lambda(int)#1}::operator()(int) const", "ts": 1, '
                   b'"dur": 1}, {"cat": "k", "name": ")>", "ts": 1, "dur": 1}, {"cat": "k", '
                   b'"name": "Memcpy DtoH (Device -> Pinned)", "ts": 1, "dur": 1}]}',
}

ARGS = {
    "defaults": b"",
    "ranks": b"--control-rank\n0,-3\n--test-rank\nall",
    "iters": b"--control-iteration\n1,2\n--test-iteration=all",
    "bad_iter": b"--test-iteration\n7",
    "huge": b"--control-rank\n99999999999999999999",
    "steps": b"--control-iteration\n9223372036854775807",
    "sort": b"--sort\ndiff_duration\n--ascending\n--top\n2",
    "labels": b"--control-label\nbase\n--test-label\nnew\n--sort\nbase_counts",
    "regex": b"--include\n^a\n--exclude\nmm$\n--device\ngpu\n--short-names",
    "bad_regex": b"--include\n(",
    "regex_python": b"--include\n(?i)^ATEN::(?!mm)\\w+?$\n--exclude\n(a)\\1|\\x00b",
    "regex_backtrack": b"--include\n^(a|aa)+$\n--exclude\n(\\w+)*!",
    "jobs": b"-j\n3\n-q\n--format\ncsv\n-o\n/dev/null",
    "missing_value": b"--sort",
    "list_text": b"1,2,3",
    "list_bad": b"1,,2",
    "name_like": b"void f<int>(float) const",
}


def packed_of(summary):
    con = sqlite3.connect("file:%s?mode=ro" % summary, uri=True)
    rows = con.execute("SELECT r.name, f.rank, f.packed FROM files f JOIN runs r USING (run_id) "
                       "ORDER BY f.run_id, f.rank").fetchall()
    con.close()
    return rows


def packed_seeds(exe, snippets):
    """Summaries of the snippets and of a few test files, their packed bytes."""
    data = os.path.join(ROOT, "tests", "data")
    with tempfile.TemporaryDirectory() as tmp:
        sources = dict(snippets)
        for name in ("attribution/edge.json", "attribution/edge2.json", "attribution/ties.json",
                     "summary_decimal.json"):
            with open(os.path.join(data, name), "rb") as f:
                sources[name.replace("/", "-")[:-5]] = f.read()
        for label, text in sorted(sources.items()):
            src = os.path.join(tmp, label + ".json")
            with open(src, "wb") as f:
                f.write(text)
            out = os.path.join(tmp, label + ".tdsum")
            if subprocess.run([exe, "summarize", src, "-o", out, "-q"]).returncode == 0:
                for _, _, blob in packed_of(out):
                    write("packed", label, blob)
        old = os.path.join(tmp, "schema1.tdsum")
        with gzip.open(os.path.join(data, "summary_schema1.tdsum.gz")) as f, open(old, "wb") as o:
            o.write(f.read())
        for run, rank, blob in packed_of(old):
            if len(blob) < 32768:
                write("packed", "schema1.%s.%d" % (run, rank), blob)
        summary_seeds(exe, tmp, old)


def summary_seeds(exe, tmp, old):
    """Whole summaries for the summary target (a few pages each)."""
    def made(label, runs):
        out = os.path.join(tmp, "whole-" + label + ".tdsum")
        for src, extra in runs:
            if subprocess.run([exe, "summarize", os.path.join(tmp, src), "-o", out, "-q"] + extra).returncode:
                return
        with open(out, "rb") as f:
            write("summary", label, f.read())
    made("two_runs", [("hta-trace_diff.json", ["--run", "a"]), ("hta-triton.json", ["--run", "b"])])
    made("attribution", [("attribution-edge.json", [])])
    made("decimal_ns", [("summary_decimal.json", ["--ns"])])
    with open(old, "rb") as f:
        data = f.read()
    if len(data) < 200000:
        write("summary", "schema1", data)


def main():
    snippets = {}
    for p in sorted(glob.glob(os.path.join(TRACES, "**", "*.json*"), recursive=True)):
        label = os.path.relpath(p, TRACES).split(os.sep)[0]
        if label == "profilers":  # other profilers' exports, not Kineto traces
            continue
        text = snippet(events_of(p))
        snippets[label] = text
        write("trace_load", label + ".json", text)
        for k, v in cuts(text).items():
            write("trace_load", label + "." + k, v)
        if label in ("hta-trace_diff", "hta-triton", "hta-amd"):
            write("trace_load", label + ".gzip", b"G" + text)
            write("trace_load", label + ".zstd", b"Z" + text)
            write("trace_load", label + ".gzip_cut", b"g" + text)
            write("trace_load", label + ".raw_gz", gzip.compress(text, mtime=0))
            write("trace_load", label + ".gzip_members", b"M" + text)
        if label in ("hta-two_ranks", "hta-ns_resolution", "hta-triton"):
            write("json_scan", label + ".json", text)
    for k, v in TRICKY.items():
        write("json_scan", k, v)
        if len(v) < 600:
            write("trace_load", "tricky." + k, v)
    for k, v in TRACE_EDGES.items():
        write("trace_load", k, v)
        write("json_scan", "trace." + k, v)
    for k, v in ARGS.items():
        write("args", k, v)
    if len(sys.argv) > 1:
        packed_seeds(os.path.abspath(sys.argv[1]), snippets)


if __name__ == "__main__":
    main()
