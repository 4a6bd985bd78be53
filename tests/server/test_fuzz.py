"""Random client input never crashes the server: only 2xx/4xx answers, and the game stays consistent."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .conftest import receive, table_socket
from .test_api import H, human_table, state

_TABLES: list[tuple[object, tuple[str, str, str]]] = []


def _table(client) -> tuple[str, str, str]:
    """One table per test client (the client lives for all of a test's examples)."""
    for known, table in _TABLES:
        if known is client:
            return table
    _TABLES.append((client, human_table(client)))
    return _TABLES[-1][1]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-30, 30) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=12,
)
actions = st.fixed_dictionaries(
    {"action": st.sampled_from(["roll", "move", "double", "take", "pass", "resign", "offer_draw", "x", 3, None])},
    optional={"steps": json_values, "play": json_values, "level": json_values, "version": json_values},
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=actions | json_values, seat=st.sampled_from(["white", "black", "none"]))
def test_random_actions(client, doc, seat):
    tid, w, b = _table(client)
    token = {"white": w, "black": b, "none": "nobody"}[seat]
    before = state(client, tid)
    r = client.post(f"/api/tables/{tid}/actions", json=doc, headers=H(token))
    assert r.status_code in (200, 400, 409, 422), r.text
    after = state(client, tid)
    if r.status_code != 200:
        assert after["version"] == before["version"] and after["game"] == before["game"]
    else:
        assert after["version"] >= before["version"] + 1


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=60) | st.binary(max_size=40).map(lambda b: b.decode("latin-1")))
def test_random_socket_text(client, text):
    tid, w, _b = _table(client)
    with table_socket(client, tid, w) as ws:
        first = receive(ws)  # (presence notices, batched, may come at any time: they are skipped)
        ws.send_text(text)
        reply = receive(ws)
        assert reply["type"] in ("error", "pong", "state", "event", "hint")
        if reply["type"] == "error":
            assert reply["status"] in (400, 409, 422)
            assert receive(ws)["state"]["version"] == first["state"]["version"]
