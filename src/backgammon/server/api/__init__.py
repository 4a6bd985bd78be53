"""The site's routes, one module per domain, each a ``router(state, ...) -> APIRouter`` that
:func:`backgammon.server.app.create_app` includes: :mod:`.pages` (the pages, static files,
health), :mod:`.accounts` (register, log in and out, the account's settings and history),
:mod:`.tables` (match and money tables: create, lobby, join, actions, history, hints, the
table socket). Chouettes, pairing, dice statistics, study, puzzles and uploads keep their
routers beside their domain code (``chouette_tables.router``, ``pairing.make_router``,
``player_dice.router``, ``study.make_router``, ``puzzles.make_router``,
``uploads.make_router``); :mod:`.common` holds what the routers share (the JSON body, the
session cookie and the logged-in user).
"""
