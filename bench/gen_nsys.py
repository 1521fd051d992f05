#!/usr/bin/env python3
"""A large Nsight Systems SQLite export for timing (bench/README.md).

Takes the schema of a real export (its CREATE statements, so columns,
order and types are nsys 2024.6's) and fills the kernel and runtime tables
with N kernels, each launched by one cudaLaunchKernel, over a few dozen
kernel names, and a few NVTX ranges.

    gen_nsys.py OUT.sqlite [N] [--seed S] [--slower PCT]
"""
import argparse, os, random, sqlite3

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "tests/golden/traces/profilers/nsys-fuser-matmul/report1.sqlite")
TABLES = ["StringIds", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME",
          "NVTX_EVENTS", "META_DATA_EXPORT", "TARGET_INFO_GPU", "ENUM_CUDA_MEMCPY_OPER",
          "ENUM_CUDA_MEM_KIND"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("n", type=int, nargs="?", default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--slower", type=float, default=0.0, help="percent added to every kernel")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    src = sqlite3.connect(f"file:{SRC}?mode=ro&immutable=1", uri=True)
    if os.path.exists(a.out):
        os.remove(a.out)
    db = sqlite3.connect(a.out)
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA synchronous = OFF")
    for t in TABLES:
        (sql,) = src.execute("SELECT sql FROM sqlite_master WHERE name = ?", (t,)).fetchone()
        db.execute(sql)
    for t in ("META_DATA_EXPORT", "TARGET_INFO_GPU", "ENUM_CUDA_MEMCPY_OPER",
              "ENUM_CUDA_MEM_KIND"):
        rows = src.execute(f'SELECT * FROM "{t}"').fetchall()
        if rows:
            db.executemany(f'INSERT INTO "{t}" VALUES ({",".join("?" * len(rows[0]))})', rows)
    kcols = [r[1] for r in src.execute("PRAGMA table_info(CUPTI_ACTIVITY_KIND_KERNEL)")]
    rcols = [r[1] for r in src.execute("PRAGMA table_info(CUPTI_ACTIVITY_KIND_RUNTIME)")]
    proto = dict(zip(kcols, src.execute("SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1")
                     .fetchone()))
    names = [f"gemm_kernel_{i}<float, {i % 7}>" for i in range(40)] + \
            [f"elementwise_{i}" for i in range(20)]
    db.executemany("INSERT INTO StringIds (id, value) VALUES (?, ?)",
                   [(i + 1, n) for i, n in enumerate(names)] + [(1000, "cudaLaunchKernel_v7000"),
                                                                (1001, "step")])
    fixed = random.Random(0)  # the same kernels' durations in every file, whatever the seed
    base = [fixed.uniform(2_000, 200_000) for _ in names]
    f = 1 + a.slower / 100

    def rows():
        t = 1_000_000
        for i in range(a.n):
            k = rnd.randrange(len(names))
            d = int(base[k] * f * rnd.uniform(0.95, 1.05))
            r = dict(proto, start=t + 3000, end=t + 3000 + d, correlationId=i + 1,
                     shortName=k + 1, demangledName=k + 1, streamId=7)
            yield [r.get(c) for c in kcols], (t, t + 2500, 0, 16807372, i + 1, 1000, 0, None)
            t += d + 4000

    kq = f'INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ({",".join("?" * len(kcols))})'
    rq = f'INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME ({",".join(rcols)}) VALUES ' \
         f'({",".join("?" * len(rcols))})'
    batch_k, batch_r = [], []
    for kr, rr in rows():
        batch_k.append(kr)
        batch_r.append(rr)
        if len(batch_k) == 50_000:
            db.executemany(kq, batch_k)
            db.executemany(rq, batch_r)
            batch_k, batch_r = [], []
    if batch_k:
        db.executemany(kq, batch_k)
        db.executemany(rq, batch_r)
    db.execute('INSERT INTO NVTX_EVENTS (start, "end", eventType, textId, globalTid) '
               'VALUES (0, 9000000000000, 59, 1001, 16807372)')
    db.commit()
    db.close()


if __name__ == "__main__":
    main()
