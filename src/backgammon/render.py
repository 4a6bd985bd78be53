"""Text rendering of positions (pure functions returning ``str``).

The board is drawn from the view of the player on roll, ``X``, who moves from
the 24-point (top right) round to the 1-point (bottom right) and bears off
at the right; ``O`` is the opponent.
"""

from __future__ import annotations

from backgammon.position import BAR, Position

_ROWS = 5


def _cell(count: int, mark: str, row: int) -> str:
    if count <= 0:
        return " . " if row == 0 else "   "
    if row < _ROWS - 1 or count <= _ROWS:
        return f" {mark} " if count > row else "   "
    return f"{count:>2} " if count > _ROWS else f" {mark} "


def _point(position: Position, point: int) -> tuple[int, str]:
    """(count, mark) on ``point`` (1..24 in X's numbering)."""
    mine = position.mine[point - 1]
    if mine:
        return mine, "X"
    theirs = position.theirs[24 - point]
    return (theirs, "O") if theirs else (0, " ")


def ascii_board(position: Position, *, x_name: str = "X (on roll)", o_name: str = "O") -> str:
    """An ASCII board with both pip counts, seen by the player on roll (X).

    >>> print(ascii_board(Position.initial()).splitlines()[0])
     13 14 15 16 17 18       19 20 21 22 23 24
    """
    top = list(range(13, 25))
    bottom = list(range(12, 0, -1))
    lines = [" " + " ".join(f"{p:>2}" for p in top[:6]) + "       " + " ".join(f"{p:>2}" for p in top[6:])]
    lines.append("+" + "-" * 18 + "+-----+" + "-" * 18 + "+")
    o_bar, x_bar = position.theirs[BAR], position.mine[BAR]
    for row in range(_ROWS):
        cells = [_cell(*_point(position, p), row) for p in top]
        bar = _cell(o_bar, "O", row).strip() if o_bar else ""
        lines.append("|" + "".join(cells[:6]) + f"| {bar:^3} |" + "".join(cells[6:]) + "|")
    off_x, off_o = position.off()
    lines.append("|" + " " * 18 + "| BAR |" + " " * 18 + f"|  off: O {off_o}, X {off_x}")
    for row in reversed(range(_ROWS)):
        cells = [_cell(*_point(position, p), row) for p in bottom]
        bar = _cell(x_bar, "X", row).strip() if x_bar else ""
        lines.append("|" + "".join(cells[:6]) + f"| {bar:^3} |" + "".join(cells[6:]) + "|")
    lines.append("+" + "-" * 18 + "+-----+" + "-" * 18 + "+")
    lines.append(" " + " ".join(f"{p:>2}" for p in bottom[:6]) + "       " + " ".join(f"{p:>2}" for p in bottom[6:]))
    pips_x, pips_o = position.pip_counts()
    lines.append(f"Position ID: {position.position_id()}")
    lines.append(f"{x_name}: pips {pips_x}   {o_name}: pips {pips_o}")
    return "\n".join(lines)
