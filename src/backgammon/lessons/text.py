"""Text in the two languages of the lessons."""

from __future__ import annotations

from dataclasses import dataclass

from backgammon.errors import InvalidInputError

LANGUAGES = ("en", "ja")


@dataclass(frozen=True, slots=True)
class Text:
    """A text in English and Japanese; ``text["ja"]`` or ``text.get("ja")`` picks one.

    >>> Text("hit", "ヒット")["ja"]
    'ヒット'

    Raises:
        InvalidInputError: (from ``[]`` and :meth:`get`) for another language.
    """

    en: str
    ja: str

    def get(self, lang: str) -> str:
        """The text in ``lang`` (``'en'`` or ``'ja'``).

        Raises:
            InvalidInputError: for another language.
        """
        if lang == "en":
            return self.en
        if lang == "ja":
            return self.ja
        raise InvalidInputError(f"invalid language {lang!r}: expected 'en' or 'ja'")

    def __getitem__(self, lang: str) -> str:
        return self.get(lang)

    def join(self, other: Text, sep: str = " ") -> Text:
        """Both texts joined, language by language (Japanese without the separator)."""
        return Text(f"{self.en}{sep}{other.en}".strip(), f"{self.ja}{other.ja}")
