"""What the tests know of the UI's texts."""

from __future__ import annotations

from collections.abc import Iterable


def singular_forms(keys: Iterable[str]) -> set[str]:
    """The keys KEY_one beside a KEY: English's singular forms, which t() takes when n is 1 (Japanese has none)."""
    keys = set(keys)
    return {k for k in keys if k.endswith("_one") and k.removesuffix("_one") in keys}
