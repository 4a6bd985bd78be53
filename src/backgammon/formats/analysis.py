"""Analysis carried by match files, as plain data: ranked plays and cube decisions with their equities.

eXtreme Gammon's ``.xg`` files and gnubg's SGF files keep the analysis that
program made of each decision; :func:`backgammon.formats.sgf.write_sgf`
writes the project's own in gnubg's SGF properties. The formats layer does
not evaluate anything: whoever has an analysis (a file reader, or the
engine through the command line) fills these objects and passes them in.

Conventions, the same for every source:

- Equities and probabilities are from the side deciding (the mover for a
  play, the doubler for a double, the receiver for a take), as both XG and
  gnubg show them: money equity per unit cube for money play, EMG
  (equity in money-game units, normalised from match winning chances) in a
  match. ``probabilities`` are gnubg's five: win, win a gammon, win a
  backgammon, lose a gammon, lose a backgammon (the gammon figures include
  the backgammons).
- A decision belongs to one record entry: ``game`` is the 1-based game
  number and ``entry`` the index in that game's
  :attr:`~backgammon.formats.mat.MatGame.entries` of the move (for a play,
  and for the no-double cube decision before it) or of the double (for a
  cube decision that doubled). For writing, ``action`` is instead the index
  in the replayed game's :attr:`~backgammon.game.Game.log` of the ``Move``
  or ``Double`` action (:func:`entry_actions` maps one to the other).
- ``depth`` is the program's own name of the depth ("2-ply", "XG Roller",
  "rollout", ...).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from backgammon.formats.mat_syntax import EntryKind, MatEntry

__all__ = ["CubeAnalysis", "DecisionAnalysis", "Evaluation", "PlayAnalysis", "RankedPlay", "entry_actions"]

Probabilities = tuple[float, float, float, float, float]


@dataclass(frozen=True, slots=True)
class Evaluation:
    """An equity and, when known, gnubg's five probabilities; ``cubeful`` says which kind the equity
    is where the source tells (gnubg's SGF does: a depth token ``0C`` is cubeful, ``0`` cubeless)."""

    equity: float
    probabilities: Probabilities | None = None
    depth: str = ""
    cubeful: bool | None = None  # whether ``equity`` is cubeful; None when the source does not say


@dataclass(frozen=True, slots=True)
class RankedPlay:
    """One candidate play: its ``.mat`` notation (points from the mover's side, bar 25, off 0)."""

    move: str
    evaluation: Evaluation


@dataclass(frozen=True, slots=True)
class PlayAnalysis:
    """The candidates for one roll, best first; ``played`` is the index of the play made (None: not listed)."""

    dice: tuple[int, int]
    plays: tuple[RankedPlay, ...]
    played: int | None = None

    def error(self) -> float | None:
        """The best candidate's equity minus the played one's (None when the play is not listed)."""
        if self.played is None or not self.plays:
            return None
        return self.plays[0].evaluation.equity - self.plays[self.played].evaluation.equity


@dataclass(frozen=True, slots=True)
class CubeAnalysis:
    """A cube decision: the cubeful equities of no double, double/take and double/pass, from the doubler.

    Equities are money equity per unit of the current cube, or EMG in a
    match; ``None`` where the source gives only match-winning chances
    (gnubg's SGF stores those for a match): ``mwc`` then holds the doubler's
    chances after no double and after double/take. ``cubeless`` is the
    cubeless money equity when the source gives it. The receiver's right
    answer is the lower of double/take and double/pass; the doubler's right
    action is the higher of no double and that.
    """

    no_double: float | None
    double_take: float | None
    double_pass: float | None = 1.0
    probabilities: Probabilities | None = None
    depth: str = ""
    mwc: tuple[float, float] | None = None
    cubeless: float | None = None

    @property
    def best(self) -> str:
        """The right decision in words: "no double", "double, take", "double, pass", "too good" ("" if unknown)."""
        nd, dt, dp = self.no_double, self.double_take, self.double_pass
        if nd is None or dt is None or dp is None:
            if self.mwc is None:
                return ""
            nd, dt, dp = self.mwc[0], self.mwc[1], 2.0  # a pass is never below a take in chances
        answer = min(dt, dp)
        if answer <= nd:
            return "too good" if dt > dp else "no double"
        return "double, take" if dt <= dp else "double, pass"


@dataclass(frozen=True, slots=True)
class DecisionAnalysis:
    """What a program said about one decision of a game (see the module's conventions)."""

    game: int
    entry: int
    play: PlayAnalysis | None = None
    cube: CubeAnalysis | None = None
    source: str = ""
    action: int | None = None


def entry_actions(entries: Sequence[MatEntry], log: Sequence[object]) -> dict[int, int]:
    """Map a game record's entries to the replayed game's log: ``{entry index: log index}``.

    Moves, doubles, takes, drops and beavers are matched in order (the
    replay turns each such entry into one action of the same kind); rolls,
    results and notes have no action of their own.
    """
    from backgammon.game import Beaver, Double, Move, Pass, Take

    kinds = {
        EntryKind.MOVE: Move,
        EntryKind.DOUBLE: Double,
        EntryKind.TAKE: Take,
        EntryKind.DROP: Pass,
        EntryKind.BEAVER: Beaver,
    }
    actions = [(k, a) for k, a in enumerate(log) if isinstance(a, (Move, Double, Take, Pass, Beaver))]
    out: dict[int, int] = {}
    at = 0
    for index, entry in enumerate(entries):
        kind = kinds.get(entry.kind)
        if kind is None:
            continue
        while at < len(actions) and not isinstance(actions[at][1], kind):
            at += 1
        if at == len(actions):
            break
        out[index] = actions[at][0]
        at += 1
    return out
