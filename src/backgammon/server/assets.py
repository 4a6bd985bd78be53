"""The static UI's files as the server sends them: content-hashed URLs, long-lived caching, gzip.

The files in ``static/`` are served as they are written, with one change made in memory: every
reference from a page or a module to another static file gets that file's version, a hash of its
content, as a query (``/static/app.js?v=1a2b3c4d5e6f``):

- in HTML, ``src="/static/NAME"`` and ``href="/static/NAME"`` (not links to other pages);
- in JavaScript, the module specifiers ``from "./NAME"``, ``import "./NAME"`` and ``import("./NAME")``.

A file's version covers the versions it refers to (``app.js`` changes when ``board.js`` does), so a
page never loads an old module through a cached new one; files that import each other in a cycle
all get one version, of the whole folder. A request whose ``v`` is the file's current version gets
``Cache-Control: public, max-age=31536000, immutable``; any other request (no ``v``, an old one,
a page) gets ``no-cache`` with an ``ETag``, so nothing stale is ever used. Text files are kept
gzipped as well (level 9, made once) and sent so to a client that accepts gzip.

The folder is read again when a file in it changes (its size or modification time; looked at
once a second at most), so an edited file is served under a new version without a restart.
"""

from __future__ import annotations

import gzip
import hashlib
import math
import mimetypes
import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from graphlib import CycleError, TopologicalSorter
from pathlib import Path, PurePosixPath

from starlette.requests import Request
from starlette.responses import Response

STATIC_DIR = Path(__file__).parent / "static"
PREFIX = "/static/"
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
VERSION_LENGTH = 12  # hex digits of the SHA-256 of the content
COMPRESSIBLE = ("text/", "application/javascript", "application/json", "image/svg+xml")

_HTML_REF = re.compile(r"""(?P<head>\b(?:src|href)\s*=\s*)(?P<q>["'])(?P<url>/static/[^"'?#\s]+)(?P=q)""")
_JS_REF = re.compile(
    r"""(?P<head>\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(?P<q>["'])(?P<url>\.{1,2}/[^"'?#\s]+)(?P=q)"""
)


@dataclass(frozen=True, slots=True)
class Asset:
    """One static file as served: its content (references versioned), gzipped form and version."""

    body: bytes
    gzipped: bytes | None  # None when not worth it (not text, or no smaller)
    version: str
    media_type: str


def _media_type(name: str) -> str:
    kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
    if name.endswith(".js"):
        kind = "text/javascript"
    if kind.startswith("text/"):
        kind += "; charset=utf-8"
    return kind


def _pattern_for(name: str) -> re.Pattern[str] | None:
    if name.endswith(".html"):
        return _HTML_REF
    if name.endswith(".js"):
        return _JS_REF
    return None


def _target(name: str, url: str) -> str | None:
    """The static file (its name under the folder) that ``url``, written in file ``name``, means."""
    if url.startswith(PREFIX):
        return url[len(PREFIX) :]
    parts: list[str] = []
    for part in (*PurePosixPath(name).parent.parts, *PurePosixPath(url).parts):
        if part == "..":
            if not parts:
                return None
            parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


def _rewrite(name: str, text: str, version_of: Callable[[str], str | None]) -> str:
    """``text`` of file ``name`` with each reference to a static file followed by ``?v=<version>``."""
    pattern = _pattern_for(name)
    if pattern is None:
        return text

    def versioned(m: re.Match[str]) -> str:
        target = _target(name, m["url"])
        version = version_of(target) if target is not None and not target.endswith(".html") else None
        if version is None:
            return m[0]
        return f"{m['head']}{m['q']}{m['url']}?v={version}{m['q']}"

    return pattern.sub(versioned, text)


def _references(name: str, text: str, names: Mapping[str, object]) -> set[str]:
    pattern = _pattern_for(name)
    if pattern is None:
        return set()
    found = {_target(name, m["url"]) for m in pattern.finditer(text)}
    return {t for t in found if t is not None and t in names and t != name and not t.endswith(".html")}


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    return h.hexdigest()[:VERSION_LENGTH]


def build(raw: Mapping[str, bytes]) -> dict[str, Asset]:
    """The served form of every file of a folder (``raw``: name under the folder to content)."""
    texts = {n: b.decode("utf-8") for n, b in raw.items() if _pattern_for(n) is not None}
    deps = {n: _references(n, t, raw) for n, t in texts.items()}
    try:
        order = list(TopologicalSorter({n: deps.get(n, set()) for n in raw}).static_order())
        shared = None
    except CycleError:  # modules importing each other: one version for the whole folder
        order = sorted(raw)
        shared = _digest(*(part for n in order for part in (n.encode(), raw[n])))
    versions: dict[str, str] = {}
    assets: dict[str, Asset] = {}
    for n in order:
        body = raw[n]
        if n in texts:
            body = _rewrite(n, texts[n], lambda t: versions.get(t) or shared).encode("utf-8")
        versions[n] = shared or _digest(body)
        media_type = _media_type(n)
        packed = None
        if media_type.startswith(COMPRESSIBLE):
            packed = gzip.compress(body, compresslevel=9, mtime=0)
            if len(packed) >= len(body):
                packed = None
        assets[n] = Asset(body, packed, versions[n], media_type)
    return assets


class StaticAssets:
    """A folder of static files, served with versioned references (see the module's text)."""

    def __init__(self, directory: Path = STATIC_DIR, recheck: float = 1.0) -> None:
        self.directory = directory
        self.recheck = recheck  # seconds between looks at the files' sizes and times (a look: about 1 ms)
        self._checked = -math.inf
        self._stamp: tuple[tuple[str, int, int], ...] | None = None
        self._assets: dict[str, Asset] = {}
        self._lock = threading.Lock()

    def _scan(self) -> tuple[tuple[str, int, int], ...]:
        found = []
        for folder, dirs, files in os.walk(self.directory):
            dirs.sort()
            for f in sorted(files):
                path = Path(folder, f)
                st = path.stat()
                found.append((path.relative_to(self.directory).as_posix(), st.st_mtime_ns, st.st_size))
        return tuple(found)

    def assets(self) -> dict[str, Asset]:
        """Every file's served form, read again if a file changed (looked at once a ``recheck``)."""
        now = time.monotonic()
        if now - self._checked < self.recheck:
            return self._assets
        self._checked = now
        stamp = self._scan()
        if stamp != self._stamp:
            with self._lock:
                if stamp != self._stamp:
                    raw = {name: (self.directory / name).read_bytes() for name, _, _ in stamp}
                    self._assets, self._stamp = build(raw), stamp
        return self._assets

    def version(self, name: str) -> str:
        """The current version of file ``name`` (KeyError for no such file)."""
        return self.assets()[name].version

    def url(self, name: str) -> str:
        """The versioned URL of file ``name``: what the pages refer to."""
        return f"{PREFIX}{name}?v={self.version(name)}"

    def response(self, name: str, request: Request, *, page: bool = False) -> Response:
        """File ``name`` as the answer to ``request`` (``page``: an HTML page, never kept long).

        Raises:
            LookupError: for no such file (404).
        """
        asset = self.assets().get(name)
        if asset is None:
            raise LookupError(f"no static file {name[:80]!r}")
        lasting = not page and not name.endswith(".html") and request.query_params.get("v") == asset.version
        packed = asset.gzipped is not None and "gzip" in request.headers.get("accept-encoding", "").lower()
        etag = f'"{asset.version}{"-gzip" if packed else ""}"'
        headers = {"Cache-Control": IMMUTABLE if lasting else REVALIDATE, "ETag": etag}
        if asset.gzipped is not None:
            headers["Vary"] = "Accept-Encoding"
        if not lasting and etag in _tags(request.headers.get("if-none-match", "")):
            return Response(status_code=304, headers=headers)
        body = asset.body
        if packed:
            assert asset.gzipped is not None
            body = asset.gzipped
            headers["Content-Encoding"] = "gzip"  # the gzip middleware leaves it as it is
        return Response(body, headers=headers, media_type=asset.media_type)


def _tags(header: str) -> set[str]:
    return {t.strip().removeprefix("W/") for t in header.split(",") if t.strip()}


ASSETS = StaticAssets()
"""The server's static folder (one reader for the routes of every page and of ``/static``)."""
