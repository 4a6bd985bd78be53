"""The engine's protocols: other programs talk to the engine through these.

- :mod:`.jsonlines`: the engine's line protocol, one JSON request per line in, one JSON answer per
  line out (``backgammon engine``; ``docs/engine-protocol.md``);
- :mod:`.external`: GNU Backgammon's external player interface, FIBS board strings in, moves and
  cube answers out (``backgammon external``; ``docs/external-player.md``);
- :mod:`.ubgi`: UBGI, a UCI-like engine protocol on stdin/stdout (``backgammon ubgi``; ``docs/ubgi.md``).

They sit above :mod:`backgammon.engine` and :mod:`backgammon.formats` and beside the apps (the CLI,
the server); the layer contracts in ``pyproject.toml`` check that nothing below imports them.
"""
