#!/usr/bin/env python3
"""The program's heap in transparent huge pages (src/cli/heap.c).

    heap_test.py TRACEDIFF

A tracediff reading a trace from a named pipe waits in open() until a
writer comes, with its heap set up; its /proc/PID/smaps then shows:

- a part of the heap ([heap]) marked for huge pages (VmFlags "hg"), that
  starts on a 2 MiB boundary and is at least 30 MiB long (the pad), when
  the kernel has transparent huge pages and the build is not instrumented
  (under AddressSanitizer the heap is the sanitizer's: no part marked);
- no part marked with TD_SMALL_PAGES=1;
- the tracediff a suite starts has none of the settings run_all.py gives
  the suites' own interpreter (tests/suite_main.py);
- a compare of the trace read through the pipe with itself, with the heap
  set up or not, prints what the compare of the regular file with itself
  prints.
"""
import os, shutil, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402  (Checks)
import suite_main  # noqa: E402  (TUNED: run_all.py's settings for the suites' interpreter)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HUGE = 2 << 20
check = cases.Checks("heap")


def heap_parts(pid):
    """[(start, end, flags)] of the [heap] mappings of process pid."""
    parts, cur = [], None
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            head = line.split()
            if head and "-" in head[0] and len(head) >= 5 and ":" in head[3]:
                cur = None
                if line.rstrip().endswith("[heap]"):
                    lo, hi = (int(x, 16) for x in head[0].split("-"))
                    cur = [lo, hi, ""]
                    parts.append(cur)
            elif cur is not None and line.startswith("VmFlags:"):
                cur[2] = line[8:].strip()
    return [tuple(p) for p in parts]


def in_open(pid):
    """Whether a thread of process pid waits in open() (files are opened on
    the loading threads as well as the main one)."""
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return False
    for tid in tids:
        try:
            with open("/proc/%d/task/%s/syscall" % (pid, tid)) as f:
                if f.read().split()[0] in ("2", "257"):  # open, openat
                    return True
        except (OSError, IndexError):
            pass
    return False


def blocked_on_pipe(exe, fifo, src, env):
    """Starts exe compare of fifo with src, reads its heap once it waits for
    a writer, then feeds it src: (heap parts, exit status, stdout)."""
    p = subprocess.Popen([exe, "compare", fifo, src], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not in_open(p.pid):
        time.sleep(0.01)
    check("tracediff waits in open() for the pipe's writer", in_open(p.pid))
    parts = heap_parts(p.pid)
    with open("/proc/%d/environ" % p.pid, "rb") as f:
        seen = dict(v.split(b"=", 1) for v in f.read().split(b"\0") if b"=" in v)
    for k, v in suite_main.TUNED.items():  # the harness's own settings stay its own
        check("the suite's interpreter's %s=%s not passed on" % (k, v),
              seen.get(k.encode()) != v.encode())
    check("no TD_SUITE_TUNED passed on", b"TD_SUITE_TUNED" not in seen)
    with open(fifo, "wb") as w, open(src, "rb") as r:
        shutil.copyfileobj(r, w)
    out, err = p.communicate(timeout=60)
    return parts, p.returncode, out


def main():
    exe = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build",
                                                                              "tracediff"))
    thp = os.path.exists("/sys/kernel/mm/transparent_hugepage/enabled")
    asan = "asan" in os.path.basename(os.path.dirname(exe))  # as the other suites tell
    src = os.path.join(ROOT, "examples", "control", "control.json.gz")
    tmp = tempfile.mkdtemp(prefix="td-heap-")
    try:
        want = subprocess.run([exe, "compare", src, src], capture_output=True)
        check("compare of the regular file", want.returncode == 0, want.stderr.decode())
        fifo = os.path.join(tmp, "t.json.gz")
        base = {k: v for k, v in os.environ.items() if k != "TD_SMALL_PAGES"}
        for label, env in (("huge pages", base), ("TD_SMALL_PAGES=1",
                                                  dict(base, TD_SMALL_PAGES="1"))):
            os.mkfifo(fifo)
            parts, rc, out = blocked_on_pipe(exe, fifo, src, env)
            os.unlink(fifo)
            check("%s: read through a pipe, exit 0" % label, rc == 0, "exit %d" % rc)
            check("%s: the regular file's output" % label, out == want.stdout,
                  out.decode(errors="replace"))
            marked = [p for p in parts if " hg" in " " + p[2]]
            if not asan:  # the sanitizer's allocator has no brk heap
                check("%s: the heap is seen" % label, len(parts) > 0, "no [heap] in smaps")
            if label == "huge pages" and thp and not asan:
                ok = any(lo % HUGE == 0 and hi - lo >= 24 << 20 for lo, hi, _ in marked)
                check("%s: a part of the heap from a 2 MiB boundary, >= 24 MiB, marked hg" % label,
                      ok, "%r" % [(hex(a), hex(b), f) for a, b, f in parts])
            else:
                check("%s: no part of the heap marked hg (%s)" % (
                    label, "instrumented" if asan else "no THP" if not thp else "turned off"),
                    not marked, "%r" % marked)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
