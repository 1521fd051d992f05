#!/usr/bin/env python3
"""Layout tests: the folders of src/ follow the data and depend one way.

    layout_test.py [TRACEDIFF]    (the build directory beside it holds the libraries)

- every #include "folder/..." names the including file's own folder or one
  below it (util < read < model < store < compare < present);
- src/cli/ includes only the public header and its own headers;
- every folder of src/ has a README.md and a row in docs/architecture.md;
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
import os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORDER = ["util", "read", "model", "store", "compare", "present"]
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
    for argv, want in ((["compare", "--format", "csv"], False), (["plot", "counts"], True)):
        cmd = [exe] + argv + [os.path.join(pair, "control"), os.path.join(pair, "test"), "-q"]
        if want:
            cmd += ["-o", out]
        env = dict(os.environ, LD_DEBUG="files")
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        loaded = "libcairo.so" in r.stderr
        check("%s %s cairo" % (argv[0], "loads" if want else "does not load"),
              r.returncode == 0 and loaded == want,
              "exit %d, cairo loaded: %s" % (r.returncode, loaded))
    for argv, want in ((["compare"], False),
                       (["compare", "--stats", "--control-iteration", "all", "--test-iteration", "all"], True)):
        cmd = [exe] + argv + [os.path.join(pair, "control"), os.path.join(pair, "test"), "-q",
                              "--format", "csv"]
        r = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, LD_DEBUG="files"))
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
        r = subprocess.run([exe] + argv + ["-q"], capture_output=True, text=True,
                           env=dict(os.environ, LD_DEBUG="files"))
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
