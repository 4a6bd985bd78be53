"""The diagnosis on positions from random games: never crashes, agrees with parse_play."""

from __future__ import annotations

import random
import re

import pytest

from backgammon.errors import BackgammonError
from backgammon.lessons import Rule, diagnose
from backgammon.notation import parse_play
from backgammon.position import Position


def random_positions(seed: int, count: int) -> list[Position]:
    rng = random.Random(seed)
    out: list[Position] = []
    position = Position.initial()
    while len(out) < count:
        if position.is_game_over():
            position = Position.initial()
        out.append(position)
        plays = position.legal_plays(rng.randint(1, 6), rng.randint(1, 6))
        position = rng.choice(plays).position
    return out


def mutations(text: str, rng: random.Random) -> list[str]:
    numbers = list(re.finditer(r"\d+", text))
    out = [text + " 6/5", text.split(" ")[0] if " " in text else text + " 13/12", "bar/" + text if text else "24/23"]
    for m in numbers[:3]:
        value = int(m.group()) + rng.choice((-2, -1, 1, 2))
        out.append(text[: m.start()] + str(value) + text[m.end() :])
    out.append(text.replace("*", "") + "*")
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_diagnose_agrees_with_parse_play(seed: int) -> None:
    rng = random.Random(seed)
    for position in random_positions(seed, 20):
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        plays = position.legal_plays(d1, d2)
        for play in plays[:2]:
            assert diagnose(position, d1, d2, str(play)) is None
            for text in mutations(str(play), rng):
                try:
                    parse_play(position, d1, d2, text)
                    legal = True
                except BackgammonError:
                    legal = any(str(p) == text for p in plays)
                found = diagnose(position, d1, d2, text)  # must not raise
                assert (found is None) == legal, (position.position_id(), d1, d2, text, found)
                if found is not None:
                    assert isinstance(found.rule, Rule)
                    assert found.message.en and found.message.ja
