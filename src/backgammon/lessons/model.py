"""Lessons and exercises: the values, the loader that validates them, and the answer checker.

The file format is described in ``docs/lessons.md``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from importlib import resources
from pathlib import Path
from typing import Any

from backgammon.dice import check_roll
from backgammon.errors import BackgammonError, InvalidInputError
from backgammon.lessons.diagnose import Diagnosis, Rule, describe_play, diagnose
from backgammon.lessons.text import LANGUAGES, Text
from backgammon.moves import Play, find_play
from backgammon.position import Position

FORMAT_VERSION = 1


class Task(Enum):
    """What an exercise asks for."""

    LEGAL = "legal"  # any legal play of the position and roll
    BEST = "best"  # one of the listed plays
    CHOICE = "choice"  # pick one of several answers


@dataclass(frozen=True, slots=True)
class PlayExercise:
    """Play the roll in the position.

    For :attr:`Task.LEGAL` every legal play is right and ``answers`` are
    examples; for :attr:`Task.BEST` only ``answers`` are right. ``feedback``
    gives a specific explanation for some wrong (legal) plays.
    """

    task: Task
    position: Position
    dice: tuple[int, int]
    prompt: Text
    answers: tuple[Play, ...]
    right: Text
    wrong: Text
    hints: tuple[Text, ...] = ()
    feedback: tuple[tuple[Play, Text], ...] = ()

    def is_accepted(self, play: Play) -> bool:
        """Whether ``play`` is a right answer."""
        if self.task is Task.LEGAL:
            return play.origin == self.position and play.dice == self.dice
        return play in self.answers


@dataclass(frozen=True, slots=True)
class ChoiceExercise:
    """Pick one of ``choices``; ``answer`` is the index (from 0) of the right one."""

    prompt: Text
    choices: tuple[Text, ...]
    answer: int
    right: Text
    wrong: Text
    hints: tuple[Text, ...] = ()
    position: Position | None = None

    @property
    def task(self) -> Task:
        return Task.CHOICE


Exercise = PlayExercise | ChoiceExercise


@dataclass(frozen=True, slots=True)
class Lesson:
    """One lesson: an id, its place in the course, a title, an introduction and exercises."""

    id: str
    order: int
    title: Text
    intro: Text
    exercises: tuple[Exercise, ...]
    source: str = ""


class Verdict(Enum):
    """How an answer was judged."""

    RIGHT = "right"
    WRONG = "wrong"  # a legal play (or a choice) that is not the answer
    ILLEGAL = "illegal"  # not a legal play: see the diagnosis
    UNREADABLE = "unreadable"  # the text is not move notation, or fits several plays


@dataclass(frozen=True, slots=True)
class Feedback:
    """The result of :func:`check_answer`.

    ``explanation`` is the exercise's text for right or wrong answers (or the
    specific text for this wrong play); ``diagnosis`` says which rule an
    illegal play breaks; ``play`` is the play the answer was read as, and
    :attr:`summary` says what that legal play does.
    """

    verdict: Verdict
    explanation: Text
    diagnosis: Diagnosis | None = None
    play: Play | None = None

    @property
    def summary(self) -> Text | None:
        """For a legal play, what it does in rules terms (hits, points made, blots left)."""
        return None if self.play is None else describe_play(self.play)

    @property
    def correct(self) -> bool:
        return self.verdict is Verdict.RIGHT

    @property
    def rule(self) -> Rule | None:
        """The rule broken, for an illegal or unreadable play."""
        return self.diagnosis.rule if self.diagnosis else None

    def text(self, lang: str = "en") -> str:
        """Everything to show, in one language: the rule broken (if any), then the explanation.

        Raises:
            InvalidInputError: for a language other than 'en' or 'ja'.
        """
        parts = []
        if self.diagnosis is not None:
            parts.append(self.diagnosis.message.get(lang))
        parts.append(self.explanation.get(lang))
        return ("。" if lang == "ja" else ". ").join(p.rstrip("。.") for p in parts if p) + (
            "。" if lang == "ja" else "."
        )


# ------------------------------------------------------------------ checking
def check_answer(exercise: Exercise, answer: Play | str | int) -> Feedback:
    """Judge an answer to an exercise.

    For a play exercise the answer is a :class:`Play` of the exercise's
    position and roll, or move text (``''`` for "no move"); for a choice
    exercise, the index of the choice (from 0).

    Raises:
        InvalidInputError: for an answer of the wrong kind, a play of another
            position or roll, or a choice index out of range.
    """
    if isinstance(exercise, ChoiceExercise):
        if not isinstance(answer, int) or isinstance(answer, bool):
            raise InvalidInputError(f"invalid answer {answer!r}: expected the index of a choice")
        if not 0 <= answer < len(exercise.choices):
            raise InvalidInputError(
                f"invalid answer {answer!r}: expected a choice index from 0 to {len(exercise.choices) - 1}"
            )
        if answer == exercise.answer:
            return Feedback(Verdict.RIGHT, exercise.right)
        return Feedback(Verdict.WRONG, exercise.wrong)
    if not isinstance(exercise, PlayExercise):
        raise InvalidInputError(f"invalid exercise {exercise!r}: expected a PlayExercise or ChoiceExercise")
    d1, d2 = exercise.dice
    if isinstance(answer, Play):
        if answer.origin != exercise.position or sorted(answer.dice) != sorted(exercise.dice):
            raise InvalidInputError(
                f"invalid answer {str(answer)!r}: it is a play of another position or roll, not of "
                f"{exercise.position.position_id()} with {d1}-{d2}"
            )
        play = answer
    elif isinstance(answer, str):
        try:
            play = find_play(exercise.position, d1, d2, answer)
        except BackgammonError:
            found = diagnose(exercise.position, d1, d2, answer)
            if found is None:
                raise
            verdict = Verdict.UNREADABLE if found.rule in (Rule.NOTATION, Rule.AMBIGUOUS) else Verdict.ILLEGAL
            return Feedback(verdict, exercise.wrong if verdict is Verdict.ILLEGAL else Text("", ""), found)
    else:
        raise InvalidInputError(f"invalid answer {answer!r}: expected a Play or move text")
    return _judge(exercise, play)


def _judge(exercise: PlayExercise, play: Play) -> Feedback:
    if exercise.is_accepted(play):
        return Feedback(Verdict.RIGHT, exercise.right, play=play)
    for wrong_play, text in exercise.feedback:
        if wrong_play == play:
            return Feedback(Verdict.WRONG, text, play=play)
    return Feedback(Verdict.WRONG, exercise.wrong, play=play)


# ------------------------------------------------------------------ loading
class _Reader:
    """Validates one lesson document, naming the file and field in every error."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, field: str, message: str) -> BackgammonError:
        return InvalidInputError(f"lesson {self.source!r}, field {field!r}: {message}")

    def mapping(
        self, value: object, field: str, required: set[str], optional: frozenset[str] | set[str] = frozenset()
    ) -> dict[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(field, f"expected an object, got {value!r}")
        missing = required - value.keys()
        if missing:
            raise self.fail(field, f"missing {', '.join(sorted(missing))}")
        unknown = value.keys() - required - optional
        if unknown:
            raise self.fail(field, f"unknown key(s) {', '.join(sorted(map(repr, unknown)))}")
        return dict(value)

    def text(self, value: object, field: str) -> Text:
        data = self.mapping(value, field, set(LANGUAGES))
        for lang in LANGUAGES:
            if not isinstance(data[lang], str) or not data[lang].strip():
                raise self.fail(f"{field}.{lang}", f"expected non-empty text, got {data[lang]!r}")
        ja = data["ja"]
        if any(c.isascii() and c.isalpha() for c in data["en"]) and not any(
            "\u3040" <= c <= "\u30ff" or "\u4e00" <= c <= "\u9fff" for c in ja
        ):
            raise self.fail(f"{field}.ja", f"expected Japanese text, got {ja!r}")
        return Text(data["en"], ja)

    def texts(self, value: object, field: str) -> tuple[Text, ...]:
        if not isinstance(value, list):
            raise self.fail(field, f"expected a list, got {value!r}")
        return tuple(self.text(v, f"{field}[{i}]") for i, v in enumerate(value))

    def position(self, value: object, field: str) -> Position:
        try:
            return Position.from_position_id(value)  # type: ignore[arg-type]
        except (InvalidInputError, TypeError) as exc:
            raise self.fail(field, str(exc)) from None

    def dice(self, value: object, field: str) -> tuple[int, int]:
        try:
            return check_roll(value)
        except InvalidInputError as exc:
            raise self.fail(field, str(exc)) from None

    def play(self, position: Position, dice: tuple[int, int], value: object, field: str) -> Play:
        if not isinstance(value, str):
            raise self.fail(field, f"expected move text, got {value!r}")
        try:
            return find_play(position, dice[0], dice[1], value)
        except BackgammonError as exc:
            raise self.fail(field, f"not a legal play: {exc}") from None

    def exercise(self, value: object, field: str) -> Exercise:
        task_name = value.get("task") if isinstance(value, Mapping) else None
        if not isinstance(task_name, str) or task_name not in {t.value for t in Task}:
            got = value.get("task") if isinstance(value, Mapping) else value
            raise self.fail(f"{field}.task", f"expected one of 'legal', 'best', 'choice', got {got!r}")
        task = Task(task_name)
        common = {"task", "prompt", "right", "wrong"}
        if task is Task.CHOICE:
            data = self.mapping(value, field, common | {"choices", "answer"}, {"hints", "position"})
            choices = self.texts(data["choices"], f"{field}.choices")
            if len(choices) < 2:
                raise self.fail(f"{field}.choices", "expected at least two choices")
            answer = data["answer"]
            if not isinstance(answer, int) or isinstance(answer, bool) or not 0 <= answer < len(choices):
                raise self.fail(
                    f"{field}.answer", f"expected a choice index from 0 to {len(choices) - 1}, got {answer!r}"
                )
            return ChoiceExercise(
                prompt=self.text(data["prompt"], f"{field}.prompt"),
                choices=choices,
                answer=answer,
                right=self.text(data["right"], f"{field}.right"),
                wrong=self.text(data["wrong"], f"{field}.wrong"),
                hints=self.texts(data.get("hints", []), f"{field}.hints"),
                position=None if "position" not in data else self.position(data["position"], f"{field}.position"),
            )
        data = self.mapping(value, field, common | {"position", "dice", "answers"}, {"hints", "feedback"})
        position = self.position(data["position"], f"{field}.position")
        dice = self.dice(data["dice"], f"{field}.dice")
        if not isinstance(data["answers"], list):
            raise self.fail(f"{field}.answers", f"expected a list of move texts, got {data['answers']!r}")
        answers = tuple(self.play(position, dice, a, f"{field}.answers[{i}]") for i, a in enumerate(data["answers"]))
        if task is Task.BEST and not answers:
            raise self.fail(f"{field}.answers", "a 'best' exercise needs at least one accepted answer")
        if len(set(answers)) != len(answers):
            raise self.fail(f"{field}.answers", "the same play is listed twice")
        feedback_list = data.get("feedback", [])
        if not isinstance(feedback_list, list):
            raise self.fail(f"{field}.feedback", f"expected a list, got {feedback_list!r}")
        feedback = []
        for i, item in enumerate(feedback_list):
            f = f"{field}.feedback[{i}]"
            entry = self.mapping(item, f, {"play", "en", "ja"})
            play = self.play(position, dice, entry["play"], f"{f}.play")
            if task is Task.LEGAL or play in answers:
                raise self.fail(f"{f}.play", f"{entry['play']!r} is an accepted answer: feedback is for wrong plays")
            feedback.append((play, self.text({"en": entry["en"], "ja": entry["ja"]}, f)))
        return PlayExercise(
            task=task,
            position=position,
            dice=dice,
            prompt=self.text(data["prompt"], f"{field}.prompt"),
            answers=answers,
            right=self.text(data["right"], f"{field}.right"),
            wrong=self.text(data["wrong"], f"{field}.wrong"),
            hints=self.texts(data.get("hints", []), f"{field}.hints"),
            feedback=tuple(feedback),
        )

    def lesson(self, value: object) -> Lesson:
        data = self.mapping(value, "(top)", {"format", "id", "order", "title", "intro", "exercises"})
        if data["format"] != FORMAT_VERSION:
            raise self.fail("format", f"expected {FORMAT_VERSION}, got {data['format']!r}")
        lesson_id = data["id"]
        if (
            not isinstance(lesson_id, str)
            or not lesson_id
            or not all(c.isascii() and (c.isalnum() or c == "-") for c in lesson_id)
            or lesson_id != lesson_id.lower()
        ):
            raise self.fail("id", f"expected lowercase letters, digits and '-', got {lesson_id!r}")
        order = data["order"]
        if not isinstance(order, int) or isinstance(order, bool):
            raise self.fail("order", f"expected an integer, got {order!r}")
        if not isinstance(data["exercises"], list) or not data["exercises"]:
            raise self.fail("exercises", "expected a non-empty list")
        return Lesson(
            id=lesson_id,
            order=order,
            title=self.text(data["title"], "title"),
            intro=self.text(data["intro"], "intro"),
            exercises=tuple(self.exercise(e, f"exercises[{i}]") for i, e in enumerate(data["exercises"])),
            source=self.source,
        )


def parse_lesson(data: object, source: str = "<data>") -> Lesson:
    """Validate a decoded lesson document (a dict as read from JSON).

    Raises:
        InvalidInputError: naming ``source`` and the field, for anything invalid,
            including accepted answers that are not legal plays.
    """
    return _Reader(source).lesson(data)


def load_lesson_file(path: str | Path) -> Lesson:
    """Read and validate one lesson file (JSON, UTF-8).

    Raises:
        InvalidInputError: if the file cannot be read, is not JSON, or is not a valid lesson.
    """
    path = Path(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(f"lesson {path.name!r}: cannot read the file: {exc}") from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"lesson {path.name!r}: not valid JSON: {exc}") from None
    return parse_lesson(data, path.name)


def load_lessons(directory: str | Path | None = None) -> tuple[Lesson, ...]:
    """Every lesson of a directory (by default the shipped ones), in course order.

    Raises:
        InvalidInputError: for an invalid file or two lessons with the same id.
    """
    if directory is None:
        return _shipped()
    return _load_dir(Path(directory).glob("*.json"))


def _load_dir(paths: Iterable[Path]) -> tuple[Lesson, ...]:
    lessons = [load_lesson_file(p) for p in sorted(paths)]
    seen: dict[str, str] = {}
    for lesson in lessons:
        if lesson.id in seen:
            raise InvalidInputError(
                f"lesson {lesson.source!r}, field 'id': {lesson.id!r} is already used by {seen[lesson.id]!r}"
            )
        seen[lesson.id] = lesson.source
    return tuple(sorted(lessons, key=lambda lesson: (lesson.order, lesson.id)))


@functools.cache
def _shipped() -> tuple[Lesson, ...]:
    root = resources.files("backgammon.lessons") / "data"
    with resources.as_file(root) as directory:
        return _load_dir(Path(directory).glob("*.json"))


def get_lesson(lesson_id: str) -> Lesson:
    """A shipped lesson by id.

    Raises:
        InvalidInputError: if there is no such lesson.
    """
    for lesson in _shipped():
        if lesson.id == lesson_id:
            return lesson
    known = ", ".join(lesson.id for lesson in _shipped())
    raise InvalidInputError(f"unknown lesson {lesson_id!r}: expected one of {known}")
