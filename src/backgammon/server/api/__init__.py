"""The site's routes, one module per domain, each a ``router(state, ...) -> APIRouter`` that
:func:`backgammon.server.app.create_app` includes: :mod:`.pages` (the pages, static files,
health), :mod:`.accounts` (register, log in and out, the account's settings and history),
:mod:`.tables` (match and money tables: create, lobby, join, actions, history, hints, the
table socket), :mod:`.chouette` (chouettes and their socket), :mod:`.pairing` (quick pairing),
:mod:`.puzzles` (puzzles from the player's errors), :mod:`.stats` (dice statistics),
:mod:`.study` (the analysis board, lessons and reviews, with ``rollouts.add_routes``) and
:mod:`.uploads` (match files uploaded for analysis); :mod:`.common` holds what the routers share
(the JSON body, the session cookie and the logged-in user).
"""
