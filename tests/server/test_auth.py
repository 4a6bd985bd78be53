import pytest

from backgammon.errors import InvalidInputError
from backgammon.server.auth import check_username, hash_password, token_hash, verify_password


def test_hash_and_verify():
    h = hash_password("secret-pw")
    assert h.startswith("scrypt$")
    assert verify_password("secret-pw", h)
    assert not verify_password("secret-pX", h)
    assert hash_password("secret-pw") != h  # salted


def test_verify_garbage_is_false():
    assert not verify_password("x", "not-a-hash")
    assert not verify_password("x", "md5$1$2$3$4$5")


@pytest.mark.parametrize("name", ["ab", "a" * 21, "bad name", "", None, 42, "ü-user"])
def test_bad_usernames(name):
    with pytest.raises(InvalidInputError, match="invalid username"):
        check_username(name)


def test_short_password():
    with pytest.raises(InvalidInputError, match="password"):
        hash_password("12345")


def test_token_hash_is_stable_hex():
    assert token_hash("abc") == token_hash("abc")
    assert len(token_hash("abc")) == 64
