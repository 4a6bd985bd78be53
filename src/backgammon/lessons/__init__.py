"""Lessons: short courses on the rules, with exercises checked against the rules.

Each lesson is a JSON file in ``lessons/data/`` (format: ``docs/lessons.md``)
with texts in English and Japanese. :func:`load_lessons` validates them all,
including that every accepted answer is a legal play; :func:`check_answer`
judges an answer and, for an illegal play, says which rule it breaks.

>>> lesson = get_lesson("bar-entry")
>>> feedback = check_answer(lesson.exercises[0], "13/11 13/8")
>>> feedback.verdict.value, feedback.rule.value
('illegal', 'bar_first')
"""

from __future__ import annotations

from backgammon.lessons.diagnose import Diagnosis, Rule, describe_play, diagnose
from backgammon.lessons.model import (
    FORMAT_VERSION,
    ChoiceExercise,
    Exercise,
    Feedback,
    Lesson,
    PlayExercise,
    Task,
    Verdict,
    check_answer,
    get_lesson,
    load_lesson_file,
    load_lessons,
    parse_lesson,
)
from backgammon.lessons.text import LANGUAGES, Text

__all__ = [
    "FORMAT_VERSION",
    "LANGUAGES",
    "ChoiceExercise",
    "Diagnosis",
    "Exercise",
    "Feedback",
    "Lesson",
    "PlayExercise",
    "Rule",
    "Task",
    "Text",
    "Verdict",
    "check_answer",
    "describe_play",
    "diagnose",
    "get_lesson",
    "load_lesson_file",
    "load_lessons",
    "parse_lesson",
]
