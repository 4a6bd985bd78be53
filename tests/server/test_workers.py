"""``serve --workers N``'s parent: which worker gets each connection (by the table in its request line)."""

from __future__ import annotations

import pytest

from backgammon.server.workers import worker_for


def test_a_tables_requests_and_sockets_go_to_one_worker():
    paths = [
        b"GET /ws/tables/abc123 HTTP/1.1\r\n",
        b"POST /api/tables/abc123/join HTTP/1.1\r\n",
        b"GET /api/tables/abc123 HTTP/1.1\r\n",
        b"GET /api/tables/abc123?token=x HTTP/1.1\r\n",
        b"GET /api/tables/abc123/history HTTP/1.1\r\nHost: x\r\n\r\n",
    ]
    for workers in (2, 3, 8):
        chosen = {worker_for(p, workers, turn) for turn, p in enumerate(paths)}
        assert len(chosen) == 1 and 0 <= chosen.pop() < workers
    assert worker_for(b"GET /ws/chouette/zz9 HTTP/1.1\r\n", 4, 0) == worker_for(
        b"POST /api/chouette/zz9/join HTTP/1.1", 4, 1
    )


def test_tables_spread_over_the_workers_and_other_requests_go_round():
    seen = {worker_for(f"GET /ws/tables/t{i} HTTP/1.1\r\n".encode(), 4, 0) for i in range(200)}
    assert seen == {0, 1, 2, 3}
    for line in (
        b"GET / HTTP/1.1\r\n",
        b"POST /api/tables HTTP/1.1\r\n",
        b"GET /api/health HTTP/1.1\r\n",
        b"\x16\x03\x01",
    ):
        assert [worker_for(line, 3, turn) for turn in range(6)] == [0, 1, 2, 0, 1, 2]


@pytest.mark.parametrize(
    "line",
    [
        b"GET /ws/tables/ HTTP/1.1",  # no id
        b"GET /ws/tables/" + b"a" * 65 + b" HTTP/1.1",  # too long for an id
        b"GET /ws/tables/a%2Fb HTTP/1.1",  # not an id's characters
        b"get /ws/tables/abc HTTP/1.1",
    ],
)
def test_a_line_without_a_table_id_goes_round(line):
    assert [worker_for(line, 2, turn) for turn in range(4)] == [0, 1, 0, 1]
