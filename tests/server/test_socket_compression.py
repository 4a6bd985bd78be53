"""``backgammon serve`` sends table sockets' frames uncompressed: no permessage-deflate is agreed
even when the client offers it (as every browser does), so no CPU goes into compressing states."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from ._servers import Server


@pytest.mark.slow
def test_serve_agrees_to_no_permessage_deflate(tmp_path):
    import websockets

    server = Server(tmp_path, "plain")
    try:
        made = httpx.post(f"{server.http}/api/tables", json={"mode": "human", "rules": {"match_length": 1}})
        assert made.status_code == 200, made.text
        doc = made.json()

        async def scenario() -> tuple[str | None, dict]:
            async with websockets.connect(f"{server.ws}/ws/tables/{doc['id']}", compression="deflate") as ws:
                offered = ws.request.headers.get("Sec-WebSocket-Extensions")
                assert offered and "permessage-deflate" in offered  # the client did offer it
                await ws.send(json.dumps({"type": "hello", "token": doc["token"]}))
                return ws.response.headers.get("Sec-WebSocket-Extensions"), json.loads(await ws.recv())

        agreed, first = asyncio.run(scenario())
        assert agreed is None
        assert first["type"] == "state" and first["state"]["you"] == doc["seat"]
    finally:
        server.stop()
