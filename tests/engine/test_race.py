"""One-sided race distributions (engine/race.py) and databases of more than six points."""

from functools import cache

import numpy as np
import pytest

from backgammon.engine.bearoff import MAX_ROLLS, BearoffDatabase, n_positions
from backgammon.engine.race import combine, one_sided, race_outputs
from backgammon.errors import InvalidInputError

K = np.arange(MAX_ROLLS)


def side_of(counts: dict[int, int]) -> np.ndarray:
    """A side from {point: checkers} (points 1..24)."""
    s = np.zeros(25, dtype=np.int8)
    for p, c in counts.items():
        s[p - 1] = c
    return s


@pytest.fixture(scope="module")
def db() -> BearoffDatabase:
    return BearoffDatabase.get()


@pytest.fixture(scope="module")
def db7() -> BearoffDatabase:
    # built here (about 10 s once compiled), never written where a user's cache is
    return BearoffDatabase(points=7)


def test_a_larger_database_extends_the_six_point_one_exactly(db: BearoffDatabase, db7: BearoffDatabase) -> None:
    assert db7.dist.shape == (n_positions(7), MAX_ROLLS) == (170544, MAX_ROLLS)
    assert np.allclose(db7.dist.sum(axis=1), 1.0, atol=1e-5) and np.allclose(db7.first.sum(axis=1), 1.0, atol=1e-5)
    rng = np.random.default_rng(7)
    for i in rng.choice(len(db.dist), 300, replace=False):
        home = db.positions[i]
        j = db7.row(home)
        assert np.array_equal(db7.dist[j], db.dist[i]) and np.array_equal(db7.first[j], db.first[i])
    # one checker on the 7-point: off in one roll with 21 ordered rolls of 7 pips or more, 2-2 and 3-3
    d = db7.rolls_distribution((0, 0, 0, 0, 0, 0, 1))
    assert d[0] == 0.0 and d[1] == pytest.approx(23 / 36) and d[1:4].sum() == pytest.approx(1.0)
    # more pips never need fewer rolls on average
    assert db7.mean_rolls((0, 0, 0, 0, 0, 0, 2)) > db.mean_rolls((0, 0, 0, 0, 0, 2))


def test_bad_database_requests(db7: BearoffDatabase) -> None:
    with pytest.raises(InvalidInputError):
        BearoffDatabase(points=5)
    with pytest.raises(InvalidInputError):
        BearoffDatabase(points=13)
    with pytest.raises(ValueError, match=r"points 1\.\.7"):
        db7.row((0, 0, 0, 0, 0, 0, 0, 1))


def test_distributions_sum_to_one_and_the_database_is_used_where_it_reaches(db: BearoffDatabase) -> None:
    home = side_of({1: 3, 2: 4, 5: 2, 6: 1})
    d, exact = one_sided(home)
    assert exact
    j = db.index(home[:6])
    assert np.array_equal(d[0], db.dist[j]) and np.array_equal(d[1], db.first[j]) and d[2, 0] == 1.0
    far = side_of({3: 3, 6: 3, 8: 3, 10: 2, 13: 2, 16: 1, 20: 1})
    d, exact = one_sided(far, trials=360, seed=3)
    assert not exact
    assert np.allclose(d.sum(axis=1), 1.0)
    # the first checker comes off before the last; a checker on the 20 escapes before it can come off
    assert d[1] @ K < d[0] @ K and 0 < d[2] @ K < d[1] @ K


def test_one_sided_rollouts_approach_the_exact_values_as_trials_grow(db7: BearoffDatabase) -> None:
    # positions of the 7-point database rolled out from the 6-point one: the error of the mean shrinks
    # with the trials, down to the small cost of the rollouts' play outside the database
    rng = np.random.default_rng(11)
    errs = {36: [], 2592: []}
    for _ in range(12):
        while True:
            i = int(rng.integers(len(db7.dist)))
            c = db7.positions[i]
            if c.sum() == 15 and c[6] >= 2:
                break
        exact = db7.dist[i] @ K
        for trials, e in errs.items():
            d, _ = one_sided(side_of({p + 1: int(c[p]) for p in range(7)}), trials=trials, seed=int(i))
            e.append(abs(d[0] @ K - exact))
    small, large = np.sqrt(np.mean(np.square(errs[36]))), np.sqrt(np.mean(np.square(errs[2592])))
    assert large < small and large < 0.05, (small, large)


def test_symmetry_and_the_database_combination(db: BearoffDatabase) -> None:
    a = side_of({1: 2, 3: 3, 4: 1})
    b = side_of({2: 2, 5: 2, 6: 1})
    out = race_outputs(np.stack([a, b]))
    assert np.allclose(out, db.probabilities(a[:6], b[:6]))
    # the same race seen from the other side with the other on roll: A on roll wins at least as often
    rev = race_outputs(np.stack([b, a]))
    assert out[0] >= 1.0 - rev[0] - 1e-12
    # two identical sides: the side on roll is the favourite
    assert race_outputs(np.stack([a, a]))[0] > 0.5


@cache
def _exact(me: tuple[int, ...], them: tuple[int, ...], me_off: bool, them_off: bool) -> tuple[float, ...]:
    """Exact two-sided outcome (win, wg, lg) of a tiny race, side ``me`` on roll, both sides playing each
    roll to maximise their cubeless equity (gammons count): a recursion over every roll."""
    from backgammon.engine.movegen import successors_py

    win = wg = lg = 0.0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            p = (1 if d1 == d2 else 2) / 36
            board = np.zeros((2, 25), dtype=np.int8)
            board[0, : len(me)] = me
            board[1, : len(them)] = them
            best = None
            for nb in successors_py(board, d1, d2):
                mine = tuple(int(x) for x in nb[1, :8])
                off = me_off or sum(mine) < 15
                if sum(mine) == 0:
                    r = (1.0, 0.0 if them_off else 1.0, 0.0)
                else:
                    ow, owg, olg = _exact(tuple(int(x) for x in nb[0, :8]), mine, them_off, off)
                    r = (1.0 - ow, olg, owg)
                eq = 2 * r[0] - 1 + r[1] - r[2]
                if best is None or eq > best[0]:
                    best = (eq, r)
            assert best is not None
            win += p * best[1][0]
            wg += p * best[1][1]
            lg += p * best[1][2]
    return win, wg, lg


def test_combined_chances_against_exact_two_sided_values() -> None:
    # tiny races with 15 checkers each, most of them off the board in spirit: the sides below carry
    # their remaining checkers; "off" flags say whether one has been borne off (always, but for gammons)
    cases = [
        ((2, 1, 0, 0, 0, 0, 1), (0, 1, 1, 0, 0, 0, 0)),
        ((0, 0, 0, 0, 1, 1, 0), (1, 1, 0, 1, 0, 0, 0)),
        ((0, 0, 0, 0, 0, 0, 0, 2), (0, 0, 1, 1, 0, 1, 0)),
    ]
    for me, them in cases:
        ex = _exact(me + (0,) * (8 - len(me)), them + (0,) * (8 - len(them)), True, True)
        b = np.zeros((2, 25), dtype=np.int8)
        b[0, : len(me)] = me
        b[1, : len(them)] = them
        out = race_outputs(b, trials=2592, seed=5)
        # within the database the one-sided method misses only plays that trade finishing soon for
        # winning; two checkers on the 8-point are rolled out (0.5159 against 0.5308 when written)
        bound = 0.01 if max(len(me), len(them)) <= 7 else 0.02
        assert out[0] == pytest.approx(ex[0], abs=bound), (me, them, out, ex)
        assert out[1] == 0.0 and out[3] == 0.0  # both sides have borne off: no gammons either way


def test_gammons_and_backgammons_from_the_distributions() -> None:
    # A needs exactly one roll; B has all 15 checkers out: gammon whenever B cannot be off in 0 rolls
    a = np.zeros((3, MAX_ROLLS))
    a[0, 1] = a[1, 0] = a[2, 0] = 1.0
    b = np.zeros((3, MAX_ROLLS))
    b[0, 5] = b[1, 3] = 1.0
    b[2, 1] = 0.5  # half the time B's last checker leaves A's home board on its first roll, else later
    b[2, 2] = 0.5
    out = np.zeros(5)
    combine(a[0], a[1], a[2], b[0], b[1], b[2], out)
    assert out[0] == 1.0 and out[1] == 1.0 and out[2] == 1.0  # A finishes before B has rolled once
    a[0, 1], a[0, 2] = 0.0, 1.0  # A needs two rolls: B has had one, escaped half the time
    combine(a[0], a[1], a[2], b[0], b[1], b[2], out)
    assert out[1] == 1.0 and out[2] == pytest.approx(0.5) and out[3] == 0.0 and out[4] == 0.0


def test_bad_sides() -> None:
    with pytest.raises(InvalidInputError):
        one_sided(side_of({24: 1}) + np.eye(25, dtype=np.int8)[24])  # a checker on the bar
    with pytest.raises(InvalidInputError):
        race_outputs(np.zeros((3, 25)))


def test_the_escape_is_played_to_leave_the_other_home_board_soonest() -> None:
    # one checker on the 24-point, the rest home: it leaves the other's home board (its points 19..24) on the
    # first roll unless the roll moves it fewer than 6 pips: 1-1, 1-2, 1-3, 1-4, 2-3 (9 of the 36 ordered rolls)
    side = side_of({24: 1, 6: 5, 5: 5, 4: 4})
    d, exact = one_sided(side, trials=36 * 40)
    assert not exact and d[2, 0] == 0.0 and d[2, 1] == pytest.approx(27 / 36, abs=1e-9)
    assert d.sum(axis=1) == pytest.approx(np.ones(3))


def test_the_evaluator_knows_when_a_gammon_or_backgammon_is_impossible() -> None:
    from backgammon.engine.evaluator import NetEvaluator

    # a race the side on roll wins at once; the other has borne off a checker before being hit: no gammon
    b = np.zeros((2, 25), dtype=np.int8)
    b[0, 0] = 2
    b[1, [0, 1, 9, 17]] = [3, 8, 1, 2]
    out = NetEvaluator.default().evaluate_boards(b[None])[0]
    assert out[0] > 0.99 and out[1] == 0.0 and out[2] == 0.0
    # all fifteen still on the board but none in the winner's home board: a gammon, never a backgammon
    b[1, :] = 0
    b[1, [7, 8, 9, 10, 11, 12, 13, 14]] = [2, 2, 2, 2, 2, 2, 2, 1]
    out = NetEvaluator.default().evaluate_boards(b[None])[0]
    assert out[1] > 0.9 and out[2] == 0.0


def test_race_labels_are_shards_fit_reads(tmp_path) -> None:
    from backgammon.engine.movegen import RACE, phase
    from backgammon.training.labels import load_labels, read_manifest
    from backgammon.training.race_labels import write_race_labels

    write_race_labels(tmp_path, 6, trials=36, shard_size=3)
    boards, targets = load_labels(tmp_path)
    assert boards.shape == (6, 2, 25) and all(phase(b) == RACE for b in boards)
    assert ((targets[:, 1] <= targets[:, 0] + 1e-3) & (targets[:, 3] <= 1 - targets[:, 0] + 1e-3)).all()
    first = read_manifest(tmp_path)["shards"]
    assert [e["count"] for e in first] == [3, 3] and all(e["plies"] == 0 for e in first)
    write_race_labels(tmp_path, 6, trials=36, shard_size=3)  # a rerun finds both shards done
    assert read_manifest(tmp_path)["shards"] == first
    with pytest.raises(InvalidInputError):
        write_race_labels(tmp_path, 6, trials=0)
