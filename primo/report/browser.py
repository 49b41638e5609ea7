"""Open a report in headless Chromium and check it the way a user would see it.

Drives Chromium through the DevTools protocol over ``--remote-debugging-pipe`` (JSON messages
separated by NUL bytes on file descriptors 3 and 4 of the browser process): no port to find or
race for, and no WebSocket client dependency. Used by the report tests and by
``reports/examples/make_examples.py`` for screenshots.

Example
-------
>>> with HeadlessChromium() as browser:            # doctest: +SKIP
...     page = browser.check("report.html", screenshot="report.png")
...     page.console_errors, page.requests, page.empty_figures
([], [], [])
"""
from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from primo.io import atomic_write_bytes

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
]

# Runs in the page after load: opens every <details> so collapsed figures get a layout, then
# measures each figure's SVG/canvas/img and counts its drawn elements.
_FIGURE_CHECK = r"""
(async () => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const out = [];
  for (const fig of document.querySelectorAll('figure')) {
    const name = fig.dataset.figure || '(unnamed)';
    const graphic = fig.querySelector('svg, canvas, img');
    if (!graphic) { out.push({name, width: 0, height: 0, drawn: 0, images_ok: true}); continue; }
    const box = graphic.getBoundingClientRect();
    let drawn = 0;
    for (const el of graphic.querySelectorAll('path, rect, line, circle, text, image, polygon, polyline')) {
      const b = el.getBoundingClientRect();
      if (b.width > 0 || b.height > 0) drawn += 1;
    }
    let images_ok = true;
    for (const img of graphic.querySelectorAll('image')) {
      const probe = new Image();
      probe.src = img.getAttribute('href');
      try { await probe.decode(); images_ok = images_ok && probe.naturalWidth > 0; }
      catch (e) { images_ok = false; }
    }
    out.push({name, width: box.width, height: box.height, drawn, images_ok});
  }
  return JSON.stringify({
    figures: out,
    scripts: document.querySelectorAll('script').length,
    handlers: [...document.querySelectorAll('*')].filter(
      el => [...el.attributes].some(a => a.name.toLowerCase().startsWith('on'))).length,
    title: document.title,
    text_length: document.body.innerText.length,
  });
})()
"""


class BrowserError(RuntimeError):
    """Chromium could not be started or did not answer in time."""


@dataclass
class PageCheck:
    """What a page did when loaded: console errors, requests, figures, and injected code.

    ``requests`` lists every URL the page asked for besides the document itself and inline
    ``data:`` images; ``empty_figures`` names figures with no size or nothing drawn.
    """

    url: str
    title: str
    console_errors: list[str]
    requests: list[str]
    figures: list[dict]
    scripts: int
    event_handlers: int
    text_length: int
    screenshot: Path | None = None
    events: list[dict] = field(default_factory=list, repr=False)

    @property
    def empty_figures(self) -> list[str]:
        return [f["name"] for f in self.figures
                if f["width"] <= 0 or f["height"] <= 0 or f["drawn"] == 0 or not f["images_ok"]]


def find_chromium() -> str:
    """Path of the Chromium binary (``$PRIMO_CHROMIUM``, else ``chromium``/``chromium-browser`` on PATH)."""
    candidates = [os.environ.get("PRIMO_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"]
    for candidate in filter(None, candidates):
        path = shutil.which(candidate)
        if path:
            return path
    raise BrowserError("Chromium not found: install Debian's 'chromium' package or set PRIMO_CHROMIUM")


class HeadlessChromium:
    """A headless Chromium process driven over the DevTools pipe; use as a context manager.

    Parameters
    ----------
    binary : Chromium executable (default: :func:`find_chromium`).
    timeout : seconds to wait for any answer or page load.
    width, height : viewport in CSS pixels.
    """

    def __init__(self, binary: str | None = None, *, timeout: float = 60.0, width: int = 1280, height: int = 900):
        self.binary = binary or find_chromium()
        self.timeout, self.width, self.height = timeout, width, height
        self._next_id = 0
        self._buffer = b""
        self._pending: list[dict] = []
        self.process = None

    # ------------------------------------------------------------------ process
    def __enter__(self) -> "HeadlessChromium":
        self._profile = tempfile.mkdtemp(prefix="primo-chromium-")
        to_browser_r, to_browser_w = os.pipe()
        from_browser_r, from_browser_w = os.pipe()
        # The browser expects the pipe on fds 3 (commands in) and 4 (messages out); move the child's
        # ends to free fds >= 10 first so that the dup2 below cannot clobber one with the other.
        high_r, high_w = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10), fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
        os.close(to_browser_r)
        os.close(from_browser_w)

        def child_fds():
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        command = [self.binary, *CHROMIUM_FLAGS, "--remote-debugging-pipe", f"--user-data-dir={self._profile}",
                   f"--window-size={self.width},{self.height}", "about:blank"]
        try:
            self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL, pass_fds=(3, 4), preexec_fn=child_fds)
        finally:
            os.close(high_r)
            os.close(high_w)
        self._write, self._read = to_browser_w, from_browser_r
        self.send("Target.setDiscoverTargets", {"discover": False})  # waits until the browser answers
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self.process is not None:
            try:
                self.send("Browser.close", timeout=5)
            except (BrowserError, OSError):
                pass
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            for fd in (self._write, self._read):
                try:
                    os.close(fd)
                except OSError:
                    pass
            self.process = None
        shutil.rmtree(getattr(self, "_profile", ""), ignore_errors=True)

    # ------------------------------------------------------------------ protocol
    def send(self, method: str, params: dict | None = None, *, session: str | None = None,
             timeout: float | None = None) -> dict:
        """Send one DevTools command and return its result (events that arrive meanwhile are kept)."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            reply = self._receive(deadline, f"answer to {method}")
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method} failed: {reply['error']}")
                return reply.get("result", {})
            self._pending.append(reply)

    def _receive(self, deadline: float, waiting_for: str) -> dict:
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise BrowserError(f"Chromium did not send the {waiting_for} in time")
            ready, _, _ = select.select([self._read], [], [], remaining)
            if ready:
                chunk = os.read(self._read, 1 << 20)
                if not chunk:
                    raise BrowserError(f"Chromium closed the DevTools pipe while waiting for the {waiting_for}")
                self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def _wait_for_event(self, method: str, session: str) -> None:
        deadline = time.monotonic() + self.timeout
        while not any(e.get("method") == method and e.get("sessionId") == session for e in self._pending):
            self._pending.append(self._receive(deadline, f"{method} event"))

    # ------------------------------------------------------------------ pages
    def check(self, path, *, screenshot=None, max_screenshot_height: int = 8000) -> PageCheck:
        """Load the HTML file ``path``, optionally save a full-page PNG, and check what it did.

        Parameters
        ----------
        path : local HTML file.
        screenshot : PNG path for a screenshot of the page as loaded (collapsed parts closed),
            at most ``max_screenshot_height`` pixels tall.
        """
        url = Path(path).resolve().as_uri()
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self._pending.clear()
        try:
            for domain in ("Page", "Runtime", "Log", "Network"):
                self.send(f"{domain}.enable", session=session)
            self.send("Emulation.setDeviceMetricsOverride", {"width": self.width, "height": self.height,
                                                            "deviceScaleFactor": 1, "mobile": False}, session=session)
            self.send("Page.navigate", {"url": url}, session=session)
            self._wait_for_event("Page.loadEventFired", session)
            shot = None
            if screenshot is not None:
                size = self.send("Page.getLayoutMetrics", session=session)["cssContentSize"]
                height = min(int(size["height"]) + 1, max_screenshot_height)
                data = self.send("Page.captureScreenshot", {
                    "format": "png", "captureBeyondViewport": True,
                    "clip": {"x": 0, "y": 0, "width": self.width, "height": height, "scale": 1}}, session=session)
                shot = atomic_write_bytes(screenshot, base64.b64decode(data["data"]))
            result = self.send("Runtime.evaluate", {"expression": _FIGURE_CHECK, "awaitPromise": True,
                                                    "returnByValue": True}, session=session)
            if "exceptionDetails" in result:
                raise BrowserError(f"the figure check failed in the page: {result['exceptionDetails']}")
            facts = json.loads(result["result"]["value"])
            self.send("Runtime.evaluate", {"expression": "0"}, session=session)  # flush late events
        finally:
            self.send("Target.closeTarget", {"targetId": target})
        events = [e for e in self._pending if e.get("sessionId") == session]
        return PageCheck(url=url, title=facts["title"], console_errors=_console_errors(events),
                         requests=_requests(events, url), figures=facts["figures"], scripts=facts["scripts"],
                         event_handlers=facts["handlers"], text_length=facts["text_length"], screenshot=shot,
                         events=events)


def _console_errors(events: list[dict]) -> list[str]:
    errors = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert", "warning"):
            errors.append(" ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
        elif method == "Runtime.exceptionThrown":
            errors.append(params.get("exceptionDetails", {}).get("text", "exception"))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") in ("error", "warning"):
            errors.append(params["entry"].get("text", ""))
    return errors


def _requests(events: list[dict], document_url: str) -> list[str]:
    urls = [e["params"]["request"]["url"] for e in events if e.get("method") == "Network.requestWillBeSent"]
    return [u for u in urls if u != document_url and not u.startswith("data:")]
