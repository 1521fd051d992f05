#!/usr/bin/env python3
"""Layout tests: the folders of src/ follow the data and depend one way.

    layout_test.py [TRACEDIFF]    (the build directory beside it holds the libraries)

- every #include "folder/..." names the including file's own folder or one
  below it (util < read < model < store < compare < present);
- src/cli/ includes only the public header and its own headers;
- every folder of src/ has a README.md and a row in docs/architecture.md;
- calls are one-way too, read from the objects with nm: every symbol an
  object of build/src/X/ needs from the library's objects is defined in X or
  a folder below; no header of src/X/ names a function defined above X (an
  inline body calling up); no two files call each other, directly or round
  a circle; src/cli/, mpi/ and python/ use only what the shared libraries
  export (TD_API);
- no .c or .h file is left at the top of src/ (each folder has its own
  headers: util/util.h, read/reader.h, model/model.h, store/store.h,
  compare/compare.h, ...);
- neither library nor the tracediff binary links cairo: libtracediff-render
  loads it when the first chart is drawn (src/present/cairo_dl.h), so a
  command that draws nothing never maps cairo's libraries, and one that
  draws does; likewise GSL, loaded by the first statistical test
  (src/compare/gsl_dl.h): compare without --stats never maps it; and
  libcrypto, loaded by the first SHA-256 (src/util/sha256.c): compare never
  maps it, summarize does.
"""
import collections, glob, os, re, subprocess, sys, sysconfig, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORDER = ["util", "read", "model", "store", "compare", "present"]
CALL_ORDER = ORDER + ["cli"]
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL layout %s%s" % (name, ": " + detail if detail else ""))


def sources(folder):
    d = os.path.join(ROOT, "src", folder)
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith((".c", ".h")))


def nm(path):
    """(defined, undefined) global symbols of an object file."""
    return nm_all([path])[path]


def nm_all(paths):
    """{path: (defined, undefined)} of object files, from one nm over all
    of them (one process, not one per object: nm prints "\nPATH:" before
    each file's symbols when given several)."""
    out = subprocess.run(["nm", "--"] + list(paths) + ([paths[0]] if len(paths) == 1 else []),
                         capture_output=True, text=True)
    syms = {p: (set(), set()) for p in paths}
    cur = None
    for line in out.stdout.splitlines():
        if line.endswith(":") and line[:-1] in syms:
            cur = syms[line[:-1]]
            continue
        p = line.split()
        if cur is None:
            continue
        if len(p) == 3 and p[1] in "TDBRCVW":
            cur[0].add(p[2])
        elif len(p) == 2 and p[0] == "U":
            cur[1].add(p[1])
    return syms


def circles(edges):
    """The strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def python_object(build):
    """python/_tracediff.c compiled alone (the module links the libraries in
    statically, so its own needs are read from its object), or None."""
    inc = sysconfig.get_paths()["include"]
    for py in ("/usr/bin/python3", "python3"):
        r = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['include'])"],
                           capture_output=True, text=True)
        if r.returncode == 0 and os.path.exists(os.path.join(r.stdout.strip(), "Python.h")):
            inc = r.stdout.strip()
            break
    out = os.path.join(tempfile.mkdtemp(prefix="layout_py"), "_tracediff.o")
    r = subprocess.run(["cc", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-D_DEFAULT_SOURCE",
                        "-fPIC", "-isystem", inc, "-I" + os.path.join(ROOT, "include"), "-c", "-o",
                        out, os.path.join(ROOT, "python", "_tracediff.c")],
                       capture_output=True, text=True)
    check("python/_tracediff.c compiles (Python.h: %s)" % inc, r.returncode == 0, r.stderr[:300])
    return out if r.returncode == 0 else None


def check_calls(build):
    """The layering of calls, from the objects of build/src/."""
    folder_of = {}
    for f in CALL_ORDER:
        for o in sorted(glob.glob(os.path.join(build, "src", f, "*.o"))):
            folder_of[o] = f
    fronts_o = sorted(glob.glob(os.path.join(build, "mpi", "*.o")))
    syms = nm_all(list(folder_of) + fronts_o) if folder_of else {}
    objs = {o: (f,) + syms[o] for o, f in folder_of.items()}
    check("the objects of %s/src/ are there" % build, any(objs), build)
    where = {}  # symbol -> object defining it
    for o, (_, defined, _) in objs.items():
        for sym in defined:
            where[sym] = o
    edges = collections.defaultdict(set)
    for o, (f, _, undefined) in sorted(objs.items()):
        rel = os.path.relpath(o, build)
        for sym in sorted(undefined):
            if sym not in where:
                continue
            d = objs[where[sym]][0]
            edges[rel].add(os.path.relpath(where[sym], build))
            check("%s calls %s (%s/)" % (rel, sym, d),
                  CALL_ORDER.index(d) <= CALL_ORDER.index(f),
                  "%s/ may not call %s/ (it sits above)" % (f, d))
    for comp in circles(edges):
        check("no circle of calls between files", False, " <-> ".join(comp))
    # A header that names a function defined above its folder (an inline
    # body, a macro) lets its includers call up without an object showing it.
    funcs = {sym: objs[o][0] for sym, o in where.items()}
    ident = re.compile(r"\b[A-Za-z_]\w*\b")
    for f in CALL_ORDER:
        for path in sorted(glob.glob(os.path.join(ROOT, "src", f, "*.h"))):
            text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", open(path, encoding="utf-8").read(), flags=re.S)
            for name in sorted(set(ident.findall(text))):
                d = funcs.get(name)
                if d is not None:
                    check("%s names %s (%s/)" % (os.path.relpath(path, ROOT), name, d),
                          CALL_ORDER.index(d) <= CALL_ORDER.index(f),
                          "a header of %s/ names a function of %s/, above it" % (f, d))
    # The front ends: only what the shared libraries export.
    exported = set()
    for lib in ("libtracediff.so", "libtracediff-render.so"):
        out = subprocess.run(["nm", "-D", "--defined-only", os.path.join(build, lib)],
                             capture_output=True, text=True).stdout
        exported |= {line.split()[-1] for line in out.splitlines() if line.strip()}
    check("the shared libraries export symbols", len(exported) > 50, str(len(exported)))
    library = {sym for sym, o in where.items() if objs[o][0] in ORDER}
    fronts = [(o, os.path.relpath(o, build)) for o in objs if objs[o][0] == "cli"]
    fronts += [(o, os.path.relpath(o, build)) for o in fronts_o]
    py = python_object(build)
    if py:
        fronts.append((py, "python/_tracediff.o"))
    for o, rel in fronts:
        used = (syms[o] if o in syms else nm(o))[1] & library
        if rel.endswith(("cmd_compare.o", "_tracediff.o")):
            check("%s uses the library (the check sees it)" % rel, bool(used))
        for sym in sorted(used - exported):
            check("%s uses %s" % (rel, sym), False, "not exported: front ends use the public API")


def main():
    src = os.path.join(ROOT, "src")
    folders = sorted(f for f in os.listdir(src) if os.path.isdir(os.path.join(src, f)))
    arch = open(os.path.join(ROOT, "docs", "architecture.md"), encoding="utf-8").read()
    for f in folders:
        check("%s has a README" % f, os.path.exists(os.path.join(src, f, "README.md")))
        check("%s is in docs/architecture.md" % f, "`src/%s/`" % f in arch)
    for f in folders:
        check("%s is a known layer" % f, f in ORDER or f == "cli")
    top = [f for f in os.listdir(src) if f.endswith((".c", ".h"))]
    check("nothing at the top of src/", not top, str(top))
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    for f in folders:
        for path in sources(f):
            rel = os.path.relpath(path, ROOT)
            for name in inc.findall(open(path, encoding="utf-8").read()):
                if f == "cli":
                    ok = name == "tracediff.h" or "/" not in name and \
                        os.path.exists(os.path.join(src, "cli", name))
                    check("%s includes %s" % (rel, name), ok, "the CLI uses the public API only")
                    continue
                if "/" not in name:
                    check("%s includes %s" % (rel, name),
                          name == "tracediff.h" or
                          os.path.exists(os.path.join(src, f, name)))
                    continue
                target = name.split("/")[0]
                ok = target in ORDER and f in ORDER and ORDER.index(target) <= ORDER.index(f)
                check("%s includes %s" % (rel, name), ok,
                      "%s/ may not depend on %s/ (it sits above)" % (f, target))
    build = os.path.dirname(os.path.abspath(sys.argv[1])) if len(sys.argv) > 1 else \
        os.path.join(ROOT, "build")
    check_calls(build)
    for name in ("libtracediff.so", "libtracediff-render.so", "tracediff"):
        path = os.path.join(build, name)
        if not os.path.exists(path):
            check("%s is built" % name, False, path)
            continue
        deps = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
        check("%s does not link cairo" % name, "libcairo" not in deps, deps.strip()[:300])
        check("%s does not link GSL" % name, "libgsl" not in deps, deps.strip()[:300])
        check("%s does not link libcrypto" % name, "libcrypto" not in deps, deps.strip()[:300])
    exe = os.path.join(build, "tracediff")
    pair = os.path.join(ROOT, "tests", "golden", "traces", "hta-trace_diff")
    out = os.path.join(build, "layout_test.png")
    # compare maps none of the three libraries: one run of it, with the
    # loader's list of files, answers for cairo, GSL and libcrypto.
    loaded_by = {}

    def ld_files(cmd):
        if tuple(cmd) not in loaded_by:
            loaded_by[tuple(cmd)] = subprocess.run(cmd, capture_output=True, text=True,
                                                   env=dict(os.environ, LD_DEBUG="files"))
        return loaded_by[tuple(cmd)]

    plain = [exe, "compare", os.path.join(pair, "control"), os.path.join(pair, "test"), "-q",
             "--format", "csv"]
    for argv, want in ((["compare", "--format", "csv"], False), (["plot", "counts"], True)):
        cmd = [exe] + argv + [os.path.join(pair, "control"), os.path.join(pair, "test"), "-q"]
        if want:
            cmd += ["-o", out]
        r = ld_files(plain if not want else cmd)
        loaded = "libcairo.so" in r.stderr
        check("%s %s cairo" % (argv[0], "loads" if want else "does not load"),
              r.returncode == 0 and loaded == want,
              "exit %d, cairo loaded: %s" % (r.returncode, loaded))
    for argv, want in ((["compare"], False),
                       (["compare", "--stats", "--control-iteration", "all", "--test-iteration", "all"], True)):
        cmd = [exe] + argv + [os.path.join(pair, "control"), os.path.join(pair, "test"), "-q",
                              "--format", "csv"]
        r = ld_files(cmd)
        loaded = "libgsl.so" in r.stderr
        check("%s %s GSL" % (" ".join(argv), "loads" if want else "does not load"),
              r.returncode == 0 and loaded == want and
              (",p_value," in r.stdout.splitlines()[0]) == want,
              "exit %d, GSL loaded: %s" % (r.returncode, loaded))
    tdsum = os.path.join(build, "layout_test.tdsum")
    for argv, want in ((["compare", os.path.join(pair, "control"), os.path.join(pair, "test"),
                         "--format", "csv"], False),
                       (["summarize", os.path.join(pair, "control"), "-o", tdsum], True)):
        if os.path.exists(tdsum):
            os.unlink(tdsum)
        r = ld_files(plain if not want else [exe] + argv + ["-q"])
        loaded = "libcrypto.so" in r.stderr
        check("%s %s libcrypto" % (argv[0], "loads" if want else "does not load"),
              r.returncode == 0 and loaded == want,
              "exit %d, libcrypto loaded: %s" % (r.returncode, loaded))
    if os.path.exists(tdsum):
        os.unlink(tdsum)
    if os.path.exists(out):
        with open(out, "rb") as f:
            check("plot drew a PNG", f.read(8) == b"\x89PNG\r\n\x1a\n")
        os.unlink(out)
    print("layout: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
