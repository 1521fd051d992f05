#!/usr/bin/env python3
"""Browser test of the HTML report: headless Chromium renders it from disk.

    browser_test.py TRACEDIFF [--out DIR]

Installs Debian's chromium when it is missing (apt-get, as root or with sudo).
For each report: the DOM after the page's script ran holds both charts (one
bar group per chart row) and every row of the table, in name order; opened at
"#sort=COL&dir=DIR" the rows come in that order (the same function sorts on a
header click) and the header says so; "#q=TEXT" filters. A report of 20,000
rows renders whole. A report whose labels and names carry markup and
scripts (each would mark <body> if it ran) shows them as text and runs none
of them. At 1400 px the report with --stats keeps every verdict cell
inside the viewport and draws each chart at 90% or more of its card's width;
its table of contents (one link per section heading) stays at the top after
scrolling, the charts' legends say the sides' labels (the sets' names by
default) and the interval sits in the change's unit (percent).
The report's flame graph zooms, searches (its sum = the folded files') and
resets. speedscope (npm, pinned; skipped with a message when npm cannot
reach the registry) imports both sides' folded files with our stacks and
values. Screenshots (1400x2000) of the examples', the hta-trace_diff and the
bert reports go to DIR (default build/browser) for a person to look at.

One Chromium for the whole run (a start costs about 2 s of CPU; the checks
used to start it about 25 times), driven over the DevTools protocol on a
pipe (--remote-debugging-pipe: JSON requests, each ended by a NUL byte, on
its fd 3; answers and events on its fd 4). The pages load one after the
other in one tab (Target.createTarget, Target.attachToTarget with flatten; a
new one after a failure), each after about:blank so that it loads anew even
when it differs from the last in its #hash only (a tab per page cost a
renderer process each, 3-5 s of CPU in all), at 1400 px wide where the check
measures a layout (Emulation.setDeviceMetricsOverride before the page loads,
as --window-size did), and is read once its load event fired: its DOM is
document.documentElement.outerHTML (Runtime.evaluate), what --dump-dom
printed; the screenshots are Page.captureScreenshot's PNGs of the viewport.
The probes (layout, table of contents, flame graph) are scripts added at the
end of a copy of the report, which run as it loads and write what they
measured on <body>. speedscope's import is waited for explicitly: a
condition polled in the page (up to 60 s) where --virtual-time-budget used
to let its timers run. Every read from Chromium waits in select() with a
timeout (120 s a request) and none past the run's deadline
(TD_BROWSER_TIMEOUT seconds after the start, default 900); when Chromium
dies, the pipe ends, the check at hand fails with its exit status and the
end of its stderr, and every later one at once. The run ends with
Browser.close, checked to exit 0.
"""
import base64, csv, fcntl, gzip, html.parser, io, json, os, re, select, shutil, struct, subprocess
import sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--no-first-run", "--disable-component-update", "--disable-sync",
         # timers keep their pace in every tab of the one browser
         "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
         "--disable-backgrounding-occluded-windows"]

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL " + name + (": " + detail if detail else ""))
    return ok


def chromium():
    for name in ("chromium", "chromium-browser"):
        if shutil.which(name):
            return shutil.which(name)
    print("installing chromium (apt-get)", file=sys.stderr)
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(sudo + ["apt-get", "update", "-qq"], check=False, env=env)
    subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "chromium"], check=False, env=env,
                   stdout=subprocess.DEVNULL)
    return shutil.which("chromium")


class BrowserError(Exception):
    """Chromium did not answer in time, answered with an error, or died."""


STEP = 120  # seconds: the longest one request to Chromium may take


class Chromium:
    """One headless Chromium for the whole run, driven over the DevTools
    protocol on a pipe: it reads requests (JSON, each ended by a NUL byte)
    on its fd 3 and writes answers and events on its fd 4. Every read waits
    in select() with a timeout, none past the run's deadline; when Chromium
    dies its pipe ends, and the call that was waiting raises BrowserError
    with its exit status and the end of its stderr."""

    def __init__(self, exe, deadline):
        self.deadline, self.gone, self.tab, self.session = deadline, None, None, None
        self.profile = tempfile.mkdtemp(prefix="td-chromium-")
        self.log = tempfile.TemporaryFile()
        # All four ends above fd 4 first, so that moving the child's two to
        # 3 and 4 overwrites none of them.
        ends = []
        for fd in os.pipe() + os.pipe():
            ends.append(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10))
            os.close(fd)
        theirs_in, self.w, self.r, theirs_out = ends

        def renumber():  # in the child, between fork and exec
            os.dup2(theirs_in, 3)
            os.dup2(theirs_out, 4)

        # pass_fds keeps fds under their own numbers; Chromium wants 3 and 4,
        # so the child moves them there itself. Python opens every other fd
        # close-on-exec (PEP 446): close_fds=False lets through 0-4 only.
        self.proc = subprocess.Popen(
            [exe] + FLAGS + ["--user-data-dir=" + self.profile, "--remote-debugging-pipe",
                             "about:blank"], stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=self.log, close_fds=False, preexec_fn=renumber)
        os.close(theirs_in)
        os.close(theirs_out)
        os.set_blocking(self.w, False)
        self.buf, self.seen, self.next_id, self.events = bytearray(), 0, 0, []

    def _died(self, why):
        """Marks Chromium gone (every later call fails at once) and says
        why, with the end of its stderr, once."""
        try:
            status = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            status = None
        self.log.seek(0)
        tail = self.log.read().decode("utf-8", "replace").strip().splitlines()[-5:]
        self.gone = "chromium %s (exit status %s)" % (why, status)
        print("%s; its stderr ends:\n  %s" % (self.gone, "\n  ".join(tail)))
        return BrowserError(self.gone)

    def _wait(self, until, write=False):
        """Reads what Chromium sent until `until` (monotonic) at the latest;
        with write, returns once the request pipe takes more."""
        left = min(until, self.deadline) - time.monotonic()
        if left <= 0:
            raise BrowserError("chromium gave no answer in time" if until < self.deadline else
                               "the run's time for chromium is up")
        r, w, _ = select.select([self.r], [self.w] if write else [], [], left)
        if r:
            chunk = os.read(self.r, 1 << 20)
            if not chunk:
                raise self._died("died")
            self.buf += chunk
        return bool(w)

    def _message(self, until):
        while True:
            end = self.buf.find(b"\0", self.seen)
            if end >= 0:
                msg = json.loads(self.buf[:end].decode("utf-8"))
                del self.buf[:end + 1]
                self.seen = 0
                return msg
            self.seen = len(self.buf)
            self._wait(until)

    def call(self, method, params=None, session=None, timeout=STEP):
        """Sends one request and returns its result; events that come
        before the answer are kept for wait_event."""
        if self.gone:
            raise BrowserError(self.gone)
        self.next_id += 1
        req = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            req["sessionId"] = session
        data = memoryview(json.dumps(req).encode("utf-8") + b"\0")
        until = time.monotonic() + timeout
        while data:
            if self._wait(until, write=True):
                try:
                    data = data[os.write(self.w, data):]
                except BlockingIOError:
                    pass
                except BrokenPipeError:
                    raise self._died("died")
        while True:
            msg = self._message(until)
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise BrowserError("%s: %s" % (method, msg["error"].get("message")))
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def wait_event(self, method, session, timeout=STEP):
        """The first kept or coming event `method` of the session."""
        until = time.monotonic() + timeout
        while True:
            for k, ev in enumerate(self.events):
                if ev["method"] == method and ev.get("sessionId") == session:
                    return self.events.pop(k)
            msg = self._message(until)
            if "method" in msg:
                self.events.append(msg)

    def evaluate(self, session, expr, timeout=STEP):
        """The value of a JavaScript expression in the page (a promise's
        value once it settles)."""
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True}, session, timeout)
        if "exceptionDetails" in r:
            raise BrowserError("%s: %s" % (expr[:60], r["exceptionDetails"].get("text")))
        return r["result"].get("value")

    def until(self, session, cond, timeout):
        """Polls cond (a JavaScript expression) in the page until it holds;
        False when it still does not after timeout seconds."""
        js = WAIT_JS.replace("MS", str(int(timeout * 1000))).replace("COND", cond)
        return self.evaluate(session, js, timeout + STEP)

    def _load(self, url):
        nav = self.call("Page.navigate", {"url": url}, self.session)
        if nav.get("errorText"):
            raise BrowserError("%s: %s" % (url, nav["errorText"]))
        self.wait_event("Page.loadEventFired", self.session)

    def page(self, url, size=None, until=None, shot=None):
        """Loads url in the run's tab (at size (width, height) when given,
        else at the window's), waits for its load event (then for `until` to
        hold), and returns its DOM, as --dump-dom prints it; shot: a PNG of
        the viewport, there. about:blank comes between two pages, so that
        each loads anew, even one that differs from the last in its #hash
        only."""
        try:
            return self._page(url, size, until, shot)
        except BrowserError:
            # A tab that failed (a page that hangs, say) is not used again.
            if self.tab and not self.gone:
                try:
                    self.call("Target.closeTarget", {"targetId": self.tab})
                except BrowserError:
                    pass
            self.tab = self.session = None
            raise

    def _page(self, url, size, until, shot):
        if self.session is None:
            self.tab = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            self.session = self.call("Target.attachToTarget", {"targetId": self.tab,
                                                               "flatten": True})["sessionId"]
            self.call("Page.enable", {}, self.session)
        self.events.clear()
        self._load("about:blank")
        if size:
            self.call("Emulation.setDeviceMetricsOverride", {
                "width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": False},
                self.session)
        else:
            self.call("Emulation.clearDeviceMetricsOverride", {}, self.session)
        self._load(url)
        if until and not self.until(self.session, until[0], until[1]):
            raise BrowserError("%s: still not %s after %d s" % (url, until[0], until[1]))
        if shot:
            png = self.call("Page.captureScreenshot", {"format": "png"}, self.session)["data"]
            with open(shot, "wb") as f:
                f.write(base64.b64decode(png))
        return self.evaluate(self.session, "document.documentElement.outerHTML")

    def close(self):
        """Browser.close, then the process' exit status (None: it had to be
        killed)."""
        try:
            if not self.gone:
                self.call("Browser.close")
            return self.proc.wait(timeout=30)
        except (BrowserError, subprocess.TimeoutExpired):
            return None
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            for fd in (self.r, self.w):
                os.close(fd)
            self.log.close()
            shutil.rmtree(self.profile, ignore_errors=True)


WAIT_JS = r"""new Promise(function (done) {
  var end = Date.now() + MS;
  (function poll() {
    var ok = false;
    try { ok = !!(COND); } catch (e) {}
    if (ok || Date.now() > end) done(ok); else setTimeout(poll, 50);
  })();
})"""


def browse(browser, url, size=None, until=None, shot=None):
    """(0, the page's DOM) after it loaded in the run's Chromium, or (1, "")
    and why on stdout when Chromium failed."""
    try:
        return 0, browser.page(url, size, until, shot)
    except BrowserError as e:
        print("chromium: %s" % e)
        return 1, ""


class Pwned(html.parser.HTMLParser):
    """Traces of a hostile payload in a dumped DOM: the mark any of them
    leaves on <body> when it runs, and elements that should not be there."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.marks, self.planted, self.title = [], [], ""
        self.in_title = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body" and "data-pwned" in a:
            self.marks.append(a["data-pwned"])
        if tag in ("img", "iframe") or any(k.startswith("on") for k in a):
            self.planted.append(tag)
        self.in_title = tag == "title"

    def handle_endtag(self, tag):
        self.in_title = False

    def handle_data(self, data):
        if self.in_title:
            self.title += data


# Markup that would run if a label or a name reached the page unescaped.
PAYLOADS = ["<img src=x onerror=\"document.body.dataset.pwned='img'\">",
            "<script>document.body.dataset.pwned='script'</script>",
            "\"><svg onload=\"document.body.dataset.pwned='svg'\">",
            "</script><script>document.body.dataset.pwned='json'</script>",
            "'; document.body.dataset.pwned='js'; '\u202e\x1b]0;t\x07"]


def hostile_set(tmp):
    """A real trace (TraceLens' bert on an H100) twice, its busiest ops and
    kernels renamed to the payloads; the test side slower."""
    src = os.path.join(ROOT, "tests/golden/traces/tracelens-bert_h100")
    f = [os.path.join(src, n) for n in os.listdir(src) if ".json" in n][0]
    with gzip.open(f, "rt") as fh:
        trace = json.load(fh)
    counts = {}
    for e in trace["traceEvents"]:
        if e.get("cat") in ("cpu_op", "kernel") and e.get("ph") == "X":
            counts[e["name"]] = counts.get(e["name"], 0) + 1
    busiest = sorted(counts, key=lambda n: (-counts[n], n))
    ops = [n for n in busiest if not n.startswith("void ")][:3]
    kernels = [n for n in busiest if n.startswith("void ")][:2]
    rename = dict(zip(ops + kernels, PAYLOADS))
    dirs = []
    for side, scale in (("hostile_c", 1), ("hostile_t", 2)):
        for e in trace["traceEvents"]:
            if e.get("name") in rename or e.get("name") in PAYLOADS:
                e["name"] = rename.get(e["name"], e["name"])
                if scale != 1 and "dur" in e:
                    e["dur"] = e["dur"] * scale
        os.makedirs(os.path.join(tmp, side))
        with open(os.path.join(tmp, side, "trace.json"), "w") as fh:
            json.dump(trace, fh)
        dirs.append(os.path.join(tmp, side))
    return dirs


def check_hostile(td, browser, tmp):
    a, b = hostile_set(tmp)
    labels = ["--control-label", PAYLOADS[0] + PAYLOADS[2], "--test-label",
              PAYLOADS[1] + PAYLOADS[3]]
    check_report(td, browser, tmp, "hostile", a, b, labels, sorts=[("name", "desc", 0)])
    out = os.path.join(tmp, "hostile.html")
    with open(out, encoding="utf-8") as f:
        page = f.read()
    check("hostile: the GPU time section is there", 'id="moved-ops"' in page)
    for q in ("", "#q=pwned", "#sort=diff_duration&dir=desc"):
        rc, dumped = browse(browser, "file://" + out + q)
        p = Pwned()
        p.feed(dumped)
        check("hostile%s: no payload ran" % q, rc == 0 and p.marks == [], p.marks)
        check("hostile%s: no element planted" % q, p.planted == [], p.planted)
        check("hostile%s: the labels are the title's text" % q,
              PAYLOADS[0] in p.title and PAYLOADS[1] in p.title, repr(p.title[:200]))


class Dom(html.parser.HTMLParser):
    """What the checks need from a dumped DOM: charts, their bar groups, the
    table's name cells in order, the headers' sort state, the row count."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.charts, self.groups, self.names, self.sorted = 0, {}, [], {}
        self.kind, self.in_name, self.count, self.in_count = None, False, None, False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "svg" and "td-chart" in cls:
            self.charts += 1
            self.kind = a.get("data-kind")
            self.groups[self.kind] = 0
        elif tag == "g" and cls == ["bar-group"]:
            self.groups[self.kind] += 1
        elif a.get("role") == "cell" and "name" in cls:
            self.in_name = True
            self.names.append("")
        elif a.get("role") == "columnheader":
            self.sorted[a.get("data-col")] = a.get("aria-sort")
        elif a.get("id") == "td-count":
            self.in_count = True
            self.count = ""

    def handle_endtag(self, tag):
        # Name cells and the count hold text only: any end tag closes them.
        self.in_name = self.in_count = False

    def handle_data(self, data):
        if self.in_name:
            self.names[-1] += data
        if self.in_count:
            self.count += data


def dom(exe, url):
    rc, out = browse(exe, url)
    d = Dom()
    d.feed(out)
    return rc, d


def shown(name):
    return re.sub("[\x00-\x1f\x7f-\x9f]", "?", name)


def csv_rows(td, a, b, args):
    p = subprocess.run([td, "compare", a, b, "--format", "csv", "-q"] + args,
                       capture_output=True, cwd=ROOT, timeout=600)
    return list(csv.reader(io.StringIO(p.stdout.decode("utf-8"), newline="")))[1:]


def chart_rows(td, a, b, col):
    return len(csv_rows(td, a, b, ["--sort", col, "--top", "10", "--exclude", "^ProfilerStep"]))


def check_report(td, browser, tmp, name, a, b, args=(), shot_dir=None, sorts=()):
    out = os.path.join(tmp, name + ".html")
    p = subprocess.run([td, "report", a, b, "-q", "-o", out, "--no-normalize-names"] + list(args),
                       capture_output=True,
                       cwd=ROOT, timeout=600)
    if not check(name + ": report", p.returncode == 0, p.stderr.decode()[-300:]):
        return
    rows = csv_rows(td, a, b, list(args))
    url = "file://" + os.path.abspath(out)
    t0 = time.time()
    rc, d = dom(browser, url)
    took = time.time() - t0
    loaded = check(name + ": loaded in chromium, charts drawn", rc == 0 and d.charts,
                   "exit %d" % rc)
    check(name + ": both charts", d.charts == 2, "%d charts" % d.charts)
    want = {"duration": chart_rows(td, a, b, "abs_diff_duration"),
            "counts": chart_rows(td, a, b, "abs_diff_counts")}
    check(name + ": one bar group per chart row", d.groups == want, "%s != %s" % (d.groups, want))
    check(name + ": every row, in name order", d.names == [shown(r[0]) for r in rows],
          "%d rows shown, %d in the CSV" % (len(d.names), len(rows)))
    check(name + ": row count shown", d.count == "%d rows" % len(rows), repr(d.count))
    for col, direction, index in sorts:
        rc, d = dom(browser, url + "#sort=%s&dir=%s" % (col, direction))
        key = (lambda r: r[0]) if index == 0 else (lambda r: float(r[index]))
        order = sorted(rows, key=lambda r: r[0])  # ties: by name, ascending either way
        order = sorted(order, key=key, reverse=direction == "desc")
        check("%s: #sort=%s&dir=%s orders the rows" % (name, col, direction),
              d.names == [shown(r[0]) for r in order],
              "first %s, want %s" % (d.names[:2], [r[0] for r in order[:2]]))
        check("%s: #sort=%s: the header says so" % (name, col),
              d.sorted.get(col) == ("descending" if direction == "desc" else "ascending"),
              str(d.sorted.get(col)))
    if shot_dir:
        png = os.path.join(shot_dir, name + ".png")
        rc, _ = browse(browser, url, size=(1400, 2000), shot=png)
        ok = rc == 0 and os.path.exists(png)
        if ok:
            with open(png, "rb") as f:
                head = f.read(24)
            ok = head[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", head[16:24]) == (
                1400, 2000)
        check(name + ": screenshot " + png, ok)
    return took if loaded else None


LAYOUT_PROBE = r"""<script>
(function(){
  var W = window.innerWidth, out = {W: W, verdicts: 0, outside: [], charts: []};
  var cells = document.querySelectorAll('#td-tbody .tr>div:last-child');
  for (var i = 0; i < cells.length && i < 40; i++) {
    var r = cells[i].getBoundingClientRect();
    out.verdicts++;
    if (r.right > W + 0.5 || r.left < 0) out.outside.push(cells[i].textContent);
  }
  var figs = document.querySelectorAll('#charts figure');
  for (var k = 0; k < figs.length; k++) {
    var f = figs[k], svg = f.querySelector('svg'), cs = getComputedStyle(f);
    var inner = f.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    out.charts.push(svg.getBoundingClientRect().width / inner);
  }
  document.body.setAttribute('data-geom', JSON.stringify(out));
})();
</script>"""


def check_layout(td, browser, tmp):
    """The report with --stats (per call: the widest table) of the bert pair
    at 1400 px: every verdict cell inside the viewport (the table scrolls
    inside its card, the verdict column stays at its right edge) and each
    chart at least 90% of its card's width. Measured by a script added to a
    copy of the report, which writes what it measured on <body>."""
    T = "tests/golden/traces/"
    out = os.path.join(tmp, "layout.html")
    p = subprocess.run([td, "report", T + "tracelens-bert_h100", T + "tracelens-bert_mi300",
                        "--stats", "-q", "-o", out], capture_output=True, cwd=ROOT, timeout=600)
    if not check("layout: report --stats", p.returncode == 0, p.stderr.decode()[-300:]):
        return
    page = open(out, encoding="utf-8").read()
    at = page.rindex("</body>")
    probe = os.path.join(tmp, "layout_probe.html")
    with open(probe, "w", encoding="utf-8") as f:
        f.write(page[:at] + LAYOUT_PROBE + page[at:])
    rc, dumped = browse(browser, "file://" + probe, size=(1400, 2000))
    m = re.search(r'data-geom="([^"]*)"', dumped)
    if not check("layout: measured at 1400 px", rc == 0 and m is not None, "exit %d" % rc):
        return
    import html as h
    geom = json.loads(h.unescape(m.group(1)))
    check("layout: the window is 1400 px", geom["W"] == 1400, str(geom["W"]))
    check("layout: verdict cells measured", geom["verdicts"] >= 20, str(geom["verdicts"]))
    check("layout: every verdict cell inside the viewport", not geom["outside"],
          "%d outside: %r" % (len(geom["outside"]), geom["outside"][:3]))
    check("layout: two charts", len(geom["charts"]) == 2, str(geom["charts"]))
    check("layout: charts at least 90% of their card's width",
          all(r >= 0.9 for r in geom["charts"]), str(geom["charts"]))


TOC_PROBE = r"""<script>
(function(){
  var out = {W: window.innerWidth, H: window.innerHeight, links: [], heads: [], legends: [],
             units: []};
  var toc = document.getElementById('toc');
  var as = toc ? toc.querySelectorAll('a') : [];
  for (var i = 0; i < as.length; i++)
    out.links.push([as[i].textContent, as[i].getAttribute('href')]);
  var hs = document.querySelectorAll('main h2');
  for (var k = 0; k < hs.length; k++) out.heads.push([hs[k].textContent, hs[k].id]);
  var svgs = document.querySelectorAll('svg.td-chart');
  for (var s = 0; s < svgs.length; s++) {
    var sw = svgs[s].querySelectorAll('rect[width="12"][height="12"]'), l = [];
    for (var j = 0; j < sw.length; j++) l.push(sw[j].nextElementSibling.textContent);
    out.legends.push(l);
  }
  var th = document.querySelectorAll('#td-table .th>div');
  for (var c = 0; c < th.length; c++) out.units.push(th[c].textContent);
  window.scrollTo(0, document.documentElement.scrollHeight);
  out.scrolled = window.scrollY;
  var r = toc ? toc.getBoundingClientRect() : {top: -1, bottom: -1, height: 0};
  out.toc = [r.top, r.bottom, r.height];
  document.body.setAttribute('data-geom', JSON.stringify(out));
})();
</script>"""


FLAME_PROBE = r"""<script>
(function(){
  var svg = document.getElementById('td-flame-svg'), out = {};
  function info(g) {
    var r = g.querySelector('rect');
    return {i: +g.getAttribute('data-i'), x: +r.getAttribute('x'), y: +r.getAttribute('y'),
            w: +r.getAttribute('width'), cls: g.getAttribute('class'),
            name: g.querySelector('title').textContent.split('\n')[0]};
  }
  function frames() { return Array.prototype.map.call(svg.querySelectorAll('g.frame'), info); }
  function sum() {
    var s = document.getElementById('td-flame-sum');
    return {control: +s.getAttribute('data-control'), test: +s.getAttribute('data-test'),
            text: s.textContent};
  }
  out.before = frames();
  var target = null;
  out.before.forEach(function (f) {
    if (f.w < 600 && (!target || f.w > target.w)) target = f;
  });
  out.target = target;
  if (target) {
    var g = svg.querySelector('g.frame[data-i="' + target.i + '"] rect');
    g.dispatchEvent(new MouseEvent('click', {bubbles: true}));
    out.zoom = +svg.getAttribute('data-zoom');
    out.zoomed = frames();
    out.path = document.getElementById('td-flame-path').textContent;
  }
  var box = document.getElementById('td-flame-q');
  box.value = QUERY;
  box.dispatchEvent(new Event('input', {bubbles: true}));
  out.sum = sum();
  out.searched = frames();
  document.getElementById('td-flame-reset').click();
  out.reset = frames();
  out.reset_zoom = +svg.getAttribute('data-zoom');
  out.reset_box = box.value;
  out.reset_sum = sum();
  document.body.setAttribute('data-flame', JSON.stringify(out));
})();
</script>"""


def probe(browser, tmp, out, script, size):
    """The JSON a probe script wrote on <body>, run on a copy of the report."""
    page = open(out, encoding="utf-8").read()
    at = page.rindex("</body>")
    copy = out + ".probe.html"
    with open(copy, "w", encoding="utf-8") as f:
        f.write(page[:at] + script + page[at:])
    rc, dumped = browse(browser, "file://" + copy, size=size)
    m = re.search(r'data-geom="([^"]*)"', dumped)
    if rc != 0 or m is None:
        return None
    import html as h
    return json.loads(h.unescape(m.group(1)))


def check_toc_legends(td, browser, tmp):
    """At 1400 px: the table of contents lists every section heading (those
    of other files included) and stays at the top of the window after the
    page is scrolled to its end; the charts' legends say the sides' labels
    (the sets' names by default, else --control-label/--test-label); with
    --stats the interval's columns are in the unit of the change beside
    them (percent)."""
    T = "tests/golden/traces/"
    a, b = T + "kineto-resnet50_workers0", T + "kineto-resnet50_workers4"
    sel = ["--control-iteration", "all", "--test-iteration", "all"]
    for tag, labels, want in (("default labels", [], ["kineto-resnet50_workers0",
                                                      "kineto-resnet50_workers4"]),
                              ("given labels", ["--control-label", "w0 <a>", "--test-label",
                                                "w4 & co"], ["w0 <a>", "w4 & co"])):
        out = os.path.join(tmp, "toc%d.html" % len(labels))
        p = subprocess.run([td, "report", a, b, "--stats", "-q", "-o", out] + sel + labels,
                           capture_output=True, cwd=ROOT, timeout=600)
        if not check("toc %s: report" % tag, p.returncode == 0, p.stderr.decode()[-300:]):
            continue
        g = probe(browser, tmp, out, TOC_PROBE, (1400, 900))
        if not check("toc %s: measured at 1400 px" % tag, g is not None):
            continue
        heads = [h for h, _ in g["heads"]]
        check("toc %s: one link per section heading" % tag,
              len(g["links"]) == len(heads) >= 5 and
              [h for _, h in g["links"]] == ["#" + i for _, i in g["heads"]] and
              all(h.startswith(l) for (l, _), h in zip(g["links"], heads)),
              "%r vs %r" % (g["links"], g["heads"]))
        check("toc %s: the page scrolled" % tag, g["scrolled"] > 2 * g["H"], str(g["scrolled"]))
        top, bottom, height = g["toc"]
        check("toc %s: stays visible at the top after scrolling" % tag,
              height > 10 and abs(top) < 1 and bottom <= g["H"], str(g["toc"]))
        legend = want + ["difference (%s \u2212 %s)" % (want[1], want[0])]
        check("toc %s: legends say the labels" % tag,
              len(g["legends"]) == 2 and all(l == legend for l in g["legends"]),
              "%r, want %r" % (g["legends"], legend))
        u = g["units"]
        k = next((i for i, x in enumerate(u) if x.startswith("change")), -1)
        check("toc %s: interval in the unit of the change" % tag,
              k > 0 and u[k:k + 3] == ["change_%", "ci_low_%", "ci_high_%"], repr(u))


def folded_sums(td, a, b, args, query):
    """Per side: the total of the folded lines whose stack holds a frame
    containing query (any case), and how many lines that is."""
    tmp = tempfile.mkdtemp(prefix="td-folded-")
    try:
        outs = [os.path.join(tmp, "c.folded"), os.path.join(tmp, "t.folded")]
        p = subprocess.run([td, "compare", a, b, "--format", "folded", "-q", "-o",
                            ",".join(outs)] + list(args), capture_output=True, cwd=ROOT,
                           timeout=600)
        if p.returncode != 0:
            return None
        res = []
        for path in outs:
            total, lines = 0, 0
            with open(path, encoding="utf-8") as f:
                for line in f:
                    stack, value = line.rstrip("\n").rsplit(" ", 1)
                    if any(query.lower() in fr.lower() for fr in stack.split(";")):
                        total += int(value)
                        lines += 1
            res.append((total, lines))
        return res
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_flame(td, browser, tmp, a, b, args, query):
    """The report's "Where, by stack": a click on the widest frame under
    half the width zooms to it (it spans the width, its ancestors too, the frames
    under it keep their proportions, nothing else is drawn); the search box
    marks exactly the frames whose name holds the text (any case) and sums
    the time of the stacks that hold one, which is the folded files' total
    of those stacks (each folded value is rounded to a whole us: within half
    a us per stack); reset brings back the whole graph and clears the search."""
    name = "flame " + os.path.basename(a)
    out = os.path.join(tmp, "flame.html")
    p = subprocess.run([td, "report", a, b, "-q", "-o", out] + list(args), capture_output=True,
                       cwd=ROOT, timeout=600)
    if not check(name + ": report", p.returncode == 0, p.stderr.decode()[-300:]):
        return
    page = open(out, encoding="utf-8").read()
    check(name + ": the section is there", 'id="td-flame-data"' in page and 'id="flame"' in page)
    at = page.rindex("</body>")
    probe = os.path.join(tmp, "flame_probe.html")
    with open(probe, "w", encoding="utf-8") as f:
        f.write(page[:at] + FLAME_PROBE.replace("QUERY", json.dumps(query)) + page[at:])
    rc, dumped = browse(browser, "file://" + probe, size=(1400, 2000))
    m = re.search(r'data-flame="([^"]*)"', dumped)
    if not check(name + ": probed", rc == 0 and m is not None, "exit %d" % rc):
        return
    import html as h
    r = json.loads(h.unescape(m.group(1)))
    W, eps = 1200.0, 0.02
    before = {f["i"]: f for f in r["before"]}
    check(name + ": the whole graph drawn", len(before) > 10 and before.get(0, {}).get("w") == W,
          "%d frames" % len(before))
    t = r["target"]
    if check(name + ": a frame to zoom to", t is not None):
        z = {f["i"]: f for f in r["zoomed"]}
        zf = z.get(t["i"])
        check(name + ": zoom: data-zoom is the frame", r["zoom"] == t["i"], str(r["zoom"]))
        check(name + ": zoom: the frame spans the width",
              zf is not None and zf["x"] == 0 and zf["w"] == W and "zoomed" in zf["cls"], str(zf))
        anc = [f for f in r["zoomed"] if f["y"] < t["y"]]
        check(name + ": zoom: one ancestor per row above, full width",
              len(anc) == t["y"] // 16 and all(f["w"] == W and "ancestor" in f["cls"] for f in anc),
              str(anc[:3]))
        s = W / t["w"]
        bad = []
        for f in r["zoomed"]:
            if f["y"] <= t["y"]:
                continue
            b0 = before.get(f["i"])
            if b0 is None:  # narrower than 0.1 px before the zoom
                if f["w"] / s > 0.1 + eps:
                    bad.append(f)
                continue
            tol = eps * s + eps
            if (abs(f["w"] - b0["w"] * s) > tol or abs(f["x"] - (b0["x"] - t["x"]) * s) > tol
                    or f["x"] < -eps or f["x"] + f["w"] > W + tol or b0["x"] < t["x"] - eps or
                    b0["x"] + b0["w"] > t["x"] + t["w"] + eps):
                bad.append(f)
        below = [f for f in r["zoomed"] if f["y"] > t["y"]]
        check(name + ": zoom: the frames below keep their proportions, inside the frame",
              below and not bad, "%d of %d off: %s" % (len(bad), len(below), bad[:2]))
        check(name + ": zoom: the path names the frame", r["path"].endswith(t["name"]),
              repr(r["path"][-80:]))
    q = query.lower()
    wrong = [f for f in r["searched"] if (q in f["name"].lower() and f["i"] != 0) !=
             ("match" in f["cls"].split())]
    check(name + ": search marks exactly the matching frames",
          not wrong and any("match" in f["cls"].split() for f in r["searched"]), str(wrong[:3]))
    sums = folded_sums(td, a, b, args, query)
    if check(name + ": folded files", sums is not None):
        for side, key in ((0, "control"), (1, "test")):
            total, lines = sums[side]
            got = r["sum"][key]
            check("%s: search sum (%s) = the folded total of the matching stacks" % (name, key),
                  lines > 0 and abs(got - total) <= 0.5 * lines + 1e-6,
                  "%s vs %d over %d stacks" % (got, total, lines))
        check(name + ": the sum is shown", r["sum"]["text"].startswith("matches:"),
              repr(r["sum"]["text"]))
    check(name + ": reset: the whole graph again",
          r["reset"] == [dict(f, cls=f["cls"].replace(" match", "")) for f in r["before"]]
          and r["reset_zoom"] == 0, "%d frames, zoom %s" % (len(r["reset"]), r["reset_zoom"]))
    check(name + ": reset: the search cleared",
          r["reset_box"] == "" and r["reset_sum"]["text"] == "" and
          not any("match" in f["cls"].split() for f in r["reset"]), repr(r["reset_sum"]))


# speedscope from the npm registry, pinned; installed once into a cache the
# runs share (TD_NPM_CACHE, default build/npm-cache).
SPEEDSCOPE = "1.25.0"

SPEEDSCOPE_PROBE = r"""(function () {
  var orig = window.URL.createObjectURL;
  window.URL.createObjectURL = function (b) {
    b.text().then(function (t) { document.body.setAttribute('data-export', t); });
    return orig.call(window.URL, b);
  };
  speedscope.loadFileFromBase64(NAME, B64);
  var tries = 0;
  (function poll() {
    if (document.body.hasAttribute('data-export') || tries++ > 300) return;
    window.dispatchEvent(new KeyboardEvent('keydown', {key: 's', ctrlKey: true, bubbles: true}));
    setTimeout(poll, 100);
  })();
})();
"""


def speedscope_page():
    """speedscope's index.html from the cache, installed with npm when
    missing; None (and why) when npm or the registry cannot be reached."""
    cache = os.environ.get("TD_NPM_CACHE") or os.path.join(ROOT, "build", "npm-cache")
    pkg = os.path.join(cache, "node_modules", "speedscope")
    page = os.path.join(pkg, "dist", "release", "index.html")
    try:
        with open(os.path.join(pkg, "package.json"), encoding="utf-8") as f:
            have = json.load(f).get("version")
    except (OSError, ValueError):
        have = None
    if have == SPEEDSCOPE and os.path.exists(page):
        return page, ""
    if not shutil.which("npm"):
        return None, "npm is not installed"
    os.makedirs(cache, exist_ok=True)
    try:
        p = subprocess.run(["npm", "install", "--prefix", cache, "--no-audit", "--no-fund",
                            "--no-save", "speedscope@" + SPEEDSCOPE], capture_output=True,
                           timeout=300)
    except subprocess.TimeoutExpired:
        return None, "npm install timed out"
    if p.returncode != 0 or not os.path.exists(page):
        return None, "npm install speedscope@%s failed: %s" % (
            SPEEDSCOPE, p.stderr.decode("utf-8", "replace").strip()[-200:])
    return page, ""


def check_speedscope(td, browser, tmp, a, b):
    """speedscope (the web app, from npm) imports the folded files of both
    sides: loaded in headless Chromium as its own command line loads a file
    (#localProfilePath), then exported (Ctrl+S, caught in the page), its
    profile holds our stacks, each once, with our values: the same frames,
    the same number of stacks, the same total weight."""
    page, why = speedscope_page()
    if page is None:
        print("skip: speedscope import: %s" % why)
        return
    outs = [os.path.join(tmp, "control.folded"), os.path.join(tmp, "test.folded")]
    p = subprocess.run([td, "compare", a, b, "--format", "folded", "-q", "-o", ",".join(outs)],
                       capture_output=True, cwd=ROOT, timeout=600)
    if not check("speedscope: folded files", p.returncode == 0, p.stderr.decode()[-300:]):
        return
    for path in outs:
        name = "speedscope %s: %s" % (SPEEDSCOPE, os.path.basename(path))
        data = open(path, "rb").read()
        ours = {}
        for line in data.decode("utf-8").splitlines():
            stack, value = line.rsplit(" ", 1)
            ours[stack] = int(value)
        js = os.path.join(tmp, os.path.basename(path) + ".js")
        with open(js, "w", encoding="utf-8") as f:
            f.write(SPEEDSCOPE_PROBE.replace("NAME", json.dumps(os.path.basename(path))).replace(
                "B64", json.dumps(base64.b64encode(data).decode())))
        rc, dumped = browse(browser, "file://" + page + "#localProfilePath=" + js,
                            until=("document.body.hasAttribute('data-export')", 60))
        m = re.search(r'data-export="([^"]*)"', dumped)
        if not check(name + ": imported and exported", rc == 0 and m is not None,
                     "exit %d" % rc):
            continue
        import html as h
        doc = json.loads(h.unescape(m.group(1)))
        frames = [fr["name"] for fr in doc["shared"]["frames"]]
        prof = doc["profiles"][0] if doc.get("profiles") else {}
        theirs = speedscope_stacks(prof, frames)
        # speedscope keeps no stack of weight 0 (a stack under half a us)
        kept = {st: v for st, v in ours.items() if v > 0}
        our_frames = {fr for st in kept for fr in st.split(";")}
        check(name + ": one profile", len(doc.get("profiles", [])) == 1)
        check(name + ": the same frames (%d)" % len(our_frames), set(frames) == our_frames,
              "%d vs %d" % (len(set(frames)), len(our_frames)))
        check(name + ": the same stacks, each with our value (%d)" % len(kept), theirs == kept,
              "%d vs %d stacks" % (len(theirs), len(kept)))
        total = prof.get("endValue", 0) - prof.get("startValue", 0)
        check(name + ": the same total weight (%d us)" % sum(ours.values()),
              total == sum(ours.values()) and ours, "%s vs %s" % (total, sum(ours.values())))


def speedscope_stacks(prof, frames):
    """A speedscope profile's time per whole stack ("a;b;c": the time with
    exactly that stack open), for its sampled and its evented kinds."""
    out = {}
    if prof.get("type") == "sampled":
        for sample, weight in zip(prof.get("samples", []), prof.get("weights", [])):
            key = ";".join(frames[i] for i in sample)
            out[key] = out.get(key, 0) + weight
        return out
    stack, last = [], prof.get("startValue", 0)
    for ev in prof.get("events", []):
        if stack and ev["at"] > last:
            key = ";".join(frames[i] for i in stack)
            out[key] = out.get(key, 0) + ev["at"] - last
        last = ev["at"]
        if ev["type"] == "O":
            stack.append(ev["frame"])
        elif stack:
            stack.pop()
    return out


def big_set(tmp, n):
    """Two sets of n names each (most on both sides), for a report of n+ rows."""
    for side, shift in (("big_c", 0), ("big_t", n // 10)):
        ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0,
               "dur": 10 ** 9, "pid": 1, "tid": 1}]
        for i in range(shift, n + shift):
            ev.append({"ph": "X", "cat": "cpu_op", "name": "op_%06d<T & \"q\">" % i,
                       "ts": 10 + i, "dur": 1 + (i * 7919) % 1000, "pid": 1, "tid": 1})
        os.makedirs(os.path.join(tmp, side))
        with gzip.open(os.path.join(tmp, side, "r.json.gz"), "wt") as f:
            json.dump({"traceEvents": ev}, f)
    return os.path.join(tmp, "big_c"), os.path.join(tmp, "big_t")


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    td = os.path.abspath(sys.argv[1])
    shot_dir = os.path.join(ROOT, "build", "browser")
    if "--out" in sys.argv:
        shot_dir = os.path.abspath(sys.argv[sys.argv.index("--out") + 1])
    os.makedirs(shot_dir, exist_ok=True)
    exe = chromium()
    if not check("chromium present", exe is not None, "apt-get install chromium failed"):
        print("browser: %d passed, %d failed" % (passed, failed))
        return 1
    # Every wait for Chromium ends by this deadline (TD_BROWSER_TIMEOUT s
    # after the start, default 900): the run cannot hang on it.
    deadline = time.monotonic() + float(os.environ.get("TD_BROWSER_TIMEOUT") or 900)
    browser = Chromium(exe, deadline)
    tmp = tempfile.mkdtemp(prefix="td-browser-")
    T = "tests/golden/traces/"
    try:
        try:
            version = browser.call("Browser.getVersion", timeout=180).get("product", "")
        except BrowserError as e:
            version = browser.gone = str(e)  # the checks after it fail at once
        check("chromium answers over --remote-debugging-pipe", version.startswith(
            ("Chrome/", "HeadlessChrome/")), version)
        sorts = [("diff_duration", "desc", 6), ("diff_duration", "asc", 6),
                 ("control_counts", "desc", 1), ("name", "desc", 0)]
        check_report(td, browser, tmp, "examples", "examples/control", "examples/test",
                     shot_dir=shot_dir, sorts=sorts)
        check_report(td, browser, tmp, "hta-trace_diff", T + "hta-trace_diff/control",
                     T + "hta-trace_diff/test", ["--short-names"], shot_dir=shot_dir,
                     sorts=[("test_total_duration", "desc", 4)])
        check_report(td, browser, tmp, "bert", T + "tracelens-bert_h100",
                     T + "tracelens-bert_mi300", ["--control-label", "h100", "--test-label",
                                                  "mi300"], shot_dir=shot_dir,
                     sorts=[("diff_counts", "asc", 5)])
        # The filter, from the URL as from the text box.
        out = os.path.join(tmp, "examples.html")
        rc, d = dom(browser, "file://" + out + "#q=ATEN::")
        want = [r[0] for r in csv_rows(td, "examples/control", "examples/test", [])
                if "aten::" in r[0].lower()]
        check("#q= filters the rows (case-insensitive)", d.names == want and want,
              "%d shown, want %d" % (len(d.names), len(want)))
        check("#q=: count says so", d.count == "%d of 432 rows" % len(want), repr(d.count))
        check_hostile(td, browser, tmp)
        check_layout(td, browser, tmp)
        check_toc_legends(td, browser, tmp)
        check_flame(td, browser, tmp, T + "tracelens-bert_h100", T + "tracelens-bert_mi300",
                    [], "ATTENTION")
        check_speedscope(td, browser, tmp, T + "tracelens-falconsai_h100",
                         T + "tracelens-falconsai_mi300")
        a, b = big_set(tmp, 20000)
        took = check_report(td, browser, tmp, "20k-rows", a, b, sorts=[("diff_duration", "desc", 6)])
        if took is not None:
            print("20,000-row report rendered and dumped in %.1f s" % took)
    finally:
        status = browser.close()
        shutil.rmtree(tmp, ignore_errors=True)
    check("chromium closed (Browser.close)", status == 0, "exit status %s" % status)
    print("screenshots in " + os.path.relpath(shot_dir, ROOT))
    print("browser: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
