#!/usr/bin/env python3
"""Other profilers' outputs (docs/profilers.md): Nsight Systems SQLite
exports, rocpd databases and rocprofv3 JSON.

Every number is checked against an oracle that does not use tracediff:
plain SQL over the export (the query of issue 40), rocprofv3's documented
rocpd schema built here, and a small Python reader of rocprofv3's JSON;
breakdown's GPU figures (kernel time, busy, compute, memory) against
interval unions computed from the same SQL.

    profilers_test.py TRACEDIFF
"""
import csv, gzip, io, json, os, re, shutil, sqlite3, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402  (run_once: one process per distinct command)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
D = os.path.join(ROOT, "tests/golden/traces/profilers")
NSYS = ["nsys-fuser-matmul/report1.sqlite", "nsys-fuser-matmul/report2.sqlite",
        "nsys-fuser-matmul/report3.sqlite", "nsys-fuser-2025/report1.sqlite",
        "nsys-vector-add/report1.sqlite", "nsys-vector-add/report2.sqlite",
        "nsys-mordred/03527a5-report1.sqlite", "nsys-mordred/ad27a34-report1.sqlite",
        "nsys-centerformer/baseline.sqlite", "nsys-centerformer/poolformer.sqlite"]
ROCPROF_JSON = "rocprofv3-json/908_results.json.gz"

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL profilers {name} {str(detail)[:600]}")


def run(exe, *args):
    p = cases.run_once([exe, *args], cwd=ROOT)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def table(exe, a, b, *sel):
    """compare A B as {name: (control_count, control_us, test_count, test_us)}."""
    rc, out, err = run(exe, "compare", a, b, "--format", "csv", "-q", *sel)
    if rc != 0:
        return None, err
    rows = {}
    for r in csv.DictReader(io.StringIO(out)):
        rows[r["name"]] = (int(r["control_counts"]), float(r["control_total_duration"]),
                           int(r["test_counts"]), float(r["test_total_duration"]))
    return rows, err


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def same_sums(got, want):
    """got: compare's rows (control side); want: {name: (count, total_us)}."""
    if got is None:
        return False, "compare failed"
    g = {k: (v[0], v[1]) for k, v in got.items() if v[0]}
    if set(g) != set(want):
        return False, f"names differ: only ours {sorted(set(g) - set(want))[:3]}, " \
                      f"only SQL {sorted(set(want) - set(g))[:3]}"
    for k, (n, us) in want.items():
        if g[k][0] != n or not close(g[k][1], us):
            return False, f"{k}: ours {g[k]}, SQL {(n, us)}"
    return True, ""


def has_table(db, t):
    return db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (t,)).fetchone() is not None


def cols(db, t):
    return [r[1] for r in db.execute(f'PRAGMA table_info("{t}")')]


# ---------------------------------------------------------------- oracles

def sql_kernels(db):
    if not has_table(db, "CUPTI_ACTIVITY_KIND_KERNEL"):
        return {}
    q = ('SELECT s.value, COUNT(*), SUM(k."end" - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k '
         'JOIN StringIds s ON s.id = k.shortName GROUP BY 1')
    return {n: (c, t / 1000.0) for n, c, t in db.execute(q)}


def copy_kind_name(db, k):
    """Kineto's copy kind ("HtoD") from nsys's enum name, when the export has it."""
    if has_table(db, "ENUM_CUDA_MEMCPY_OPER"):
        r = db.execute("SELECT name FROM ENUM_CUDA_MEMCPY_OPER WHERE id = ?", (k,)).fetchone()
        if r:
            m = re.fullmatch(r"CUDA_MEMCPY_KIND_(UVM_)?([A-Z])TO([A-Z])", r[0])
            if m:
                return ("UVM " if m.group(1) else "") + m.group(2) + "to" + m.group(3)
            return "Unknown"
    return ["Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH",
            "PtoP"][k]


def mem_kind_name(db, k):
    if has_table(db, "ENUM_CUDA_MEM_KIND"):
        r = db.execute("SELECT label FROM ENUM_CUDA_MEM_KIND WHERE id = ?", (k,)).fetchone()
        return r[0] if r else "Unknown"
    return ["Pageable", "Pinned", "Device", "Array", "Managed", "Device Static",
            "Managed Static", "Unknown"][k]


def sql_copies(db):
    out = {}
    if has_table(db, "CUPTI_ACTIVITY_KIND_MEMCPY"):
        for ck, sk, dk, d in db.execute('SELECT copyKind, srcKind, dstKind, "end" - start '
                                        'FROM CUPTI_ACTIVITY_KIND_MEMCPY'):
            n = f"Memcpy {copy_kind_name(db, ck)} ({mem_kind_name(db, sk)} -> " \
                f"{mem_kind_name(db, dk)})"
            c, t = out.get(n, (0, 0))
            out[n] = (c + 1, t + d)
    return {k: (c, t / 1000.0) for k, (c, t) in out.items()}


def sql_memsets(db):
    out = {}
    if has_table(db, "CUPTI_ACTIVITY_KIND_MEMSET"):
        for mk, d in db.execute('SELECT memKind, "end" - start FROM CUPTI_ACTIVITY_KIND_MEMSET'):
            n = f"Memset ({mem_kind_name(db, mk)})"
            c, t = out.get(n, (0, 0))
            out[n] = (c + 1, t + d)
    return {k: (c, t / 1000.0) for k, (c, t) in out.items()}


def sql_nvtx(db):
    if not has_table(db, "NVTX_EVENTS"):
        return {}
    text = "n.text" if "text" in cols(db, "NVTX_EVENTS") else "NULL"
    q = (f'SELECT COALESCE({text}, s.value), COUNT(*), SUM(n."end" - n.start) FROM NVTX_EVENTS n '
         'LEFT JOIN StringIds s ON s.id = n.textId '
         'WHERE n.eventType IN (59, 60) AND n."end" IS NOT NULL GROUP BY 1')
    return {n: (c, t / 1000.0) for n, c, t in db.execute(q)}


def sql_runtime(db):
    if not has_table(db, "CUPTI_ACTIVITY_KIND_RUNTIME"):
        return {}
    out = {}
    q = ('SELECT s.value, "end" - start FROM CUPTI_ACTIVITY_KIND_RUNTIME r '
         'JOIN StringIds s ON s.id = r.nameId')
    for n, d in db.execute(q):
        n = re.sub(r"_v[0-9]+$", "", n)
        c, t = out.get(n, (0, 0))
        out[n] = (c + 1, t + d)
    return {k: (c, t / 1000.0) for k, (c, t) in out.items()}


def rocprof_json_oracle(path):
    """Per-kernel counts and totals of a rocprofv3 JSON, read with json."""
    with gzip.open(path, "rt") if path.endswith(".gz") else open(path) as f:
        doc = json.load(f)
    out = {}
    for tool in doc["rocprofiler-sdk-tool"]:
        names = {}
        for s in tool.get("kernel_symbols", []):
            names[s["kernel_id"]] = (s.get("formatted_kernel_name") or
                                     s.get("demangled_kernel_name") or s.get("kernel_name"))
        for r in tool.get("buffer_records", {}).get("kernel_dispatch", []):
            n = names[r["dispatch_info"]["kernel_id"]]
            c, t = out.get(n, (0, 0))
            out[n] = (c + 1, t + r["end_timestamp"] - r["start_timestamp"])
    return {k: (c, t / 1000.0) for k, (c, t) in out.items()}


# ---------------------------------------------------------------- tests

def test_sql_equality(exe):
    """Every shared export: each category equals plain SQL over the file."""
    for rel in NSYS:
        path = os.path.join(D, rel)
        db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
        for cat, oracle in (("kernel", sql_kernels), ("gpu_memcpy", sql_copies),
                            ("gpu_memset", sql_memsets), ("user_annotation", sql_nvtx),
                            ("cuda_runtime", sql_runtime)):
            want = oracle(db)
            got, err = table(exe, path, path, "--cat", cat)
            if not want:  # nothing recorded: the category is absent
                ok = got is None or not any(v[0] for v in got.values())
                check(f"{rel} {cat} absent", ok, err)
                continue
            ok, why = same_sums(got, want)
            check(f"{rel} {cat} equals SQL", ok, why or err)
        db.close()


def test_rocprof_json(exe):
    path = os.path.join(D, ROCPROF_JSON)
    want = rocprof_json_oracle(path)
    got, err = table(exe, path, path, "--device", "gpu")
    ok, why = same_sums(got, want)
    check("rocprofv3 json kernels equal the Python reader", ok and len(want) > 50, why or err)
    rc, out, err = run(exe, "info", "--format", "json", path)
    info = json.loads(out) if rc == 0 else {}
    f = info.get("files", [{}])[0]
    check("rocprofv3 json info names the format", f.get("format", "").startswith("rocprofv3 JSON")
          and f.get("events_gpu") == sum(c for c, _ in want.values()), out[:300] + err)


def synthetic_rocprof(tmp):
    """A small rocprofv3 JSON with every record kind, names after records."""
    doc = {"rocprofiler-sdk-tool": [{
        "metadata": {"pid": 42},
        "buffer_records": {
            "kernel_dispatch": [
                {"kind": 11, "operation": 2, "thread_id": 42, "correlation_id": {"internal": 1},
                 "start_timestamp": 1000, "end_timestamp": 3500,
                 "dispatch_info": {"kernel_id": 7}, "stream_id": {"handle": 3}},
                {"kind": 11, "operation": 2, "thread_id": 42, "correlation_id": {"internal": 2},
                 "start_timestamp": 5000, "end_timestamp": 5125,
                 "dispatch_info": {"kernel_id": 7}, "stream_id": {"handle": 3}}],
            "hip_api": [
                {"kind": 5, "operation": 1, "thread_id": 42, "correlation_id": {"internal": 1},
                 "start_timestamp": 900, "end_timestamp": 950},
                {"kind": 5, "operation": 1, "thread_id": 42, "correlation_id": {"internal": 2},
                 "start_timestamp": 4900, "end_timestamp": 4990}],
            "memory_copy": [
                {"kind": 10, "operation": 1, "thread_id": 42, "correlation_id": {"internal": 3},
                 "start_timestamp": 6000, "end_timestamp": 8000}],
            "marker_api": [
                {"kind": 7, "operation": 0, "thread_id": 42, "correlation_id": {"internal": 9},
                 "start_timestamp": 800, "end_timestamp": 9000}]},
        "kernel_symbols": [{"kernel_id": 7, "kernel_name": "_Z4gemmv.kd",
                            "formatted_kernel_name": "gemm"}],
        "strings": {
            "buffer_records": [{"kind": "NONE", "operations": []}] * 5 + [
                {"kind": "HIP_RUNTIME_API", "operations": ["hipMalloc", "hipLaunchKernel"]},
                {"kind": "HIP_COMPILER_API", "operations": []},
                {"kind": "MARKER_CORE_API", "operations": ["roctxRangePushA"]},
                {"kind": "MARKER_CONTROL_API", "operations": []},
                {"kind": "MARKER_NAME_API", "operations": []},
                {"kind": "MEMORY_COPY", "operations": ["MEMORY_COPY_NONE",
                                                       "MEMORY_COPY_HOST_TO_DEVICE"]}],
            "marker_api": [{"key": 9, "value": "train_step"}]}}]}
    path = os.path.join(tmp, "synthetic_results.json")
    with open(path, "w") as f:
        f.write(json.dumps(doc))
    return path


def test_rocprof_synthetic(exe, tmp):
    path = synthetic_rocprof(tmp)
    got, err = table(exe, path, path)
    want = {"gemm": (2, 2.625), "hipLaunchKernel": (2, 0.14),
            "MEMORY_COPY_HOST_TO_DEVICE": (1, 2.0), "train_step": (1, 8.2)}
    ok, why = same_sums(got, want)
    check("rocprofv3 json: dispatches, hip_api, copies, markers", ok, why or err)
    # The marker range encloses both launches: explain --by annotation.
    rc, out, err = run(exe, "explain", path, path, "train_step", "--by", "annotation",
                       "--format", "csv", "-q")
    rows = {r["name"]: r for r in csv.DictReader(io.StringIO(out))} if rc == 0 else {}
    check("rocprofv3 json: explain a marker's kernels", rows.get("gemm", {}).get(
        "control_counts") == "2" and close(float(rows["gemm"]["control_total_duration"]), 2.625),
        out + err)


# rocprofv3's documented rocpd schema (rocprofiler-sdk, share/rocprofiler-sdk-rocpd):
# per-run tables with a UUID suffix, unsuffixed views over them, and the
# data views (kernels, memory_copies, regions) that readers use.
ROCPD_UUID = "00001234_5678_9abc_def0_123456789abc"
ROCPD_TABLES = {
    "rocpd_metadata": "id INTEGER PRIMARY KEY, tag TEXT, value TEXT",
    "rocpd_string": "id INTEGER PRIMARY KEY, guid TEXT, string TEXT",
    "rocpd_info_kernel_symbol": "id INTEGER PRIMARY KEY, guid TEXT, display_name TEXT, "
                                "kernel_name TEXT",
    "rocpd_track": "id INTEGER PRIMARY KEY, guid TEXT, pid INTEGER, tid INTEGER, "
                   "stream_id INTEGER",
    "rocpd_event": "id INTEGER PRIMARY KEY, guid TEXT, category TEXT, correlation_id INTEGER",
    "rocpd_kernel_dispatch": "id INTEGER PRIMARY KEY, guid TEXT, kernel_id INTEGER, "
                             "track_id INTEGER, event_id INTEGER, start INTEGER, `end` INTEGER",
    "rocpd_memory_copy": "id INTEGER PRIMARY KEY, guid TEXT, name_id INTEGER, track_id INTEGER, "
                         "event_id INTEGER, start INTEGER, `end` INTEGER",
    "rocpd_region": "id INTEGER PRIMARY KEY, guid TEXT, name_id INTEGER, track_id INTEGER, "
                    "event_id INTEGER, start INTEGER, `end` INTEGER",
}
ROCPD_VIEWS = """
CREATE VIEW kernels AS SELECT K.id, K.guid, T.pid, T.tid, E.category, S.display_name AS name,
  K.kernel_id, T.stream_id, K.start AS `start`, K.`end` AS `end`, (K.`end` - K.start) AS duration,
  E.correlation_id FROM rocpd_kernel_dispatch K
  JOIN rocpd_track T ON T.id = K.track_id JOIN rocpd_event E ON E.id = K.event_id
  JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id;
CREATE VIEW memory_copies AS SELECT M.id, T.pid, T.tid, E.category, NS.string AS name,
  M.start AS `start`, M.`end` AS `end`, T.stream_id, E.correlation_id FROM rocpd_memory_copy M
  JOIN rocpd_track T ON T.id = M.track_id JOIN rocpd_event E ON E.id = M.event_id
  JOIN rocpd_string NS ON NS.id = M.name_id;
CREATE VIEW regions AS SELECT R.id, E.category, NS.string AS name, T.pid, T.tid,
  R.start AS `start`, R.`end` AS `end`, (R.`end` - R.start) AS duration, E.correlation_id
  FROM rocpd_region R JOIN rocpd_track T ON T.id = R.track_id
  JOIN rocpd_event E ON E.id = R.event_id JOIN rocpd_string NS ON NS.id = R.name_id;
"""


def make_rocpd(path, kernels, reorder=False):
    """kernels: [(name, start_ns, end_ns)]; one launch, one copy, one range each."""
    db = sqlite3.connect(path)
    for t, c in ROCPD_TABLES.items():
        cs = [x.strip() for x in c.split(",")]
        if reorder:
            cs.reverse()
        db.execute(f"CREATE TABLE {t}_{ROCPD_UUID} ({', '.join(cs)})")
        # rocpd_metadata is itself a view over its suffixed table.
        db.execute(f"CREATE VIEW {t} AS SELECT * FROM {t}_{ROCPD_UUID}")
    u = ROCPD_UUID
    db.execute(f"INSERT INTO rocpd_metadata_{u} (tag, value) VALUES ('schema_version', '3')")
    db.execute(f"INSERT INTO rocpd_string_{u} (id, string) VALUES (1, 'hipLaunchKernel'), "
               "(2, 'MEMORY_COPY_DEVICE_TO_HOST'), (3, 'step')")
    db.execute(f"INSERT INTO rocpd_track_{u} (id, pid, tid, stream_id) VALUES (1, 7, 7, NULL), "
               "(2, 7, 7, 1)")
    names = sorted({k[0] for k in kernels})
    for i, n in enumerate(names, 1):
        db.execute(f"INSERT INTO rocpd_info_kernel_symbol_{u} (id, display_name) VALUES (?, ?)",
                   (i, n))
    ev = 0
    for corr, (n, a, b) in enumerate(kernels, 1):
        ev += 1
        db.execute(f"INSERT INTO rocpd_event_{u} (id, category, correlation_id) VALUES "
                   "(?, 'HIP_RUNTIME_API', ?)", (ev, corr))
        db.execute(f"INSERT INTO rocpd_region_{u} (name_id, track_id, event_id, start, `end`) "
                   "VALUES (1, 1, ?, ?, ?)", (ev, a - 500, a - 100))
        ev += 1
        db.execute(f"INSERT INTO rocpd_event_{u} (id, category, correlation_id) VALUES "
                   "(?, 'KERNEL_DISPATCH', ?)", (ev, corr))
        db.execute(f"INSERT INTO rocpd_kernel_dispatch_{u} (kernel_id, track_id, event_id, start, "
                   "`end`) VALUES (?, 2, ?, ?, ?)", (names.index(n) + 1, ev, a, b))
    ev += 1
    db.execute(f"INSERT INTO rocpd_event_{u} (id, category, correlation_id) VALUES "
               "(?, 'MEMORY_COPY', 0)", (ev,))
    db.execute(f"INSERT INTO rocpd_memory_copy_{u} (name_id, track_id, event_id, start, `end`) "
               "VALUES (2, 2, ?, 100, 2100)", (ev,))
    ev += 1
    db.execute(f"INSERT INTO rocpd_event_{u} (id, category, correlation_id) VALUES "
               "(?, 'MARKER_CORE_RANGE_API', 0)", (ev,))
    db.execute(f"INSERT INTO rocpd_region_{u} (name_id, track_id, event_id, start, `end`) "
               "VALUES (3, 1, ?, 0, 99999)", (ev,))
    db.executescript(ROCPD_VIEWS)
    db.commit()
    db.close()


def rocpd_oracle(path):
    db = sqlite3.connect(path)
    out = {}
    for q in ('SELECT name, COUNT(*), SUM(`end` - start) FROM kernels GROUP BY 1',
              'SELECT name, COUNT(*), SUM(`end` - start) FROM memory_copies GROUP BY 1',
              'SELECT name, COUNT(*), SUM(`end` - start) FROM regions GROUP BY 1'):
        for n, c, t in db.execute(q):
            out[n] = (c, t / 1000.0)
    db.close()
    return out


def test_rocpd(exe, tmp):
    ctl, tst = os.path.join(tmp, "a_results.db"), os.path.join(tmp, "b_results.db")
    make_rocpd(ctl, [("gemm_kernel", 1000, 3333), ("gemm_kernel", 5000, 7100),
                     ("softmax", 9000, 9250)])
    make_rocpd(tst, [("gemm_kernel", 1000, 2500), ("softmax", 9000, 9750),
                     ("softmax", 12000, 12125)], reorder=True)
    for side, path in (("control", ctl), ("test", tst)):
        got, err = table(exe, path, path)
        ok, why = same_sums(got, rocpd_oracle(path))
        check(f"rocpd {side} equals SQL over its views", ok, why or err)
    got, err = table(exe, ctl, tst, "--device", "gpu")
    want = rocpd_oracle(tst)
    ok = got is not None and got.get("softmax", (0,) * 4)[2:] == (2, want["softmax"][1])
    check("rocpd compare control -> test", ok, got or err)
    rc, out, err = run(exe, "info", "--format", "json", ctl)
    fmt = json.loads(out)["files"][0].get("format", "") if rc == 0 else ""
    check("rocpd info names the format and schema", fmt.startswith("rocprofv3 rocpd") and
          "3" in fmt, out[:300] + err)
    # A rocpd database as a .tdsum's neighbour: a folder of two ranks.
    folder = os.path.join(tmp, "rocpd_ranks")
    os.mkdir(folder)
    shutil.copy(ctl, os.path.join(folder, "r0_results.db"))
    shutil.copy(tst, os.path.join(folder, "r1_results.db"))
    rc, out, err = run(exe, "info", "--format", "json", folder)
    ranks = [(f["rank"], os.path.basename(f["path"])) for f in json.loads(out)["files"]] \
        if rc == 0 else []
    check("rocpd folder: ranks in file order", ranks == [(0, "r0_results.db"),
                                                         (1, "r1_results.db")], out[:300] + err)


def reordered_copy(src, dst):
    """Every table of an export rebuilt with its columns in reverse order."""
    shutil.copy(src, dst)
    os.chmod(dst, 0o644)
    db = sqlite3.connect(dst)
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND "
                                       "(name LIKE 'CUPTI%' OR name IN ('NVTX_EVENTS', "
                                       "'StringIds'))")]
    for t in tables:
        cs = list(reversed(cols(db, t)))
        q = ", ".join(f'"{c}"' for c in cs)
        db.execute(f'CREATE TABLE "{t}_r" AS SELECT {q} FROM "{t}"')
        db.execute(f'DROP TABLE "{t}"')
        db.execute(f'ALTER TABLE "{t}_r" RENAME TO "{t}"')
    db.commit()
    db.close()
    return tables


def test_schema_matrix(exe, tmp):
    """Every era reads, names its version; a reordered copy gives the same."""
    eras = {"nsys-mordred/03527a5-report1.sqlite": "version not recorded",
            "nsys-centerformer/baseline.sqlite": "2022.4",
            "nsys-fuser-matmul/report1.sqlite": "2024.6",
            "nsys-fuser-2025/report1.sqlite": "2025.1",
            "nsys-vector-add/report1.sqlite": "2026.1"}
    for rel, ver in eras.items():
        path = os.path.join(D, rel)
        rc, out, err = run(exe, "info", "--format", "json", path)
        fmt = json.loads(out)["files"][0].get("format", "") if rc == 0 else ""
        check(f"schema {rel} reads, version {ver}", fmt.startswith("Nsight Systems SQLite") and
              ver in fmt, out[:200] + err)
        copy = os.path.join(tmp, "reordered_" + os.path.basename(rel))
        tables = reordered_copy(path, copy)
        rc1, want, e1 = run(exe, "compare", path, path, "--format", "csv", "-q")
        rc2, got, e2 = run(exe, "compare", copy, copy, "--format", "csv", "-q")
        check(f"schema {rel} reordered columns ({len(tables)} tables) read the same",
              rc1 == 0 and rc2 == 0 and got == want and want.count("\n") > 1, e1 + e2)


def test_fuser_series(exe, tmp):
    r = [os.path.join(D, f"nsys-fuser-matmul/report{i}.sqlite") for i in (1, 2, 3)]
    db1 = sqlite3.connect(f"file:{r[0]}?mode=ro&immutable=1", uri=True)
    matmul = max(sql_kernels(db1).items(), key=lambda kv: kv[1][1])[0]
    db1.close()
    got, err = table(exe, r[0], r[2], "--device", "gpu")
    row = got.get(matmul) if got else None
    # The figures: 135 -> 125 us.
    check("fuser series: matmul kernel 135 -> 125 us", row is not None and
          round(row[1]) == 135 and round(row[3]) == 125, row or err)
    rc, out, err = run(exe, "compare", r[0], r[2], "--device", "gpu", "--stats", "--format",
                       "csv", "-q")
    rows = {x["name"]: x for x in csv.DictReader(io.StringIO(out))} if rc == 0 else {}
    check("fuser series: --stats per call", matmul in rows and
          rows[matmul].get("samples") == "call", err)
    # check: report3 is the faster: no regression that way; the other way
    # round its GPU time per sample gates.
    rc, out, err = run(exe, "check", r[0], r[2], "--device", "gpu", "-q")
    check("fuser series: check report1 -> report3 passes", rc == 0, out + err)
    rc, out, err = run(exe, "check", r[2], r[0], "--device", "gpu", "--max-step-regression",
                       "1%", "-q")
    check("fuser series: check report3 -> report1 gates the GPU time", rc == 3, out + err)
    va = [os.path.join(D, f"nsys-vector-add/report{i}.sqlite") for i in (1, 2)]
    rc, out, err = run(exe, "check", va[0], va[1], "--device", "gpu", "-q")
    check("vector add: check gates the slower kernel", rc == 3 and "add_parallel" in out,
          out + err)
    html = os.path.join(tmp, "fuser.html")
    rc, out, err = run(exe, "report", r[0], r[2], "-o", html)
    body = open(html).read() if os.path.exists(html) else ""
    check("fuser series: report renders", rc == 0 and matmul in body, err)
    # explain --by annotation: the kernels launched inside an NVTX range,
    # against SQL (the innermost range on the launching thread).
    for path in (r[0], r[2]):
        db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
        q = ('SELECT k.correlationId, s.value, k."end" - k.start, n.text, n."end" - n.start '
             'FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName '
             'JOIN CUPTI_ACTIVITY_KIND_RUNTIME rt ON rt.correlationId = k.correlationId '
             'JOIN NVTX_EVENTS n ON n.globalTid = rt.globalTid AND n.start <= rt.start AND '
             'n."end" >= rt."end" WHERE n.eventType IN (59, 60)')
        inner = {}
        for corr, kname, d, rng, length in db.execute(q):
            if corr not in inner or length < inner[corr][3]:
                inner[corr] = (kname, d, rng, length)
        db.close()
        rng = "ExecutorRunFusion::cuLaunchKernel"
        want = {}
        for kname, d, rg, _ in inner.values():
            if rg == rng:
                c, t = want.get(kname, (0, 0))
                want[kname] = (c + 1, t + d)
        rc, out, err = run(exe, "explain", path, path, rng, "--by", "annotation", "--format",
                           "csv", "-q")
        rows = {x["name"]: x for x in csv.DictReader(io.StringIO(out))} if rc == 0 else {}
        ok = bool(want) and all(k in rows and int(rows[k]["control_counts"]) == c and
                                close(float(rows[k]["control_total_duration"]), t / 1000.0)
                                for k, (c, t) in want.items())
        check(f"explain --by annotation {os.path.basename(path)} equals SQL", ok, out + err)
    # A folder of exports: ranks in file order, info says so.
    rc, out, err = run(exe, "info", os.path.join(D, "nsys-mordred"))
    check("folder of exports: two ranks, info says how", rc == 0 and
          out.count("rank: the file's place in the set") == 2, out[:400] + err)
    # Summaries: the numbers a summary keeps are those of the export.
    tds = os.path.join(tmp, "fuser.tdsum")
    rc, out, err = run(exe, "summarize", r[0], "-o", tds, "--run", "r1", "-q")
    want, _ = table(exe, r[0], r[2])
    got, err2 = table(exe, tds, r[2])
    check("summary of an export compares as the export", rc == 0 and got == want and want,
          err + err2)
    # Mixed sides: an export against a Kineto trace.
    kineto = "tests/golden/traces/hta-trace_compare/test"
    rc, out, err = run(exe, "compare", r[0], kineto, "--device", "gpu", "--by", "class", "-q")
    check("mixed sides: nsys vs Kineto --by class", rc == 0 and out.count("\n") > 2, err)
    # --nsys-names demangled: the full signature.
    rc, out, err = run(exe, "ops", va[0], va[1], "--nsys-names", "demangled", "--format", "csv",
                       "-q")
    check("--nsys-names demangled", rc == 0 and
          "add_parallel(const float *, const float *, float *, int)" in out, out + err)


def test_bad_inputs(exe, tmp):
    src = os.path.join(D, "nsys-fuser-matmul/report1.sqlite")
    good = src
    data = open(src, "rb").read()
    bad = {}
    bad["truncated.sqlite"] = data[:len(data) // 2]
    corrupt = bytearray(data)
    for i in range(4096, len(corrupt), 4096):
        corrupt[i + 8:i + 40] = b"\xff" * 32
    bad["corrupt.sqlite"] = bytes(corrupt)
    bad["report.nsys-rep"] = b"\x00NSYS binary report"
    bad["report.qdrep"] = b"\x00QDREP binary report"
    bad["nsys_export.json"] = (b'{"type":"String","id":"1","value":"x"}\n'
                               b'{"type":"String","id":"2","value":"y"}\n')
    paths = {}
    for name, b in bad.items():
        paths[name] = os.path.join(tmp, name)
        with open(paths[name], "wb") as f:
            f.write(b)
    other = os.path.join(tmp, "other.db")
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE t (x)")
    db.commit()
    db.close()
    paths["other.db"] = other
    empty = os.path.join(tmp, "runtime_only.sqlite")
    db = sqlite3.connect(empty)
    db.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT)")
    db.execute('CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start, "end", correlationId, nameId)')
    db.execute("CREATE TABLE EXPORT_META_DATA (name, value)")
    db.commit()
    db.close()
    paths["runtime_only.sqlite"] = empty
    want = {"truncated.sqlite": "truncated", "corrupt.sqlite": "damaged",
            "report.nsys-rep": "nsys export --type sqlite", "report.qdrep":
            "nsys export --type sqlite", "nsys_export.json": "not supported",
            "other.db": "not a tracediff summary, nor an Nsight Systems export",
            "runtime_only.sqlite": "no GPU activity and no NVTX ranges"}
    for name, path in paths.items():
        for side in ("control", "test"):
            out = os.path.join(tmp, f"out_{name}_{side}.csv")
            args = (path, good) if side == "control" else (good, path)
            rc, so, err = run(exe, "compare", *args, "-o", out)
            lines = err.strip().splitlines()
            check(f"bad {name} as {side}", rc == 1 and not os.path.exists(out) and
                  len(lines) == 1 and name in lines[0] and want[name] in lines[0],
                  f"rc={rc} {err}")
    # In a folder of exports too, naming the file.
    folder = os.path.join(tmp, "ranks_with_bad")
    os.mkdir(folder)
    shutil.copy(good, os.path.join(folder, "a.sqlite"))
    shutil.copy(paths["other.db"], os.path.join(folder, "b.db"))
    rc, so, err = run(exe, "compare", folder, good, "-o", os.path.join(tmp, "f.csv"))
    check("bad database in a folder", rc == 1 and "b.db" in err and "neither" in err and
          not os.path.exists(os.path.join(tmp, "f.csv")), err)
    # A trace given through a pipe is read whole: telling exports apart
    # never takes bytes from a pipe.
    kineto = os.path.join(ROOT, "tests/golden/traces/hta-trace_compare/test/test.json.gz")
    if os.path.exists(kineto):
        fifo = os.path.join(tmp, "pipe.json")
        os.mkfifo(fifo)
        writer = subprocess.Popen(["sh", "-c", f'cat "{kineto}" > "{fifo}"'])
        rc, got, err = run(exe, "compare", fifo, kineto, "--format", "csv", "-q")
        writer.wait()
        rc2, want, _ = run(exe, "compare", kineto, kineto, "--format", "csv", "-q")
        check("a Kineto trace through a pipe reads as the file", rc == 0 and got == want, err)
    # A .tdsum keeps its handling: a real one reads, a fake one is refused as before.
    fake = os.path.join(tmp, "fake.tdsum")
    with open(fake, "w") as f:
        f.write("not sqlite")
    rc, so, err = run(exe, "compare", fake, good)
    check("a non-SQLite .tdsum is refused as a summary", rc == 1 and
          "not a tracediff summary" in err, err)


# ---------------------------------------------------------------- ranks and processes

def pid_col(db, t):
    """The column of table t that carries the process (globalPid, else globalTid)."""
    c = cols(db, t)
    return "globalPid" if "globalPid" in c else "globalTid" if "globalTid" in c else None


EVENT_TABLES = ["CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS"]


def sql_pids(db):
    """{pid: rows} over the event tables, the pid as nsys serializes it (bits 24-47)."""
    out = {}
    for t in EVENT_TABLES:
        if not has_table(db, t):
            continue
        c = pid_col(db, t)
        where = " WHERE eventType IN (59, 60)" if t == "NVTX_EVENTS" else ""
        for pid, n in db.execute(f'SELECT ("{c}" >> 24) & 16777215, COUNT(*) FROM "{t}"{where} '
                                 'GROUP BY 1'):
            out[pid] = out.get(pid, 0) + n
    return out


def only_pid(src, dst, pid):
    """A copy of export src keeping the rows of process pid only: the oracle's input."""
    shutil.copyfile(src, dst)
    db = sqlite3.connect(dst)
    for t in EVENT_TABLES:
        if has_table(db, t):
            db.execute(f'DELETE FROM "{t}" WHERE ("{pid_col(db, t)}" >> 24) & 16777215 != ?',
                       (pid,))
    db.commit()
    return db


def add_mpi_ranks(path, ranks):
    """nsys's MPI_RANKS table as its SQLite schema reference gives it (globalTid -> rank),
    one row per thread of each process: ranks = {pid: rank}; a pid the file lacks gets
    a thread of its own."""
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE MPI_RANKS (globalTid INTEGER NOT NULL, rank INTEGER NOT NULL)")
    tids = set()
    for t in ("CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS"):
        if has_table(db, t) and "globalTid" in cols(db, t):
            tids |= {r[0] for r in db.execute(f'SELECT DISTINCT globalTid FROM "{t}"')}
    for pid, rank in ranks.items():
        mine = [g for g in tids if (g >> 24) & 0xFFFFFF == pid] or [(pid << 24) | 7]
        db.executemany("INSERT INTO MPI_RANKS VALUES (?, ?)", [(g, rank) for g in mine])
    db.commit()
    db.close()


def info_files(exe, *args):
    rc, out, err = run(exe, "info", "--format", "json", *args)
    return (json.loads(out)["files"] if rc == 0 else None), err


def test_mpi_ranks(exe, tmp):
    """No shared export was recorded under MPI: copies of the vector-add pair get nsys's
    MPI_RANKS, their ranks the reverse of their names' order."""
    folder = os.path.join(tmp, "mpi_ranks")
    os.makedirs(folder)
    va = [os.path.join(D, "nsys-vector-add/report1.sqlite"),
          os.path.join(D, "nsys-vector-add/report2.sqlite")]
    pids = []
    for src in va:
        db = sqlite3.connect(f"file:{src}?mode=ro&immutable=1", uri=True)
        pids.append(sorted(sql_pids(db)))
        db.close()
    a, b = os.path.join(folder, "a.sqlite"), os.path.join(folder, "b.sqlite")
    shutil.copyfile(va[1], a)  # rank 1, first by name
    shutil.copyfile(va[0], b)  # rank 0
    add_mpi_ranks(a, {p: 1 for p in pids[1]})
    add_mpi_ranks(b, {p: 0 for p in pids[0]})
    files, err = info_files(exe, folder)
    got = {os.path.basename(f["path"]): (f["rank"], f["rank_from"]) for f in files or []}
    check("MPI_RANKS gives each export its rank", got == {
        "a.sqlite": (1, "MPI_RANKS"), "b.sqlite": (0, "MPI_RANKS")}, got or err)
    rc, out, err = run(exe, "info", folder)
    check("info says the rank is nsys's", rc == 0 and out.count("(MPI_RANKS)") == 2, out[-800:])
    for rank, src in ((0, va[0]), (1, va[1])):
        db = sqlite3.connect(f"file:{src}?mode=ro&immutable=1", uri=True)
        want = {**sql_kernels(db), **sql_copies(db), **sql_memsets(db)}
        db.close()
        got, err = table(exe, folder, folder, "--control-rank", str(rank), "--test-rank",
                         str(rank), "--device", "gpu")
        ok, why = same_sums(got, want)
        check(f"rank {rank} by MPI_RANKS is {os.path.basename(src)}", ok, why or err)
    # Several ranks in one export: file order, unless --pid picks one rank's process.
    many = os.path.join(tmp, "many_ranks.sqlite")
    shutil.copyfile(va[0], many)
    add_mpi_ranks(many, {pids[0][0]: 3, 4242: 5})
    files, err = info_files(exe, many)
    f = (files or [{}])[0]
    check("several ranks in one export: file order, and info says why",
          f.get("rank") == 0 and "several" in f.get("rank_from", ""), files or err)
    files, err = info_files(exe, many, "--pid", str(pids[0][0]))
    f = (files or [{}])[0]
    check("--pid picks the rank of its process", f.get("rank") == 3 and
          f.get("rank_from") == "MPI_RANKS", files or err)
    # The shared exports record no MPI rank: file order, said so.
    files, err = info_files(exe, os.path.join(D, "nsys-mordred"))
    check("no MPI_RANKS: file order", [(f["rank"], f["rank_from"]) for f in files or []] ==
          [(0, "file order"), (1, "file order")], files or err)


def test_pids(exe, tmp):
    """nsys-fuser-2025 holds two processes (pytest and a python3 it started)."""
    path = os.path.join(D, "nsys-fuser-2025/report1.sqlite")
    db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    rows = sql_pids(db)
    names = {p: n for p, n in db.execute("SELECT pid, name FROM PROCESSES")}
    db.close()
    check("the shared export holds two processes", len(rows) == 2, rows)
    files, err = info_files(exe, path)
    procs = (files or [{}])[0].get("processes")
    check("info lists each process with its name and events (SQL)", procs == [
        {"pid": p, "name": names.get(p, ""), "events": rows[p]} for p in sorted(rows)],
        f"{procs} vs {rows} {err}")
    rc, out, err = run(exe, "info", path, "--pid", str(min(rows)))
    check("info marks the processes --pid reads", rc == 0 and out.count("(--pid)") == 1, out)
    for pid in sorted(rows):
        odb = only_pid(path, os.path.join(tmp, f"pid{pid}.sqlite"), pid)
        for cat, oracle in (("kernel", sql_kernels), ("gpu_memcpy", sql_copies),
                            ("gpu_memset", sql_memsets), ("user_annotation", sql_nvtx),
                            ("cuda_runtime", sql_runtime)):
            want = oracle(odb)
            got, err = table(exe, path, path, "--cat", cat, "--pid", str(pid))
            if not want:
                check(f"--pid {pid} {cat} absent", got is None or
                      not any(v[0] for v in got.values()), err)
                continue
            ok, why = same_sums(got, want)
            check(f"--pid {pid} {cat} equals SQL over its rows", ok, why or err)
        odb.close()
    both = ",".join(str(p) for p in sorted(rows))
    got, _ = table(exe, path, path, "--pid", both)
    whole, _ = table(exe, path, path)
    check("--pid with every process reads the whole export", got == whole and got, both)
    # Every command that reads traces takes it; a pid the file lacks is an
    # error naming the file and the pids it holds, and writes nothing.
    pid = str(max(rows, key=rows.get))  # the process with the kernels and ranges
    odb = only_pid(path, os.path.join(tmp, "pid_ranges.sqlite"), int(pid))
    ranges = sql_nvtx(odb)
    odb.close()
    cmds = [("compare", [path, path], ".csv"), ("ops", [path, path], ".csv"),
            ("check", [path, path], ".txt"),
            ("explain", [path, path, min(ranges), "--by", "annotation"], ".txt"),
            ("breakdown", [path, path], ".txt"), ("report", [path, path], ".html"),
            ("plot", ["duration", path, path], ".svg"), ("info", [path], ".txt"),
            ("summarize", [path], ".tdsum")]
    for cmd, args, ext in cmds:
        out = os.path.join(tmp, f"pid_{cmd}{ext}")
        rc, _, err = run(exe, cmd, *args, "--pid", pid, "-o", out, "-q")
        check(f"{cmd} --pid reads", rc in (0, 3) and os.path.exists(out), f"rc {rc} {err}")
        if os.path.exists(out):
            os.remove(out)
        rc, _, err = run(exe, cmd, *args, "--pid", "1", "-o", out, "-q")
        check(f"{cmd} --pid absent: exit 1 naming the file and its pids", rc == 1 and
              path in err and both.replace(",", ", ") in err and not os.path.exists(out),
              f"rc {rc} {err}")
    # A summary made with --pid holds that process's events.
    tdsum = os.path.join(tmp, "pid.tdsum")
    rc, _, err = run(exe, "summarize", path, "--pid", pid, "-o", tdsum, "-q")
    got, err2 = table(exe, tdsum, tdsum)
    want, _ = table(exe, path, path, "--pid", pid)
    check("summarize --pid keeps the process's events", rc == 0 and got == want and got,
          err + err2)
    rc, _, err = run(exe, "compare", tdsum, tdsum, "--pid", pid, "-q")
    check("--pid on a summary is refused", rc == 1 and "summary" in err, err)
    kineto = os.path.join(ROOT, "tests/golden/traces/hta-trace_compare/test/test.json.gz")
    rc, _, err = run(exe, "compare", kineto, kineto, "--pid", "1", "-q")
    check("--pid on a JSON trace is refused, naming it", rc == 1 and kineto in err and
          "JSON" in err, err)
    rc, _, err = run(exe, "compare", path, path, "--pid", "x", "-q")
    check("--pid x: usage error", rc == 2 and "--pid" in err, err)


# ---------------------------------------------------------------- rocprof v1/v2 results.json

def write_results_json(path, rnd, string_pids=False, numbered_labels=False, labels=True):
    """A results.json in the shape rocprofiler's own writer gives it (ROCm/rocprofiler
    bin/sqlitedb.py: open_json '{ "traceEvents":[{}', label_json's process_name events,
    dump_json's complete events one per line with ts and dur as quoted strings and the
    table's columns as quoted args; bin/dform.py: the views that name the members and
    the tracks: HIP API pid 3, HSA API pid 2, COPY pid 0, GPU n pid 4 + n, kernels on
    tid 0). string_pids: pid and tid quoted, as older releases wrote them;
    numbered_labels: labels prefixed with their index ("3 GPU0"), as others did."""
    tracks = [(3, "CPU HIP API"), (2, "CPU HSA API"), (0, "COPY"), (4, "GPU0"), (5, "GPU1")]
    apis = ["hipLaunchKernel", "hipMemcpyAsync", "hipStreamSynchronize", "hipMalloc"]
    hsa = ["hsa_signal_wait_scacquire", "hsa_amd_memory_async_copy"]
    kernels = ["Cijk_Ailk_Bljk_SB_MT128x128x16", "void at::native::elementwise_kernel<128, 4>",
               "ncclKernel_AllReduce_RING_LL_Sum_float", "__amd_rocclr_fillBuffer"]
    out = ['{ "traceEvents":[{}\n']
    if labels:
        for i, (pid, name) in enumerate(tracks):
            label = f"{i} {name}" if numbered_labels else name
            out.append(',{"args":{"name":"%s"},"ph":"M","pid":%d,"name":"process_name",'
                       '"sort_index":%d}\n' % (label, pid, i))
    t = 1_000_000_000
    q = (lambda v: '"%d"' % v) if string_pids else (lambda v: "%d" % v)
    for _ in range(600):
        pid = rnd.choice([3, 3, 2, 0, 4, 4, 5])
        name = (rnd.choice(apis) if pid == 3 else rnd.choice(hsa) if pid == 2 else
                "async-copy%d" % rnd.randrange(50) if pid == 0 else rnd.choice(kernels))
        tid = 0 if pid >= 4 else rnd.choice([4711, 4712])
        t += rnd.randrange(100, 5000)
        d = rnd.randrange(0, 90000)
        args = ['"BeginNs":"%d"' % t, '"EndNs":"%d"' % (t + d), '"Name":"%s"' % name]
        dur = d // 1000 or 1  # dump_json writes a 0 dur as "1"
        out.append(',{"ph":"X","name":"%s","pid":%s,"tid":%s,"ts":"%d","dur":"%d",\n'
                   '  "args":{\n    %s\n  }\n}\n' % (name, q(pid), q(tid), t // 1000, dur,
                                                     ",\n    ".join(args)))
    out.append(',{"ts":1,"ph":"s","cat":"DataFlow","id":0,"pid":3,"tid":4711,"name":"dep"}\n')
    out.append('],\n"otherData": {\n    "ROCm version": "5.7"\n  }\n}\n')
    with open(path, "w") as f:
        f.write("".join(out))


def results_json_oracle(path):
    """{category: {name: (count, us)}} read with Python's json module."""
    doc = json.load(gzip.open(path, "rt") if path.endswith(".gz") else open(path))
    labels = {}
    for e in doc["traceEvents"]:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            labels[int(e["pid"])] = re.sub(r"^[0-9]+ ", "", e["args"]["name"])
    out = {}
    for e in doc["traceEvents"]:
        if e.get("ph") != "X":
            continue
        pid = int(e["pid"])
        lab = labels.get(pid)
        if lab is None:
            lab = {0: "COPY", 2: "CPU HSA API", 3: "CPU HIP API"}.get(pid, "GPU")
        cat = ("kernel" if lab.startswith("GPU") else "gpu_memcpy" if lab == "COPY" else
               "cuda_runtime" if lab.startswith("CPU ") else None)
        a = e.get("args", {})
        us = ((int(a["EndNs"]) - int(a["BeginNs"])) / 1000.0 if "BeginNs" in a and "EndNs" in a
              else float(e["dur"]))
        c, t = out.setdefault(cat, {}).get(e["name"], (0, 0.0))
        out[cat][e["name"]] = (c + 1, t + us)
    return out


def test_rocprof_v1(exe, tmp):
    import random
    variants = [("results.json", {}), ("strings/results.json", {"string_pids": True}),
                ("numbered/results.json", {"numbered_labels": True}),
                ("unlabelled/results.json", {"labels": False})]
    for i, (rel, kw) in enumerate(variants):
        path = os.path.join(tmp, "rocprof_v1", rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_results_json(path, random.Random(40 + i), **kw)
        want = results_json_oracle(path)
        for cat in ("kernel", "cuda_runtime", "gpu_memcpy"):
            got, err = table(exe, path, path, "--cat", cat)
            ok, why = same_sums(got, want.get(cat, {}))
            check(f"results.json ({rel}) {cat} equals the Python reader", ok and want.get(cat),
                  why or err)
    path = os.path.join(tmp, "rocprof_v1", "results.json")
    gz = path + ".gz"
    with open(path, "rb") as f, gzip.open(gz, "wb") as g:
        g.write(f.read())
    a, err = table(exe, gz, path)
    check("results.json.gz reads as the plain file", a and all(
        v[0] == v[2] and close(v[1], v[3]) for v in a.values()), err)
    files, err = info_files(exe, path)
    f = (files or [{}])[0]
    want = results_json_oracle(path)
    check("info names results.json and its tracks", f.get("format", "").startswith(
        "rocprof v1/v2") and [p["name"] for p in f.get("processes", [])] ==
        ["COPY", "CPU HSA API", "CPU HIP API", "GPU0", "GPU1"] and
        f.get("events_gpu") == sum(c for cat in ("kernel", "gpu_memcpy")
                                   for c, _ in want[cat].values()), files or err)
    # Cut short: one error naming the file, nothing written.
    cut = os.path.join(tmp, "rocprof_v1", "cut.json")
    data = open(path, "rb").read()
    with open(cut, "wb") as f:
        f.write(data[:len(data) // 2])
    out = os.path.join(tmp, "rocprof_v1", "cut.csv")
    rc, _, err = run(exe, "compare", cut, path, "-o", out, "-q")
    check("a truncated results.json: exit 1 naming it", rc == 1 and cut in err and
          not os.path.exists(out), err)
    # Only metadata, no events: an error, not an empty comparison.
    empty = os.path.join(tmp, "rocprof_v1", "empty.json")
    with open(empty, "w") as f:
        f.write('{ "traceEvents":[{}\n,{"args":{"name":"GPU0"},"ph":"M","pid":4,'
                '"name":"process_name"}\n]}\n')
    rc, _, err = run(exe, "compare", empty, path, "-q")
    check("a results.json with no events: exit 1 naming it", rc == 1 and empty in err and
          "no kernels" in err, err)


def test_mpi_and_python(exe):
    """A folder of exports through tracediff-mpi and the Python module."""
    folder = os.path.join(D, "nsys-mordred")
    args = ["compare", folder, folder, "--control-rank", "all", "--test-rank", "1", "--format",
            "csv", "-q"]
    rc, want, err = run(exe, *args)
    mpi = os.path.join(os.path.dirname(exe), "tracediff-mpi")
    if shutil.which("mpirun") and os.path.exists(mpi):
        env = dict(os.environ)
        if "asan" in os.path.basename(os.path.dirname(exe)):
            # Open MPI's unloaded plugins defeat LeakSanitizer (as in mpi_test.py).
            env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
        p = subprocess.run(["mpirun", "--allow-run-as-root", "--oversubscribe", "-q", "-n", "2",
                            mpi, *args], cwd=ROOT, capture_output=True, timeout=600, env=env)
        check("tracediff-mpi: a folder of exports, ranks in file order",
              rc == 0 and p.returncode == 0 and p.stdout.decode() == want, p.stderr.decode())
    else:
        print("profilers: note: no mpirun or tracediff-mpi: the MPI check did not run")
    pydir = os.path.join(os.path.dirname(exe), "python")
    # An instrumented build's module needs its sanitizer's runtime preloaded
    # into Python: python_test.py does that; here only the plain build's.
    instrumented = "asan" in os.path.basename(os.path.dirname(exe))
    # the module as this build's sources make it (make decides what is out
    # of date; python_test.py, which starts first, has usually built it)
    build = os.path.relpath(os.path.dirname(exe), ROOT)
    built = not instrumented and subprocess.run(
        ["make", "-s", "python", "BUILD=" + build], cwd=ROOT, capture_output=True).returncode == 0
    if built and os.path.isdir(os.path.join(pydir, "tracediff")):
        code = ("import sys; from tracediff import LabeledTrace, TraceDiff\n"
                "a = LabeledTrace(label='a', trace_dir=sys.argv[1])\n"
                "b = LabeledTrace(label='b', trace_dir=sys.argv[1])\n"
                "df = TraceDiff.compare_traces(a, b, control_rank=1, test_rank=1, "
                "device_type='GPU')\n"
                "for n, r in df.iterrows(): print(n, r['a_counts'], r['a_total_duration'])\n")
        p = subprocess.run(["/usr/bin/python3", "-W", "ignore", "-c", code, folder], cwd=ROOT,
                           capture_output=True, env=dict(os.environ, PYTHONPATH=pydir))
        path = os.path.join(folder, "ad27a34-report1.sqlite")  # rank 1: second by name
        db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
        want = {**sql_kernels(db), **sql_copies(db), **sql_memsets(db)}
        db.close()
        got = {}
        for line in p.stdout.decode().splitlines():
            n, c, t = line.rsplit(" ", 2)
            got[n] = (int(c), float(t))
        ok = p.returncode == 0 and set(got) == set(want) and all(
            got[k][0] == want[k][0] and close(got[k][1], want[k][1]) for k in want)
        check("Python LabeledTrace over a folder of exports equals SQL", ok,
              p.stderr.decode()[-300:] or sorted(set(got) ^ set(want))[:4])
    else:
        print("profilers: note: %s: the Python check did not run"
              % ("an instrumented build (python_test.py runs the module under it)"
                 if instrumented else "the Python module is not built"))


def union_ns(iv):
    total, end = 0, None
    for a, b in sorted(iv):
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total


def sql_gpu_intervals(db):
    """(compute, memory) intervals in ns: kernels (none of these exports has
    a collective) and copies and memsets."""
    comp, mem = [], []
    if has_table(db, "CUPTI_ACTIVITY_KIND_KERNEL"):
        q = ('SELECT k.start, k."end", s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k '
             'JOIN StringIds s ON s.id = k.shortName')
        for a, b, n in db.execute(q):
            assert "nccl" not in n.lower() and "rccl" not in n.lower(), n
            comp.append((a, b))
    for t in ("CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):
        if has_table(db, t):
            mem += db.execute(f'SELECT start, "end" FROM {t}').fetchall()
    return comp, mem


def test_breakdown(exe):
    """breakdown on exports: the GPU side of every pair against SQL over the
    same files (kernel time = last end - first start of the GPU events, busy =
    their union, compute = the kernels' union, memory = the copies' and
    memsets' union)."""
    pairs = [("nsys-fuser-matmul/report1.sqlite", "nsys-fuser-matmul/report3.sqlite"),
             ("nsys-vector-add/report1.sqlite", "nsys-vector-add/report2.sqlite"),
             ("nsys-mordred/03527a5-report1.sqlite", "nsys-mordred/ad27a34-report1.sqlite"),
             ("nsys-fuser-2025/report1.sqlite", "nsys-fuser-2025/report1.sqlite")]
    for a, b in pairs:
        rc, out, err = run(exe, "breakdown", os.path.join(D, a), os.path.join(D, b),
                           "--format", "json")
        check(f"breakdown {a} {b}: exit 0", rc == 0, err)
        if rc != 0:
            continue
        doc = json.loads(out)
        for side, f in (("control", a), ("test", b)):
            db = sqlite3.connect(f"file:{os.path.join(D, f)}?mode=ro&immutable=1", uri=True)
            comp, mem = sql_gpu_intervals(db)
            db.close()
            ranks = doc[side]["ranks"]
            check(f"breakdown {f}: one rank", len(ranks) == 1, str(len(ranks)))
            if len(ranks) != 1:
                continue
            r = ranks[0]
            allv = comp + mem
            want = {"kernel_time_us": (max(e for _, e in allv) - min(s for s, _ in allv)) / 1000,
                    "busy_us": union_ns(allv) / 1000, "compute_us": union_ns(comp) / 1000}
            for k, v in want.items():
                check(f"breakdown {f}: {k} = SQL", abs(r[k] - v) <= 1e-6 * max(1, v),
                      f"{r[k]} vs {v}")
            check(f"breakdown {f}: idle = kernel time - busy",
                  abs(r["idle_us"] - (want["kernel_time_us"] - want["busy_us"])) <= 1e-3)
            mem_only = union_ns(allv) - union_ns(comp)
            got_mem = r["kernel_types"].get("MEMORY", 0)
            check(f"breakdown {f}: memory not under a kernel = SQL",
                  abs(got_mem - mem_only / 1000) <= 1e-6 * max(1, got_mem), f"{got_mem} vs {mem_only / 1000}")


def main():
    exe = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="td_profilers_")
    try:
        test_sql_equality(exe)
        test_schema_matrix(exe, tmp)
        test_fuser_series(exe, tmp)
        test_breakdown(exe)
        test_rocprof_json(exe)
        test_rocprof_synthetic(exe, tmp)
        test_rocpd(exe, tmp)
        test_bad_inputs(exe, tmp)
        test_mpi_and_python(exe)
        test_mpi_ranks(exe, tmp)
        test_pids(exe, tmp)
        test_rocprof_v1(exe, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"profilers: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
