#!/usr/bin/env python3
"""Writes the bad-input files of tests/bad/ (run from anywhere; it writes
next to itself). The files are committed; this script only says how they
were made. Cases that git cannot hold (an empty directory, a symbolic-link
loop) are made at test time by tests/bad_input_test.py."""
import gzip, os, random, subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


def put(name, data):
    path = os.path.join(HERE, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def ev(name, ts, dur, cat="cpu_op", extra=""):
    return ('{"ph": "X", "cat": "%s", "name": "%s", "pid": 1, "tid": 1, "ts": %s, "dur": %s%s}'
            % (cat, name, ts, dur, extra))


def trace(events, rank=0):
    return ('{\n"schemaVersion": 1,\n"distributedInfo": {"backend": "nccl", "rank": %d},\n'
            '"traceEvents": [\n%s\n]\n}\n' % (rank, ",\n".join(events)))


GOOD_EVENTS = [
    ev("ProfilerStep#1", 100, 50, "user_annotation"),
    ev("aten::mm", 110, 10, extra=', "args": {"External id": 1, "correlation": 7}'),
    ev("aten::add", 125, 5),
    ev("void gemm<float>(float*)", 112, 6, "kernel", ', "args": {"stream": 7, "correlation": 7}'),
]
GOOD = trace(GOOD_EVENTS)


def main():
    put("good/good.json", GOOD)
    put("empty.json", "")
    gz = gzip.compress(GOOD.encode(), mtime=0)
    put("truncated.json.gz", gz[: len(gz) // 2])
    zst = subprocess.run(["zstd", "-q", "-c", "-19"], input=GOOD.encode(),
                         capture_output=True, check=True).stdout
    put("truncated.json.zst", zst[: len(zst) // 2])
    put("trunc_in_string.json", GOOD[: GOOD.index('"aten::mm"') + 6])
    put("trunc_after_comma.json", GOOD[: GOOD.index('"aten::add"') - 36])
    put("trunc_in_args.json", GOOD[: GOOD.index('"correlation": 7}') + 8])
    put("trunc_before_brace.json", GOOD.rstrip()[:-1])
    rnd = random.Random(20261121)
    put("random.bin", bytes(rnd.randrange(256) for _ in range(512)))
    put("top_number.json", "42\n")
    put("top_string.json", '"traceEvents"\n')
    put("top_null.json", "null\n")
    put("events_not_array.json", '{"traceEvents": {"0": {"name": "a"}}}\n')
    put("no_trace_events.json", '{"schemaVersion": 1, "deviceProperties": []}\n')
    put("deep.json.gz", gzip.compress(b'{"traceEvents": ' + b"[" * 500000, mtime=0))
    put("nan.json", trace([ev("a", 1, "NaN")]))
    put("infinity.json", trace([ev("a", "-Infinity", 1)]))
    put("comment.json", "// a trace\n" + GOOD)
    put("single_quotes.json", GOOD.replace('"schemaVersion"', "'schemaVersion'"))
    put("trailing_comma.json", trace(GOOD_EVENTS + [""]).replace(",\n\n]", ",\n]"))
    put("nul_byte.json", GOOD.replace(",\n", ",\n\0", 1))
    put("bad_utf8_name.json", trace([ev("caf\xe9", 1, 1)]).encode("latin-1"))
    put("rank_too_big.json", trace([ev("a", 1, 1)]).replace('"rank": 0', '"rank": 18446744073709551616'))
    put("rank_string.json", trace([ev("a", 1, 1)]).replace('"rank": 0', '"rank": "3"'))
    put("rank_decimal.json", trace([ev("a", 1, 1)]).replace('"rank": 0', '"rank": 1.5'))
    put("no_traces_dir/README.txt", "not a trace\n")
    put("two_ranks_dir/a.json", GOOD)
    put("two_ranks_dir/b.json", GOOD)
    put("dir_entry_dir/x.json/inner.txt", "x.json is a directory\n")
    put("dir_entry_dir/y.json", GOOD)
    # Positive cases: content decides, names do not.
    put("gzip_named.json", gz)
    put("plain_named.json.gz", GOOD)
    # Names that must stay distinct and round-trip.
    put("names.json", trace(GOOD_EVENTS[:1] + [
        ev("a\\u0000b", 110, 1), ev("a", 111, 2), ev("x\\ud800", 112, 4),
        ev("x\\udc00", 113, 8), ev("x", 114, 16)]))
    # Names of thousands of characters (deep template kernels): kept whole.
    long_a = "void k<" + ",".join("at::native::Functor%d<float>" % i for i in range(200)) + ">(int)"
    long_b = long_a[:-6] + ",x>(int)"
    put("long_name.json", trace(GOOD_EVENTS[:1] + [
        ev(long_a, 110, 3),
        ev(long_b, 114, 5)]))
    # Odd but readable: read, with a counted note.
    put("not_objects.json", trace(GOOD_EVENTS[:2] + ["1", '"x"', "null", "[]"]))
    put("string_ts.json", trace(GOOD_EVENTS[:2] + [ev("b", '"120"', 3)]))
    put("name_number.json", trace(GOOD_EVENTS[:2] + [ev("b", 120, 3).replace('"b"', "5")]))
    put("cat_null.json", trace(GOOD_EVENTS[:2] + [ev("b", 120, 3).replace('"cpu_op"', "null")]))
    put("dur_string.json", trace(GOOD_EVENTS[:2] + [ev("b", 120, '"3"')]))
    put("bom.json", "\ufeff" + GOOD)
    put("dup_keys.json", trace(GOOD_EVENTS[:2] + [
        ev("b", 120, 3).replace('"name": "b"', '"name": 5, "name": "b"')]))
    put("big_numbers.json", trace([
        ev("ProfilerStep#1", 100, 50, "user_annotation"),
        ev("a", 110, "99999999999999999999"),
        ev("b", "99999999999999999999", 1),
        ev("ProfilerStep#99999999999999999999", 120, 1, "user_annotation")]))


if __name__ == "__main__":
    main()
