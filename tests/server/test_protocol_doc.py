"""docs/web-protocol.md names every route, every socket message type and every action kind the
server knows, so the documented protocol and the implemented one cannot drift apart silently."""

from __future__ import annotations

import re
from pathlib import Path

from backgammon.server import protocol
from backgammon.server.chouette_tables import KINDS as CHOUETTE_KINDS

DOC = (Path(__file__).resolve().parents[2] / "docs" / "web-protocol.md").read_text()


def _paths(routes):
    for route in routes:
        if hasattr(route, "path"):
            yield route.path
        else:  # a router included in the app (FastAPI keeps it whole)
            inner = getattr(route, "original_router", None) or getattr(route, "router", None)
            yield from _paths(getattr(inner, "routes", ()))


def _routes(app) -> set[str]:
    return {
        path.replace("{rest:path}", "{rest}")
        for path in _paths(app.routes)
        if path.startswith(("/api/", "/ws/", "/study"))
    }


def test_every_route_is_documented(client):
    routes = _routes(client.app)
    assert len(routes) > 30
    missing = sorted(r for r in routes if f"`{r}`" not in DOC and not re.search(rf"\b\w+ {re.escape(r)}`", DOC))
    assert not missing, f"undocumented routes: {missing}"


def test_every_message_type_and_action_kind_is_documented():
    for kind in protocol.CLIENT_MESSAGES:
        assert f"| `{kind}` |" in DOC, kind
    for kind in protocol.SERVER_MESSAGES:
        assert f"| `{kind}` |" in DOC, kind
    for kind in (*protocol.CLIENT_KINDS, *CHOUETTE_KINDS):
        assert f"`{kind}`" in DOC, kind
    for field in protocol.ActionMessage.model_fields:
        assert f"`{field}`" in DOC, field
