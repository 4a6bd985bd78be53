"""Verifiable dice: commit to a secret seed, derive every roll from it, reveal it afterwards.

The procedure (specified in full in ``docs/fair-dice.md``):

1. Before the game the server draws a 32-byte *seed* with :mod:`secrets` and
   publishes the *commitment* ``sha256(seed)`` in hex.
2. Draw number ``n`` (0, 1, 2, ...) of the game ``game_id`` is computed from
   the blocks ``HMAC-SHA256(key=seed, msg=f"{game_id}:{n}:{k}")`` for
   ``k = 0, 1, ...``: the first byte ``b < 216`` gives the roll
   ``(b % 36 // 6 + 1, b % 6 + 1)``. Bytes of 216 and above are skipped
   (rejection sampling), so each of the 36 ordered rolls comes from exactly
   six byte values and is exactly equally likely.
3. An ordinary roll uses one draw. The opening roll also uses one draw per
   attempt: its first die is white's, its second black's, and a tie (a
   double) is rolled again with the next draw.
4. After the game the server reveals the seed; anyone can check
   ``sha256(seed) == commitment`` and recompute every draw with :func:`verify`.

>>> seed = bytes(range(32))
>>> dice = CommittedDice("demo", seed)
>>> dice.commitment == hashlib.sha256(seed).hexdigest()
True
>>> dice.roll(), dice.roll()
((1, 6), (6, 5))
>>> derive_rolls(seed, "demo", 2)
((1, 6), (6, 5))
>>> verify(dice.reveal(), dice.commitment, "demo", dice.rolls).ok
True
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from backgammon.dice import check_roll, parse_roll
from backgammon.errors import IllegalActionError, InvalidInputError

__all__ = [
    "SEED_BYTES",
    "CommittedDice",
    "Mismatch",
    "VerificationResult",
    "commitment_of",
    "derive_roll",
    "derive_rolls",
    "format_rolls",
    "parse_rolls",
    "verify",
]

SEED_BYTES = 32
"""Length of a seed in bytes."""

_ACCEPT_BELOW = 216  # 6 ** 3: the largest multiple of 36 that fits in a byte
_MAX_GAME_ID = 200
_MAX_DRAWS = 1_000_000


def _check_game_id(game_id: object) -> str:
    if not isinstance(game_id, str) or not game_id:
        raise InvalidInputError(f"invalid game id {game_id!r}: expected a non-empty string")
    if len(game_id) > _MAX_GAME_ID:
        raise InvalidInputError(f"invalid game id {game_id[:40]!r}...: longer than {_MAX_GAME_ID} characters")
    if not game_id.isprintable():
        raise InvalidInputError(f"invalid game id {game_id!r}: expected printable characters only")
    return game_id


def _check_seed(seed: object) -> bytes:
    if not isinstance(seed, (bytes, bytearray)) or len(seed) != SEED_BYTES:
        raise InvalidInputError(f"invalid seed {seed!r}: expected {SEED_BYTES} bytes")
    return bytes(seed)


def _hex_bytes(text: object, what: str, length: int) -> bytes:
    if not isinstance(text, str):
        raise InvalidInputError(f"invalid {what} {text!r}: expected {2 * length} hexadecimal digits")
    cleaned = text.strip().lower()
    if len(cleaned) != 2 * length or any(c not in "0123456789abcdef" for c in cleaned):
        raise InvalidInputError(f"invalid {what} {text!r}: expected {2 * length} hexadecimal digits")
    return bytes.fromhex(cleaned)


def commitment_of(seed: bytes) -> str:
    """The public commitment to a seed: ``sha256(seed)`` as 64 lowercase hex digits.

    >>> commitment_of(bytes(32))[:16]
    '66687aadf862bd77'

    Raises:
        InvalidInputError: if ``seed`` is not 32 bytes.
    """
    return hashlib.sha256(_check_seed(seed)).hexdigest()


def derive_roll(seed: bytes, game_id: str, n: int) -> tuple[int, int]:
    """Draw number ``n`` (from 0) of a game: two dice, each of the 36 outcomes equally likely.

    Raises:
        InvalidInputError: for a bad seed, game id or draw number.
    """
    seed = _check_seed(seed)
    game_id = _check_game_id(game_id)
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n < _MAX_DRAWS:
        raise InvalidInputError(f"invalid draw number {n!r}: expected an integer from 0 to {_MAX_DRAWS - 1}")
    return _derive(seed, game_id, n)


def _derive(seed: bytes, game_id: str, n: int) -> tuple[int, int]:
    k = 0
    while True:  # a block has no acceptable byte with probability (40/256)**32 < 1e-25
        block = hmac.new(seed, f"{game_id}:{n}:{k}".encode(), hashlib.sha256).digest()
        for b in block:
            if b < _ACCEPT_BELOW:
                return _byte_to_roll(b)
        k += 1


def _byte_to_roll(b: int) -> tuple[int, int]:
    """The roll an accepted byte (0..215) stands for."""
    v = b % 36
    return v // 6 + 1, v % 6 + 1


def derive_rolls(seed: bytes, game_id: str, count: int) -> tuple[tuple[int, int], ...]:
    """The first ``count`` draws of a game.

    Raises:
        InvalidInputError: for a bad seed, game id or count.
    """
    seed = _check_seed(seed)
    game_id = _check_game_id(game_id)
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= _MAX_DRAWS:
        raise InvalidInputError(f"invalid count {count!r}: expected an integer from 0 to {_MAX_DRAWS}")
    return tuple(_derive(seed, game_id, n) for n in range(count))


class CommittedDice:
    """A :class:`~backgammon.dice.DiceSource` whose rolls are fixed in advance by a committed seed.

    Publish :attr:`commitment` before the game; after it, :meth:`reveal` the
    seed. :attr:`rolls` lists every draw made so far, in order.

    ``die()`` serves the opening roll: two calls share one draw (the first
    call returns its first die, for white; the second its second die, for
    black). ``roll()`` always starts a new draw; a draw half used by
    ``die()`` is still recorded whole.

    Args:
        game_id: a name for the game, part of every draw's input.
        seed: 32 bytes; by default drawn from :mod:`secrets`.

    Raises:
        InvalidInputError: for a bad game id or seed.
    """

    __slots__ = ("_commitment", "_game_id", "_pending", "_revealed", "_rolls", "_seed")

    def __init__(self, game_id: str, seed: bytes | None = None) -> None:
        self._game_id = _check_game_id(game_id)
        self._seed = _check_seed(secrets.token_bytes(SEED_BYTES) if seed is None else seed)
        self._commitment = commitment_of(self._seed)
        self._rolls: list[tuple[int, int]] = []
        self._pending: int | None = None
        self._revealed = False

    @classmethod
    def from_seed_hex(cls, game_id: str, seed_hex: str) -> CommittedDice:
        """Rebuild the dice of a game from its revealed seed (64 hex digits).

        Raises:
            InvalidInputError: for a bad game id or seed.
        """
        return cls(game_id, _hex_bytes(seed_hex, "seed", SEED_BYTES))

    @classmethod
    def resume(cls, game_id: str, seed_hex: str, draws: int) -> CommittedDice:
        """The dice of a game after ``draws`` draws, to go on after a restart.

        The server keeps the seed secret in its store together with the number
        of draws made; this rebuilds the same object (``rolls`` recomputed).

        Raises:
            InvalidInputError: for a bad game id, seed or number of draws.
        """
        dice = cls.from_seed_hex(game_id, seed_hex)
        if not isinstance(draws, int) or isinstance(draws, bool) or not 0 <= draws <= _MAX_DRAWS:
            raise InvalidInputError(f"invalid number of draws {draws!r}: expected an integer from 0 to {_MAX_DRAWS}")
        dice._rolls = list(derive_rolls(dice._seed, game_id, draws))
        return dice

    @property
    def game_id(self) -> str:
        """The game id mixed into every draw."""
        return self._game_id

    @property
    def commitment(self) -> str:
        """``sha256(seed)`` in hex: safe to publish before the game."""
        return self._commitment

    @property
    def rolls(self) -> tuple[tuple[int, int], ...]:
        """Every draw made so far, in order (opening-roll draws included)."""
        return tuple(self._rolls)

    @property
    def revealed(self) -> bool:
        """Whether the seed has been revealed (no more rolls after that)."""
        return self._revealed

    def _next(self) -> tuple[int, int]:
        if self._revealed:
            raise IllegalActionError(f"dice of game {self._game_id!r} already revealed: no more rolls")
        if len(self._rolls) >= _MAX_DRAWS:
            raise IllegalActionError(f"dice of game {self._game_id!r} used up: {_MAX_DRAWS} draws")
        roll = _derive(self._seed, self._game_id, len(self._rolls))
        self._rolls.append(roll)
        return roll

    def roll(self) -> tuple[int, int]:
        """The next draw: two dice.

        Raises:
            IllegalActionError: after :meth:`reveal`.
        """
        self._pending = None
        return self._next()

    def die(self) -> int:
        """One die for the opening roll (two calls share one draw: white's die, then black's).

        Raises:
            IllegalActionError: after :meth:`reveal`.
        """
        if self._pending is not None:
            die, self._pending = self._pending, None
            return die
        first, second = self._next()
        self._pending = second
        return first

    def opening_roll(self) -> tuple[int, int]:
        """White's and black's opening dice, drawing again on ties (each attempt is one draw).

        Raises:
            IllegalActionError: after :meth:`reveal`.
        """
        self._pending = None
        while True:
            white, black = self._next()
            if white != black:
                return white, black

    def reveal(self) -> str:
        """The seed in hex, to publish after the game; the dice stop rolling."""
        self._revealed = True
        return self._seed.hex()

    def __repr__(self) -> str:
        return (
            f"<CommittedDice game_id={self._game_id!r} commitment={self._commitment[:16]}... draws={len(self._rolls)}>"
        )


@dataclass(frozen=True, slots=True)
class Mismatch:
    """The first claimed roll that differs from the recomputed one (``index`` from 0)."""

    index: int
    claimed: tuple[int, int]
    expected: tuple[int, int]


@dataclass(frozen=True, slots=True)
class VerificationResult:
    """The outcome of :func:`verify`.

    ``commitment_ok``: the seed hashes to the commitment. ``expected``: the
    recomputed draws (as many as were claimed, or ``count``). ``mismatch``:
    the first claimed roll that differs, if any.
    """

    commitment_ok: bool
    expected: tuple[tuple[int, int], ...]
    mismatch: Mismatch | None

    @property
    def ok(self) -> bool:
        """True when the commitment matches and every claimed roll is the recomputed one."""
        return self.commitment_ok and self.mismatch is None

    def message(self) -> str:
        """One line for people: ``'ok: ...'`` or what is wrong."""
        if not self.commitment_ok:
            return "mismatch: sha256(seed) is not the published commitment"
        if self.mismatch is not None:
            m = self.mismatch
            return (
                f"mismatch: roll {m.index + 1} was {format_rolls([m.claimed])}"
                f" but the seed gives {format_rolls([m.expected])}"
            )
        return f"ok: the seed matches the commitment and all {len(self.expected)} rolls"


def parse_rolls(text: str) -> tuple[tuple[int, int], ...]:
    """Read rolls written ``"31 52 66"`` (``3-1`` and commas are accepted too).

    >>> parse_rolls("31 5-2, 66")
    ((3, 1), (5, 2), (6, 6))

    Raises:
        InvalidInputError: for anything else.
    """
    if not isinstance(text, str):
        raise InvalidInputError(f"invalid rolls {text!r}: expected text such as '31 52 66'")
    rolls: list[tuple[int, int]] = []
    for token in text.replace(",", " ").split():
        rolls.append(parse_roll(token))
    return tuple(rolls)


def format_rolls(rolls: Iterable[tuple[int, int]]) -> str:
    """Rolls as text, ``'31 52 66'`` (the inverse of :func:`parse_rolls`)."""
    return " ".join(f"{a}{b}" for a, b in rolls)


def verify(
    seed_hex: str,
    commitment_hex: str,
    game_id: str,
    rolls: Sequence[tuple[int, int]] | str = (),
    count: int | None = None,
) -> VerificationResult:
    """Check revealed dice: the seed against the commitment, and the claimed rolls against the seed.

    ``rolls`` are the draws as the game recorded them (a sequence of pairs, or
    text such as ``"31 52 66"``); ``count`` recomputes that many draws (by
    default as many as were claimed).

    >>> seed = bytes(32).hex()
    >>> verify(seed, commitment_of(bytes(32)), "g1", "11").ok
    False

    Raises:
        InvalidInputError: for a malformed seed, commitment, game id, roll or count.
    """
    seed = _hex_bytes(seed_hex, "seed", SEED_BYTES)
    commitment = _hex_bytes(commitment_hex, "commitment", 32)
    game_id = _check_game_id(game_id)
    claimed = parse_rolls(rolls) if isinstance(rolls, str) else _check_rolls(rolls)
    n = len(claimed) if count is None else count
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= _MAX_DRAWS:
        raise InvalidInputError(f"invalid count {count!r}: expected an integer from 0 to {_MAX_DRAWS}")
    expected = derive_rolls(seed, game_id, max(n, len(claimed)))
    commitment_ok = hmac.compare_digest(hashlib.sha256(seed).digest(), commitment)
    mismatch = None
    for i, (got, want) in enumerate(zip(claimed, expected)):
        if got != want:
            mismatch = Mismatch(i, got, want)
            break
    return VerificationResult(commitment_ok, expected, mismatch)


def _check_rolls(rolls: object) -> tuple[tuple[int, int], ...]:
    if not isinstance(rolls, (list, tuple)):
        raise InvalidInputError(f"invalid rolls {rolls!r}: expected a sequence of (die, die) pairs")
    out = []
    for roll in rolls:
        out.append(check_roll(roll))
    return tuple(out)
