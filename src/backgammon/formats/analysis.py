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
  :attr:`~backgammon.formats.mat.MatGame.entries` of the move (for a play),
  of the double or of the no-double move (for a cube decision), or of the
  take/drop (for a take decision).
- ``depth`` is the program's own name of the depth ("2-ply", "XG Roller",
  "rollout", ...).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CubeAnalysis", "DecisionAnalysis", "Evaluation", "PlayAnalysis", "RankedPlay"]

Probabilities = tuple[float, float, float, float, float]


@dataclass(frozen=True, slots=True)
class Evaluation:
    """An equity (cubeful where the source gives it) and, when known, gnubg's five probabilities."""

    equity: float
    probabilities: Probabilities | None = None
    depth: str = ""


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

    The receiver's right answer is the lower of double/take and double/pass;
    the doubler's right action is the higher of no double and that.
    """

    no_double: float
    double_take: float
    double_pass: float = 1.0
    probabilities: Probabilities | None = None
    depth: str = ""

    @property
    def best(self) -> str:
        """The right decision in words: "no double", "double, take", "double, pass" (or "too good")."""
        answer = min(self.double_take, self.double_pass)
        if answer <= self.no_double:
            return "too good" if self.double_take > self.double_pass else "no double"
        return "double, take" if self.double_take <= self.double_pass else "double, pass"


@dataclass(frozen=True, slots=True)
class DecisionAnalysis:
    """What a program said about one decision of a game (see the module's conventions)."""

    game: int
    entry: int
    play: PlayAnalysis | None = None
    cube: CubeAnalysis | None = None
    source: str = ""
