"""Verifiable dice: determinism, commitment, tampering, uniformity, the command line."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections import Counter

import pytest

from backgammon import fairdice
from backgammon.cli import main
from backgammon.dice import DiceSource
from backgammon.dicestats import chi2_sf
from backgammon.errors import IllegalActionError, InvalidInputError
from backgammon.fairdice import CommittedDice, commitment_of, derive_roll, derive_rolls, verify

SEED = bytes(range(32))
SEED_HEX = SEED.hex()
COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"


def reference_roll(seed: bytes, game_id: str, n: int) -> tuple[int, int]:
    """An independent transcription of docs/fair-dice.md, step 3."""
    k = 0
    while True:
        block = hmac.new(seed, f"{game_id}:{n}:{k}".encode(), hashlib.sha256).digest()
        for b in block:
            if b < 216:
                return (b % 36) // 6 + 1, b % 6 + 1
        k += 1


def test_commitment_is_sha256_of_seed() -> None:
    assert commitment_of(SEED) == hashlib.sha256(SEED).hexdigest() == COMMITMENT
    assert CommittedDice("g", SEED).commitment == COMMITMENT


def test_documented_test_vector() -> None:
    # docs/fair-dice.md: draw 0 of "demo" comes from byte 0x71 = 113 -> (1, 6)
    first = hmac.new(SEED, b"demo:0:0", hashlib.sha256).digest()[0]
    assert first == 0x71
    assert derive_roll(SEED, "demo", 0) == (1, 6)
    assert fairdice.format_rolls(derive_rolls(SEED, "demo", 12)) == "16 65 22 22 46 34 64 24 51 21 65 41"


def test_draws_match_the_specification() -> None:
    for game_id in ("demo", "0b9c7e1e-1f7a-4a37-9a1e-2b8f0f0c6d11", "日本語:1"):
        expected = tuple(reference_roll(SEED, game_id, n) for n in range(200))
        assert derive_rolls(SEED, game_id, 200) == expected


def test_determinism_and_independence() -> None:
    a = CommittedDice("g1", SEED)
    b = CommittedDice("g1", SEED)
    rolls_a = [a.roll() for _ in range(50)]
    assert rolls_a == [b.roll() for _ in range(50)]
    assert a.rolls == tuple(rolls_a)
    other_game = derive_rolls(SEED, "g2", 50)
    other_seed = derive_rolls(bytes(32), "g1", 50)
    assert tuple(rolls_a) != other_game
    assert tuple(rolls_a) != other_seed


def test_fresh_seeds_differ() -> None:
    a, b = CommittedDice("g"), CommittedDice("g")
    assert a.commitment != b.commitment
    assert len(a.reveal()) == 64


def test_every_accepted_byte_maps_to_each_roll_six_times() -> None:
    counts = Counter(fairdice._byte_to_roll(b) for b in range(216))
    assert len(counts) == 36
    assert set(counts.values()) == {6}


def test_large_sample_is_uniform() -> None:
    rolls = derive_rolls(SEED, "uniformity", 36_000)
    counts = Counter(rolls)
    assert len(counts) == 36
    stat = sum((counts[(a, b)] - 1000) ** 2 / 1000 for a in range(1, 7) for b in range(1, 7))
    # fixed seed, so this is deterministic; a biased mapping (b % 36 over all 256
    # bytes) gives chi2 in the hundreds here
    assert chi2_sf(stat, 35) > 0.001
    # first and second die independent and uniform
    for die in (0, 1):
        faces = Counter(r[die] for r in rolls)
        stat1 = sum((faces[f] - 6000) ** 2 / 6000 for f in range(1, 7))
        assert chi2_sf(stat1, 5) > 0.001


def test_modulo_bias_would_be_detected() -> None:
    # the same sample size with the naive mapping b % 36 over all bytes is visibly biased
    naive: Counter[int] = Counter()
    for n in range(36_000):
        b = hmac.new(SEED, f"x:{n}".encode(), hashlib.sha256).digest()[0]
        naive[b % 36] += 1
    stat = sum((naive[v] - 1000) ** 2 / 1000 for v in range(36))
    assert chi2_sf(stat, 35) < 1e-6


def test_die_shares_a_draw_white_first() -> None:
    dice = CommittedDice("opening", SEED)
    first = derive_roll(SEED, "opening", 0)
    assert (dice.die(), dice.die()) == first
    assert dice.rolls == (first,)
    assert dice.roll() == derive_roll(SEED, "opening", 1)


def test_opening_roll_rerolls_ties() -> None:
    # find a game id whose first draw is a tie
    game_id = next(f"t{i}" for i in range(1000) if len(set(derive_roll(SEED, f"t{i}", 0))) == 1)
    dice = CommittedDice(game_id, SEED)
    white, black = dice.opening_roll()
    assert white != black
    assert len(dice.rolls) >= 2
    assert dice.rolls[0][0] == dice.rolls[0][1]
    assert dice.rolls[-1] == (white, black)
    assert verify(dice.reveal(), dice.commitment, game_id, dice.rolls).ok


def test_satisfies_the_dice_source_protocol() -> None:
    assert isinstance(CommittedDice("g", SEED), DiceSource)


def test_no_rolls_after_reveal() -> None:
    dice = CommittedDice("g", SEED)
    dice.roll()
    assert dice.reveal() == SEED_HEX
    with pytest.raises(IllegalActionError):
        dice.roll()
    with pytest.raises(IllegalActionError):
        dice.die()


def test_verify_accepts_honest_dice() -> None:
    dice = CommittedDice("game-7", SEED)
    for _ in range(30):
        dice.roll()
    result = verify(dice.reveal(), dice.commitment, "game-7", dice.rolls)
    assert result.ok and result.commitment_ok and result.mismatch is None
    assert result.expected == dice.rolls
    assert result.message().startswith("ok")


def test_verify_detects_tampered_seed() -> None:
    tampered = bytearray(SEED)
    tampered[5] ^= 1
    rolls = derive_rolls(bytes(tampered), "g", 10)
    result = verify(bytes(tampered).hex(), COMMITMENT, "g", rolls)
    assert not result.commitment_ok and not result.ok
    assert "commitment" in result.message()


def test_verify_detects_tampered_roll() -> None:
    rolls = list(derive_rolls(SEED, "g", 10))
    a, b = rolls[6]
    rolls[6] = (a % 6 + 1, b)
    result = verify(SEED_HEX, COMMITMENT, "g", rolls)
    assert result.commitment_ok and not result.ok
    assert result.mismatch is not None
    assert result.mismatch.index == 6
    assert result.mismatch.claimed == rolls[6]
    assert result.mismatch.expected == (a, b)
    assert "roll 7" in result.message()


def test_verify_detects_wrong_game_id() -> None:
    rolls = derive_rolls(SEED, "g", 20)
    assert not verify(SEED_HEX, COMMITMENT, "h", rolls).ok


def test_verify_with_text_rolls_and_count() -> None:
    result = verify(SEED_HEX, COMMITMENT, "demo", "16 6-5, 22", count=5)
    assert result.ok
    assert len(result.expected) == 5


@pytest.mark.parametrize(
    ("seed", "commitment", "game_id", "rolls"),
    [
        ("zz", COMMITMENT, "g", ()),
        (SEED_HEX[:-2], COMMITMENT, "g", ()),
        (SEED_HEX, COMMITMENT + "0", "g", ()),
        (SEED_HEX, COMMITMENT, "", ()),
        (SEED_HEX, COMMITMENT, "a\nb", ()),
        (SEED_HEX, COMMITMENT, "g", "31 72"),
        (SEED_HEX, COMMITMENT, "g", "315"),
        (SEED_HEX, COMMITMENT, "g", [(3, 0)]),
        (SEED_HEX, COMMITMENT, "g", [(3, 1, 2)]),
        (None, COMMITMENT, "g", ()),
    ],
)
def test_verify_rejects_bad_input(seed: object, commitment: str, game_id: str, rolls: object) -> None:
    with pytest.raises(InvalidInputError):
        verify(seed, commitment, game_id, rolls)  # type: ignore[arg-type]


def test_bad_constructor_input() -> None:
    with pytest.raises(InvalidInputError):
        CommittedDice("g", b"short")
    with pytest.raises(InvalidInputError):
        CommittedDice("", SEED)
    with pytest.raises(InvalidInputError):
        derive_roll(SEED, "g", -1)


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_ok(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        ["verify-dice", "--seed", SEED_HEX, "--commitment", COMMITMENT, "--game-id", "demo", "--rolls", "16 65 22"],
        capsys,
    )
    assert code == 0
    assert "rolls: 16 65 22" in out and "ok" in out


def test_cli_count_only(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        ["verify-dice", "--seed", SEED_HEX, "--commitment", COMMITMENT, "--game-id", "demo", "--count", "12"], capsys
    )
    assert code == 0
    assert "16 65 22 22 46 34 64 24 51 21 65 41" in out


def test_cli_mismatch_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        ["verify-dice", "--seed", SEED_HEX, "--commitment", COMMITMENT, "--game-id", "demo", "--rolls", "16 65 23"],
        capsys,
    )
    assert code == 1
    assert "mismatch: roll 3 was 23 but the seed gives 22" in out


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    bad_commitment = "0" * 64
    code, out, _ = run_cli(
        [
            "verify-dice",
            "--seed",
            SEED_HEX,
            "--commitment",
            bad_commitment,
            "--game-id",
            "demo",
            "--count",
            "2",
            "--json",
        ],
        capsys,
    )
    assert code == 1
    doc = json.loads(out)
    assert doc["commitment_ok"] is False and doc["rolls"] == [[1, 6], [6, 5]]


@pytest.mark.parametrize(
    "argv",
    [
        ["verify-dice", "--seed", "xyz", "--commitment", COMMITMENT, "--game-id", "g", "--count", "1"],
        ["verify-dice", "--seed", SEED_HEX, "--commitment", COMMITMENT, "--game-id", "g", "--rolls", "77"],
        ["verify-dice", "--seed", SEED_HEX, "--commitment", COMMITMENT, "--game-id", "g"],
        ["verify-dice", "--seed", SEED_HEX, "--commitment", COMMITMENT, "--game-id", "g", "--count", "-1"],
        ["verify-dice", "--seed", SEED_HEX, "--commitment", COMMITMENT, "--count", "1"],
        ["verify-dice", "--seed", SEED_HEX, "--commitment", COMMITMENT, "--game-id", "g", "--count", "abc"],
    ],
)
def test_cli_bad_input_exits_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(argv, capsys)
    assert code == 2
    assert err.startswith("error: ") and err.count("\n") == 1


def test_resume_after_a_restart() -> None:
    dice = CommittedDice("g", SEED)
    first = [dice.roll() for _ in range(7)]
    resumed = CommittedDice.resume("g", SEED_HEX, 7)
    assert resumed.rolls == tuple(first) and resumed.commitment == dice.commitment
    assert [resumed.roll() for _ in range(5)] == [dice.roll() for _ in range(5)]
    with pytest.raises(InvalidInputError):
        CommittedDice.resume("g", SEED_HEX, -1)
    with pytest.raises(InvalidInputError):
        CommittedDice.resume("g", "00", 0)


def test_a_whole_game_with_committed_dice_verifies() -> None:
    import random

    from backgammon.game import Game, GamePhase, Move, OpeningRoll, Roll, Rules

    dice = CommittedDice("full-game", SEED)
    commitment = dice.commitment
    game = Game.new(Rules(cube=False))
    rng = random.Random(3)
    while game.phase is not GamePhase.OVER:
        if game.phase in (GamePhase.OPENING, GamePhase.ROLL):
            game = game.apply(game.roll_action(dice))
        else:
            assert game.on_roll is not None
            game = game.apply(Move(game.on_roll, rng.choice(game.legal_plays)))
    # the game log holds exactly the draws, in order (opening attempts as white die, black die)
    logged = [
        (a.white_die, a.black_die) if isinstance(a, OpeningRoll) else a.dice
        for a in game.log
        if isinstance(a, (OpeningRoll, Roll))
    ]
    assert logged == list(dice.rolls)
    result = verify(dice.reveal(), commitment, "full-game", format_rolls_of(logged))
    assert result.ok and len(result.expected) == len(logged) > 10


def format_rolls_of(rolls: list[object]) -> str:
    return fairdice.format_rolls(rolls)  # type: ignore[arg-type]
