import numpy as np
import pytest

from backgammon.engine.bearoff import N_POSITIONS, BearoffDatabase
from backgammon.errors import InvalidPositionError


@pytest.fixture(scope="module")
def db() -> BearoffDatabase:
    return BearoffDatabase.get()


def test_size_and_normalisation(db: BearoffDatabase) -> None:
    assert N_POSITIONS == 54264
    assert db.dist.shape[0] == N_POSITIONS
    assert np.allclose(db.dist.sum(axis=1), 1.0, atol=1e-6)
    assert np.allclose(db.first.sum(axis=1), 1.0, atol=1e-6)


def test_hand_checked_values(db: BearoffDatabase) -> None:
    assert db.rolls_distribution((0, 0, 0, 0, 0, 0))[0] == 1.0
    assert db.rolls_distribution((1, 0, 0, 0, 0, 0))[1] == 1.0
    # two checkers on the 6-point: off in one roll only with 3-3, 4-4, 5-5 or 6-6
    d = db.rolls_distribution((0, 0, 0, 0, 0, 2))
    assert d[1] == pytest.approx(4 / 36)
    # one checker on the 6-point misses with 1-1, 2-1, 3-1, 4-1 and 3-2 (9 of 36), then is off
    d = db.rolls_distribution((0, 0, 0, 0, 0, 1))
    assert d[1] == pytest.approx(27 / 36) and d[2] == pytest.approx(9 / 36)
    # fifteen on the 6-point need at least four rolls (6-6 four times)
    d = db.rolls_distribution((0, 0, 0, 0, 0, 15))
    assert d[:4].sum() == 0 and d[4] == pytest.approx((1 / 36) ** 4)
    # first checker off from fifteen on the 6-point in one roll: any 6 (11), 5-1, 4-2 (2 each), 3-3, 2-2
    f = db.first_off_distribution((0, 0, 0, 0, 0, 15))
    assert f[1] == pytest.approx(17 / 36)
    assert db.first_off_distribution((0, 0, 0, 0, 0, 14))[0] == 1.0  # one is off already


def test_gnubg_agrees(db: BearoffDatabase) -> None:
    g = pytest.importorskip("gnubg_nn")
    rng = np.random.default_rng(3)
    checked = 0
    for i in rng.choice(N_POSITIONS, 400, replace=False):
        home = tuple(int(c) for c in db.positions[i])
        if sum(home) == 0:
            continue
        theirs = np.array(g.bearoff_probabilities(home))  # P(1 roll), P(2 rolls), ...
        ours = db.dist[i][1 : 1 + len(theirs)]
        # gnubg stores 16-bit values and may break ties between equal plays differently
        assert np.allclose(ours, theirs, atol=1e-3), home
        k = np.arange(1, 1 + len(theirs))
        assert abs(ours @ k - theirs @ k) < 3e-3, home
        checked += 1
    assert checked > 350


def test_race_probabilities(db: BearoffDatabase) -> None:
    out = db.probabilities((1, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 15))
    assert out[0] == pytest.approx(1.0) and out[1] == pytest.approx(1.0)  # on roll and off at once: gammon
    out = db.probabilities((0, 0, 0, 0, 0, 2), (1, 0, 0, 0, 0, 0))
    assert out[0] == pytest.approx(4 / 36) and out[1] == 0.0 and out[3] == 0.0
    assert out[2] == 0.0 and out[4] == 0.0


def test_bad_home_board() -> None:
    with pytest.raises(InvalidPositionError, match="six checker counts"):
        BearoffDatabase.index((1, 2, 3))
    with pytest.raises(InvalidPositionError):
        BearoffDatabase.index((5, 5, 5, 1, 0, 0))


def test_a_fresh_build_equals_the_cached_tables(db: BearoffDatabase) -> None:
    # the first process builds the tables and caches them as float32; it must see the same values
    fresh = BearoffDatabase()
    assert np.array_equal(fresh.dist, db.dist) and np.array_equal(fresh.first, db.first)
    assert fresh.rolls_distribution((1, 0, 0, 0, 0, 0))[1] == 1.0


def test_the_disk_cache_is_written_read_and_rebuilt_when_damaged(tmp_path, monkeypatch, db: BearoffDatabase) -> None:
    monkeypatch.setenv("BACKGAMMON_CACHE", str(tmp_path))
    path = BearoffDatabase.cache_path()
    built = BearoffDatabase._load_or_build()  # nothing there: built, then written
    assert path.exists() and np.array_equal(built.dist, db.dist) and np.array_equal(built.first, db.first)
    loaded = BearoffDatabase._load_or_build()  # read back: the very same values, as float64
    assert loaded.dist.dtype == np.float64 and np.array_equal(loaded.dist, db.dist)
    assert np.array_equal(loaded.first, db.first)
    path.write_bytes(b"not an array")
    rebuilt = BearoffDatabase._load_or_build()
    assert np.array_equal(rebuilt.dist, db.dist) and np.load(path).shape == (2, N_POSITIONS, 40)
