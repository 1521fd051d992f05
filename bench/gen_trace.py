#!/usr/bin/env python3
"""Generate large, realistic PyTorch profiler (Kineto / Chrome trace) files
for benchmarking tracediff, by repeating the events of a real trace.

Single file:
    gen_trace.py --input REAL.json[.gz] (--scale K | --target-mb M) --out OUT.json
                 [--gzip] [--rank R] [--jitter] [--seed S]
Many-rank set (identical files except distributedInfo.rank):
    gen_trace.py ranks --input REAL.json[.gz] --ranks N --out DIR
                 [--scale K | --target-mb M] [--gzip] [--jitter] [--seed S]

Copy c (0 <= c < K) of every non-metadata event (ph != "M"):
  ts              += c * span   (span = ceil(max(ts+dur) - min(ts)) over those events)
  ProfilerStep#N  -> ProfilerStep#(N + c * (maxN - minN + 1))
  args.correlation, args["External id"] (and lowercase "external id"),
  args["Python id"] / ["Python parent id"], flow "id" (ph s/t/f)
                  += c * (max value + 1), one offset per id family;
                  values <= 0 are treated as "none" sentinels and kept.
Metadata events and all top-level keys are written once.  Numbers are parsed
exactly (floats as decimal.Decimal), so integers stay integers and decimals keep
their digits.  Standard library only.  See bench/README.md.
"""

import argparse
import decimal
import gzip
import json
import math
import os
import random
import re
import struct
import sys
import time
import zlib
from decimal import Decimal

# Field kinds: index into the per-copy offset table.
K_TS, K_STEP, K_CORR, K_EXT, K_FLOW, K_PY, K_DUR = range(7)
N_KINDS = 6  # kinds with a plain additive offset (K_DUR only exists with --jitter)

ARG_KINDS = (
    ("correlation", K_CORR),
    ("External id", K_EXT),
    ("external id", K_EXT),
    ("Python id", K_PY),
    ("Python parent id", K_PY),
)
FLOW_PHASES = ("s", "t", "f")
STEP_RE = re.compile(r"ProfilerStep#(\d+)\Z")
MARK = "@@TDG"
MARK_RE = re.compile(r'"@@TDG([VD])(\d+)@@"|@@TDG(S)(\d+)@@')
SEPARATORS = (", ", ": ")
CHUNK_EVENTS = 8192
JITTER_CELL = 4          # time units (us) per cell of the jitter warp
JITTER_MAX = 3           # warp offset D(t) stays in [0, JITTER_MAX]
JITTER_CELLS = 1 << 16   # length of the per-copy warp pattern (cells), repeats


def is_num(v):
    return (type(v) is int) or (type(v) is Decimal and v.is_finite())


# ---------------------------------------------------------------- JSON helpers

def _dumps_marked(obj, consts):
    """json.dumps with Decimals replaced by markers "@@TDGD<i>@@" (text in consts)."""
    def hook(o):
        if isinstance(o, Decimal):
            consts.append(str(o))
            return "%sD%d@@" % (MARK, len(consts) - 1)
        raise TypeError("not JSON serializable: %r" % (o,))
    return json.dumps(obj, separators=SEPARATORS, default=hook)


def _dumps_event_indented(obj, consts):
    """An event as Kineto writes it: on lines of its own, indented, its args
    object opened on a line of its own (markers as _dumps_marked)."""
    def one(v):
        return _dumps_marked(v, consts)
    members = ['%s: %s' % (json.dumps(k), one(v)) for k, v in obj.items() if k != "args"]
    s = "  {\n    " + ", ".join(members)
    if "args" in obj:
        a = obj["args"]
        if isinstance(a, dict) and a:
            inner = ", ".join('%s: %s' % (json.dumps(k), one(v)) for k, v in a.items())
            s += ',\n    "args": {\n      ' + inner + "\n    }"
        else:
            s += ',\n    "args": ' + one(a)
    return s + "\n  }"


def dumps(obj):
    """json.dumps that writes Decimals with their exact text."""
    consts = []
    s = _dumps_marked(obj, consts)
    if not consts:
        return s
    return MARK_RE.sub(lambda m: consts[int(m.group(2))], s)


def load_trace(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    if MARK.encode() in raw:
        sys.exit("gen_trace: input contains the internal marker %r" % MARK)
    doc = json.loads(raw, parse_float=Decimal)
    if isinstance(doc, list):           # bare event array
        doc = {"traceEvents": doc}
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        sys.exit("gen_trace: %s: no traceEvents array" % path)
    return doc, len(raw)


# ------------------------------------------------------------------- analysis

class Plan:
    """Everything needed to render copies: templates, span, id offsets."""

    def __init__(self, doc, jitter, indent=False):
        self.indent = indent
        events = doc["traceEvents"]
        self.jitter = jitter
        t_min = t_max = None
        step_min = step_max = None
        maxid = [0] * N_KINDS
        n_meta = 0
        for e in events:
            if not isinstance(e, dict):
                continue
            if e.get("ph") == "M":
                n_meta += 1
                continue
            ts = e.get("ts")
            if is_num(ts):
                end = ts
                dur = e.get("dur")
                if is_num(dur) and dur > 0:
                    end = ts + dur
                if t_min is None or ts < t_min:
                    t_min = ts
                if t_max is None or end > t_max:
                    t_max = end
            name = e.get("name")
            if type(name) is str and name.startswith("ProfilerStep#"):
                m = STEP_RE.match(name)
                if m:
                    n = int(m.group(1))
                    step_min = n if step_min is None else min(step_min, n)
                    step_max = n if step_max is None else max(step_max, n)
            args = e.get("args")
            if type(args) is dict:
                for key, kind in ARG_KINDS:
                    v = args.get(key)
                    if type(v) is int and v > maxid[kind]:
                        maxid[kind] = v
            if e.get("ph") in FLOW_PHASES:
                v = e.get("id")
                if type(v) is int and v > maxid[K_FLOW]:
                    maxid[K_FLOW] = v
        self.t0 = t_min if t_min is not None else 0
        self.span_exact = (t_max - t_min) if t_min is not None else 0
        span = int(math.ceil(self.span_exact))
        if jitter:
            span += JITTER_MAX  # warp may push a copy's last end by up to JITTER_MAX
        self.span = max(span, 1)
        self.steps = (step_min, step_max)
        self.step_mul = (step_max - step_min + 1) if step_min is not None else 0
        self.unit = [0] * N_KINDS
        self.unit[K_TS] = self.span
        self.unit[K_STEP] = self.step_mul
        for k in (K_CORR, K_EXT, K_FLOW, K_PY):
            self.unit[k] = maxid[k] + 1 if maxid[k] > 0 else 0
        self.maxid = maxid
        self.n_meta = n_meta
        # Templates: (fmt, fields) where fields is None (literal) or a tuple of
        # (kind, base) substituted with fmt % values.
        self.all_tmpl = []
        self.copy_tmpl = []
        self.all_ts = []    # for cut(): ts of each event, None for metadata or no ts
        self.all_meta = []
        for e in events:
            t = self._template(e)
            self.all_tmpl.append(t)
            meta = isinstance(e, dict) and e.get("ph") == "M"
            self.all_meta.append(meta)
            self.all_ts.append(e.get("ts") if not meta and is_num(e.get("ts")) else None)
            if not meta:
                self.copy_tmpl.append(t)

    def cut(self, budget):
        """Keep only the events before a time chosen so that copy 0 renders to
        about budget bytes (metadata and events without ts are always kept).
        Returns (kept, total) event counts."""
        sizes = [copy_size([t], self.unit, 0) for t in self.all_tmpl]
        budget -= sum(n for n, ts in zip(sizes, self.all_ts) if ts is None)
        timed = sorted((ts, n) for n, ts in zip(sizes, self.all_ts) if ts is not None)
        cutoff = None
        for ts, n in timed:
            budget -= n
            if budget < 0:
                cutoff = ts
                break
        total = len(self.all_tmpl)
        if cutoff is not None:
            keep = [ts is None or ts < cutoff for ts in self.all_ts]
            self.copy_tmpl = [t for t, k, m in zip(self.all_tmpl, keep, self.all_meta)
                              if k and not m]
            self.all_tmpl = [t for t, k in zip(self.all_tmpl, keep) if k]
        return len(self.all_tmpl), total

    def _template(self, e):
        if not isinstance(e, dict) or e.get("ph") == "M":
            if self.indent and isinstance(e, dict):
                consts = []
                s = _dumps_event_indented(e, consts)
                return (",\n" + MARK_RE.sub(lambda m: consts[int(m.group(2))], s), None)
            return (",\n" + dumps(e), None)
        fields = []
        x = dict(e)

        def mark(kind, base, inside_string=False):
            fields.append((kind, base))
            return "%s%s%d@@" % (MARK, "S" if inside_string else "V", len(fields) - 1)

        ts = x.get("ts")
        if is_num(ts):
            x["ts"] = mark(K_TS, ts)
            dur = x.get("dur")
            if self.jitter and is_num(dur) and dur >= 0:
                x["dur"] = mark(K_DUR, (ts, dur))
        name = x.get("name")
        if type(name) is str and name.startswith("ProfilerStep#"):
            m = STEP_RE.match(name)
            if m:
                x["name"] = "ProfilerStep#" + mark(K_STEP, int(m.group(1)), True)
        args = x.get("args")
        if type(args) is dict:
            a = None
            for key, kind in ARG_KINDS:
                v = args.get(key)
                if type(v) is int and v > 0 and self.unit[kind]:
                    if a is None:
                        a = dict(args)
                    a[key] = mark(kind, v)
            if a is not None:
                x["args"] = a
        if x.get("ph") in FLOW_PHASES:
            v = x.get("id")
            if type(v) is int and v > 0 and self.unit[K_FLOW]:
                x["id"] = mark(K_FLOW, v)

        consts = []
        s = _dumps_event_indented(x, consts) if self.indent else _dumps_marked(x, consts)
        if not fields:
            if consts:
                s = MARK_RE.sub(lambda m: consts[int(m.group(2))], s)
            return (",\n" + s, None)
        out = [",\n"]
        order = []
        pos = 0
        for m in MARK_RE.finditer(s):
            out.append(s[pos:m.start()].replace("%", "%%"))
            if m.group(1) == "D":
                out.append(consts[int(m.group(2))].replace("%", "%%"))
            else:
                out.append("%s")
                order.append(fields[int(m.group(2) or m.group(4))])
            pos = m.end()
        out.append(s[pos:].replace("%", "%%"))
        return ("".join(out), tuple(order))


# --------------------------------------------------------------------- jitter

class Warp:
    """Monotone time warp T(t) = t + D(t) for one copy, 0 <= D <= JITTER_MAX.

    D is a bounded pseudo-random walk over cells of JITTER_CELL time units,
    linearly interpolated inside a cell; it never drops by more than 1 per
    cell, so T is non-decreasing.  Applying T to both ends of every event keeps
    order, nesting, stream non-overlap and flow-endpoint equality intact,
    while changing each duration by at most +-JITTER_MAX and never below 0.
    """

    def __init__(self, seed, copy, t0):
        rng = random.Random(seed * 1000003 + copy)
        w = [rng.randint(0, JITTER_MAX)]
        steps = rng.randbytes(JITTER_CELLS - 1)
        d = w[0]
        for b in steps:
            d += (b % 3) - 1
            if d < 0:
                d = 0
            elif d > JITTER_MAX:
                d = JITTER_MAX
            w.append(d)
        while w[-1] - 1 > w[0]:       # make the cyclic wrap non-decreasing too
            w.append(w[-1] - 1)
        self.n = len(w)
        w.append(w[0])
        self.w = w
        self.t0 = t0

    def __call__(self, t):
        rel = t - self.t0
        if type(t) is int:
            q, r = divmod(rel, JITTER_CELL)
            i = q % self.n
            d0 = self.w[i]
            return t + (d0 * JITTER_CELL + (self.w[i + 1] - d0) * r) // JITTER_CELL
        q = int(rel // JITTER_CELL)
        r = rel - q * JITTER_CELL
        i = q % self.n
        d0 = self.w[i]
        v = t + d0 + (self.w[i + 1] - d0) * r / JITTER_CELL
        return v.quantize(Decimal((0, (1,), t.as_tuple().exponent)),
                          rounding=decimal.ROUND_FLOOR)


def _like(v, proto):
    """Cast a jittered duration to the type/precision of the original."""
    if type(proto) is int:
        if type(v) is not int:
            v = int(v.to_integral_value(rounding=decimal.ROUND_FLOOR))
        return v if v > 0 else 0
    v = Decimal(v).quantize(Decimal((0, (1,), proto.as_tuple().exponent)),
                            rounding=decimal.ROUND_FLOOR)
    return v if v > 0 else Decimal((0, (0,), proto.as_tuple().exponent))


# -------------------------------------------------------------------- render

def render(plan, ncopies, write, seed=0):
    """Write the events of all copies (each prefixed by ",\\n"), return count."""
    count = 0
    for c in range(ncopies):
        tmpls = plan.all_tmpl if c == 0 else plan.copy_tmpl
        off = [c * u for u in plan.unit]
        warp = Warp(seed, c, plan.t0) if (plan.jitter and c > 0) else None
        shift = off[K_TS]
        buf = []
        append = buf.append
        for fmt, flds in tmpls:
            if flds is None:
                append(fmt)
            elif warp is None:
                if plan.jitter:   # copy 0 with --jitter: dur fields hold (ts, dur)
                    append(fmt % tuple([b[1] if k == K_DUR else b + off[k]
                                        for k, b in flds]))
                else:
                    append(fmt % tuple([b + off[k] for k, b in flds]))
            else:
                vals = []
                for k, b in flds:
                    if k == K_TS:
                        vals.append(warp(b) + shift)
                    elif k == K_DUR:
                        ts, dur = b
                        vals.append(_like(warp(ts + dur) - warp(ts), dur))
                    else:
                        vals.append(b + off[k])
                append(fmt % tuple(vals))
            if len(buf) >= CHUNK_EVENTS:
                write("".join(buf).encode())
                count += len(buf)
                buf = []
                append = buf.append
        if buf:
            write("".join(buf).encode())
            count += len(buf)
    return count


def head_tail(doc, rank=None, rank_in_head=False):
    """Top-level text before the first event and after the last one."""
    keys = list(doc.keys())
    ti = keys.index("traceEvents")
    before, after = keys[:ti], keys[ti + 1:]
    di = None
    if rank is not None:
        di = doc.get("distributedInfo")
        di = dict(di) if isinstance(di, dict) else {}
        di["rank"] = rank
        if "distributedInfo" not in doc or (rank_in_head and "distributedInfo" in after):
            if "distributedInfo" in after:
                after.remove("distributedInfo")
            before.append("distributedInfo")

    def kv(k):
        v = di if (k == "distributedInfo" and di is not None) else doc[k]
        return "  %s: %s" % (json.dumps(k), dumps(v))

    head = "{\n" + "".join(kv(k) + ",\n" for k in before) + '  "traceEvents": ['
    tail = "\n  ]" + "".join(",\n" + kv(k) for k in after) + "\n}\n"
    return head, tail


class BodyWriter:
    """Receives rendered chunks; drops the leading comma of the first event."""

    def __init__(self, write):
        self._write = write
        self.first = True
        self.nbytes = 0

    def __call__(self, b):
        if self.first and b:
            b = b[1:]               # ",\n{...}" -> "\n{...}"
            self.first = False
        self.nbytes += len(b)
        self._write(b)


def copy_size(tmpls, unit, c):
    """Plain bytes of copy c rendered from tmpls (without jitter)."""
    n = 0
    for fmt, flds in tmpls:
        if flds is None:
            n += len(fmt)
        else:
            n += len(fmt % tuple([b[1] if k == K_DUR else b + c * unit[k]
                                  for k, b in flds]))
    return n


def choose_scale(plan, target_mb, head, tail):
    """K such that the plain output is closest to target_mb * 1e6 bytes."""
    s0 = copy_size(plan.all_tmpl, plan.unit, 0)
    s1 = copy_size(plan.copy_tmpl, plan.unit, 1)
    if not s1:
        return 1
    fixed = len(head.encode()) + len(tail.encode()) - 1 + s0
    k = max(1, int(round((target_mb * 1e6 - fixed) / s1)) + 1)
    # Later copies have longer numbers (ids gain digits): refine with the mean
    # of the first and last copy sizes.
    for _ in range(3):
        if k < 3:
            break
        per = (s1 + copy_size(plan.copy_tmpl, plan.unit, k - 1)) / 2.0
        k2 = max(1, int(round((target_mb * 1e6 - fixed) / per)) + 1)
        if k2 == k:
            break
        k = k2
    return k


# ------------------------------------------------------------------- outputs

def _open_out(path, use_gzip):
    f = open(path, "wb", buffering=1 << 20)
    if use_gzip:
        z = gzip.GzipFile(filename="", mode="wb", compresslevel=6, fileobj=f, mtime=0)
        return z, f
    return f, f


def write_single(plan, doc, args, k):
    head, tail = head_tail(doc, rank=args.rank)
    out, raw = _open_out(args.out, args.gzip)
    out.write(head.encode())
    bw = BodyWriter(out.write)
    n = render(plan, k, bw, args.seed)
    out.write(tail.encode())
    if out is not raw:
        out.close()
    raw.close()
    plain = len(head.encode()) + bw.nbytes + len(tail.encode())
    return n, plain, os.path.getsize(args.out)


# gzip splicing for the ranks mode: compress the (rank independent) body once as
# a raw deflate stream, then per rank emit  gzip header + deflate(head) flushed
# with Z_SYNC_FLUSH (byte aligned, not final) + body stream + trailer.  The
# trailer CRC is combined arithmetically (GF(2) matrix powers), no re-read.

def _gf2_times(mat, vec):
    s = 0
    i = 0
    while vec:
        if vec & 1:
            s ^= mat[i]
        vec >>= 1
        i += 1
    return s


def _gf2_square(mat):
    return [_gf2_times(mat, mat[i]) for i in range(32)]


def crc32_combine(crc1, crc2, len2):
    """CRC-32 of A+B from crc32(A), crc32(B) and len(B)."""
    if len2 <= 0:
        return crc1
    op = [0xEDB88320] + [1 << i for i in range(31)]   # one zero bit
    for _ in range(3):                                 # -> one zero byte
        op = _gf2_square(op)
    while len2:
        if len2 & 1:
            crc1 = _gf2_times(op, crc1)
        len2 >>= 1
        if len2:
            op = _gf2_square(op)
    return crc1 ^ crc2


GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"


def write_ranks(plan, doc, args, k):
    os.makedirs(args.out, exist_ok=True)
    ext = ".json.gz" if args.gzip else ".json"
    tmp = os.path.join(args.out, ".gen_trace_body.tmp")
    _, tail = head_tail(doc, rank=0, rank_in_head=True)
    tail_b = tail.encode()
    body_crc = 0
    body_len = 0
    with open(tmp, "wb", buffering=1 << 20) as f:
        if args.gzip:
            co = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
            state = [0, 0]

            def w(b):
                state[0] = zlib.crc32(b, state[0])
                state[1] += len(b)
                f.write(co.compress(b))
            bw = BodyWriter(w)
            n = render(plan, k, bw, args.seed)
            w(tail_b)
            f.write(co.flush())
            body_crc, body_len = state
        else:
            bw = BodyWriter(f.write)
            n = render(plan, k, bw, args.seed)
            f.write(tail_b)
    plain_body = bw.nbytes + len(tail_b)
    total = 0
    plain_total = 0
    tmp_size = os.path.getsize(tmp)
    with open(tmp, "rb") as src:
        for r in range(args.ranks):
            head, _ = head_tail(doc, rank=r, rank_in_head=True)
            hb = head.encode()
            path = os.path.join(args.out, "rank-%d%s" % (r, ext))
            with open(path, "wb") as o:
                if args.gzip:
                    hc = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
                    o.write(GZIP_HEADER)
                    o.write(hc.compress(hb) + hc.flush(zlib.Z_SYNC_FLUSH))
                    o.flush()
                    _copy(src, o, tmp_size)
                    crc = crc32_combine(zlib.crc32(hb), body_crc, body_len)
                    o.write(struct.pack("<II", crc, (len(hb) + body_len) & 0xFFFFFFFF))
                else:
                    o.write(hb)
                    o.flush()
                    _copy(src, o, tmp_size)
            total += os.path.getsize(path)
            plain_total += len(hb) + plain_body
    os.unlink(tmp)
    return n, plain_total, total


def _copy(src, dst, size):
    """Append the whole of src (an open file) to dst."""
    off = 0
    try:
        while off < size:
            sent = os.sendfile(dst.fileno(), src.fileno(), off, min(size - off, 1 << 30))
            if sent <= 0:
                break
            off += sent
    except (AttributeError, OSError):
        pass
    if off < size:
        src.seek(off)
        while True:
            b = src.read(1 << 22)
            if not b:
                break
            dst.write(b)


# ----------------------------------------------------------------------- CLI

def parse_args(argv):
    ranks_mode = bool(argv) and argv[0] == "ranks"
    p = argparse.ArgumentParser(
        prog="gen_trace.py" + (" ranks" if ranks_mode else ""),
        description="Scale a real PyTorch profiler trace for benchmarks "
                    "(use 'gen_trace.py ranks ...' for a many-rank set).")
    p.add_argument("--input", required=True, help="real trace, .json or .json.gz")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--scale", type=int, help="number of copies K (default 1)")
    g.add_argument("--target-mb", type=float,
                   help="pick K so each plain (uncompressed) output is about M MB (1e6 bytes); "
                        "below the input's size, keep only its events before a time "
                        "chosen to give M MB")
    p.add_argument("--gzip", action="store_true", help="gzip the output (level 6)")
    p.add_argument("--indent", action="store_true",
                   help="write each event indented on lines of its own, as Kineto does")
    p.add_argument("--jitter", action="store_true",
                   help="perturb ts/dur of copies 1..K-1 by a monotone warp (|d dur| <= 3)")
    p.add_argument("--seed", type=int, default=1, help="jitter seed (default 1)")
    if ranks_mode:
        p.add_argument("--ranks", type=int, required=True, help="number of rank files")
        p.add_argument("--out", required=True, help="output directory")
        a = p.parse_args(argv[1:])
        a.rank = None
    else:
        p.add_argument("--out", required=True, help="output file")
        p.add_argument("--rank", type=int, help="set distributedInfo.rank")
        a = p.parse_args(argv)
    a.ranks_mode = ranks_mode
    if not ranks_mode and a.out.endswith(".gz"):
        a.gzip = True               # never write plain JSON under a .gz name
    if a.scale is not None and a.scale < 1:
        p.error("--scale must be >= 1")
    if ranks_mode and a.ranks < 1:
        p.error("--ranks must be >= 1")
    return a


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    t_start = time.time()
    cut = None
    doc, in_bytes = load_trace(args.input)
    plan = Plan(doc, args.jitter, args.indent)
    if args.target_mb is not None:
        head, tail = head_tail(doc, rank=args.rank if not args.ranks_mode else 0)
        k = choose_scale(plan, args.target_mb, head, tail)
        frame = len(head.encode()) + len(tail.encode()) - 1
        if k == 1 and frame + copy_size(plan.all_tmpl, plan.unit, 0) > args.target_mb * 1e6:
            cut = plan.cut(args.target_mb * 1e6 - frame)   # smaller than the input
    else:
        k = args.scale or 1
    doc["traceEvents"] = None          # templates hold everything we need
    if args.ranks_mode:
        n, plain, size = write_ranks(plan, doc, args, k)
        what = "%d rank files in %s" % (args.ranks, args.out)
        n_total = n * args.ranks
    else:
        n, plain, size = write_single(plan, doc, args, k)
        what = args.out
        n_total = n
    secs = time.time() - t_start
    gz = (", %d bytes gzip (ratio %.1f)" % (size, plain / size)) if args.gzip else ""
    cut = (", cut to the first %d of %d events" % cut) if cut else ""
    print("gen_trace: %s: scale %d%s, %d events (%d per file), %d bytes plain%s, "
          "%.2f s (%.0f MB/s plain)"
          % (what, k, cut, n_total, n, plain, gz, secs, plain / 1e6 / max(secs, 1e-9)),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
