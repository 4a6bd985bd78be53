import pytest

from backgammon.errors import InvalidInputError
from backgammon.server.rating import k_factor, rating_change


def test_fibs_worked_example():
    # FORMATS.md 2.5: 1500 (exp 0) beats 1600 (exp 500) in a 5-pointer
    change = rating_change(1500, 1600, 5, 0, 500)
    assert change.upset_probability == pytest.approx(0.43599, abs=1e-5)
    assert change.winner_delta == pytest.approx(25.22, abs=0.005)
    assert change.loser_delta == pytest.approx(-5.04, abs=0.005)


def test_equal_ratings_one_pointer_experienced():
    change = rating_change(1700, 1700, 1, 1000, 400)
    assert change.winner_delta == pytest.approx(2.0)
    assert change.loser_delta == pytest.approx(-2.0)


def test_favourite_wins_gains_less_than_underdog():
    fav = rating_change(1600, 1500, 5, 500, 500)
    dog = rating_change(1500, 1600, 5, 500, 500)
    assert 0 < fav.winner_delta < dog.winner_delta


def test_k_factor():
    assert k_factor(0) == 5
    assert k_factor(250) == 2.5
    assert k_factor(400) == 1
    assert k_factor(10_000) == 1


@pytest.mark.parametrize("length", [0, -3, 2.5, "5"])
def test_bad_length(length):
    with pytest.raises(InvalidInputError, match="match length"):
        rating_change(1500, 1500, length, 0, 0)
