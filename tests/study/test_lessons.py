"""Lessons: every shipped lesson loads, every accepted answer is legal, wrong answers get feedback."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from backgammon.cli import main
from backgammon.errors import InvalidInputError
from backgammon.lessons import (
    ChoiceExercise,
    PlayExercise,
    Rule,
    Task,
    Verdict,
    check_answer,
    diagnose,
    get_lesson,
    load_lesson_file,
    load_lessons,
    parse_lesson,
)
from backgammon.position import Position

LESSONS = load_lessons()
PLAY_EXERCISES = [
    pytest.param(e, id=f"{lesson.id}-{i + 1}")
    for lesson in LESSONS
    for i, e in enumerate(lesson.exercises)
    if isinstance(e, PlayExercise)
]
CHOICE_EXERCISES = [
    pytest.param(e, id=f"{lesson.id}-{i + 1}")
    for lesson in LESSONS
    for i, e in enumerate(lesson.exercises)
    if isinstance(e, ChoiceExercise)
]
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def test_the_course_is_complete() -> None:
    ids = [lesson.id for lesson in LESSONS]
    assert ids == [
        "starting-setup",
        "two-dice",
        "doubles",
        "bar-entry",
        "hitting",
        "bearing-off",
        "dice-duties",
        "gammons",
        "cube",
        "crawford",
    ]
    assert len(set(ids)) == len(ids)
    assert all(lesson.exercises for lesson in LESSONS)
    assert sum(len(lesson.exercises) for lesson in LESSONS) >= 30


@pytest.mark.parametrize(
    ("lesson_id", "terms"),
    [
        ("starting-setup", ["チェッカー", "インナーボード", "ベアオフ", "ミッドポイント"]),
        ("two-dice", ["ブロック"]),
        ("doubles", ["ゾロ目"]),
        ("bar-entry", ["バー", "エンター", "ダンス"]),
        ("hitting", ["ヒット", "ブロット"]),
        ("bearing-off", ["ベアオフ", "インナーボード"]),
        ("gammons", ["ギャモン", "バックギャモン"]),
        ("cube", ["キューブ", "ダブル", "テイク", "パス"]),
        ("crawford", ["クロフォード", "マッチ", "ポストクロフォード"]),
    ],
)
def test_japanese_uses_backgammon_terms(lesson_id: str, terms: list[str]) -> None:
    lesson = get_lesson(lesson_id)
    all_ja = lesson.intro.ja + "".join(e.prompt.ja + e.right.ja + e.wrong.ja for e in lesson.exercises)
    for term in terms:
        assert term in all_ja, term


def test_every_text_has_both_languages() -> None:
    for lesson in LESSONS:
        texts = [lesson.title, lesson.intro]
        for e in lesson.exercises:
            texts += [e.prompt, e.right, e.wrong, *e.hints]
            if isinstance(e, ChoiceExercise):
                texts += list(e.choices)
            else:
                texts += [t for _, t in e.feedback]
        for t in texts:
            assert t.en.strip() and t.ja.strip()
            if re.search("[A-Za-z]", t.en):
                assert JAPANESE.search(t.ja), t.ja


@pytest.mark.parametrize("exercise", PLAY_EXERCISES)
def test_accepted_answers_are_legal_and_right(exercise: PlayExercise) -> None:
    legal = exercise.position.legal_plays(*exercise.dice)
    for answer in exercise.answers:
        assert answer in legal
        assert answer.origin == exercise.position
        assert check_answer(exercise, answer).correct
        assert check_answer(exercise, str(answer)).correct
    if exercise.task is Task.BEST:
        assert exercise.answers


@pytest.mark.parametrize("exercise", PLAY_EXERCISES)
def test_every_legal_play_is_judged(exercise: PlayExercise) -> None:
    for play in exercise.position.legal_plays(*exercise.dice):
        feedback = check_answer(exercise, str(play))
        if exercise.task is Task.LEGAL or play in exercise.answers:
            assert feedback.verdict is Verdict.RIGHT
        else:
            assert feedback.verdict is Verdict.WRONG
            assert feedback.play == play
            assert feedback.text("en") and JAPANESE.search(feedback.text("ja"))


def _illegal_texts(exercise: PlayExercise) -> list[str]:
    """Plausible wrong texts: each legal play's path with a checker from another point or one die too many."""
    legal_texts = {str(p) for p in exercise.position.legal_plays(*exercise.dice)}
    candidates = ["24/1", "13/12/11/10/9", "6/off", "bar/20", "8/5 6/5", "24/18 13/11", "1/off 2/off", "x/y"]
    return [t for t in candidates if t not in legal_texts]


@pytest.mark.parametrize("exercise", PLAY_EXERCISES)
def test_illegal_answers_get_a_reason(exercise: PlayExercise) -> None:
    for text in _illegal_texts(exercise):
        feedback = check_answer(exercise, text)
        if feedback.verdict is Verdict.RIGHT:  # a candidate that happens to be legal and accepted
            continue
        if feedback.verdict is Verdict.WRONG:
            continue
        assert feedback.verdict in (Verdict.ILLEGAL, Verdict.UNREADABLE)
        assert feedback.diagnosis is not None
        assert feedback.diagnosis.message.en and JAPANESE.search(feedback.diagnosis.message.ja)
        assert not feedback.correct


@pytest.mark.parametrize("exercise", CHOICE_EXERCISES)
def test_choices(exercise: ChoiceExercise) -> None:
    for i in range(len(exercise.choices)):
        feedback = check_answer(exercise, i)
        assert feedback.correct == (i == exercise.answer)
        assert feedback.explanation == (exercise.right if i == exercise.answer else exercise.wrong)
    with pytest.raises(InvalidInputError):
        check_answer(exercise, len(exercise.choices))
    with pytest.raises(InvalidInputError):
        check_answer(exercise, "1")


# ---------------------------------------------------------------- content checked against the rules
def _exercise(lesson_id: str, number: int) -> Any:
    return get_lesson(lesson_id).exercises[number - 1]


def test_pip_count_answer_matches_the_rules() -> None:
    e = _exercise("starting-setup", 2)
    assert e.choices[e.answer].en == str(Position.initial().pip_counts()[0])


def test_midpoint_answer_matches_the_rules() -> None:
    e = _exercise("starting-setup", 1)
    assert e.choices[e.answer].en == str(Position.initial().mine[12])


def test_entering_against_four_points_by_enumeration() -> None:
    board = Position.from_points({"bar": 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 13: 7})
    enters = sum(
        1
        for d1 in range(1, 7)
        for d2 in range(1, 7)
        if any(s.source == 25 for p in board.legal_plays(d1, d2) for s in p.steps)
    )
    e = _exercise("bar-entry", 4)
    assert e.choices[e.answer].en == str(enters)


def test_backgammon_exercise_position() -> None:
    e = _exercise("gammons", 3)
    position = e.position
    assert position is not None
    (play,) = position.legal_plays(6, 5)
    after = play.position  # seen by the loser
    assert after.off()[1] == 15  # the winner is off
    assert after.off()[0] == 0  # the loser has borne off none
    # a loser's checker in the winner's home board: the loser's points 19..24
    assert any(after.mine[i] for i in range(18, 24)) or after.mine[24]
    assert "backgammon" in e.choices[e.answer].en.lower()


def test_dancing_exercise_has_only_the_empty_play() -> None:
    e = _exercise("bar-entry", 3)
    (play,) = e.position.legal_plays(*e.dice)
    assert play.steps == ()
    assert check_answer(e, "").correct


def test_higher_die_exercise() -> None:
    e = _exercise("dice-duties", 2)
    plays = e.position.legal_plays(*e.dice)
    assert all(p.dice_used == 1 for p in plays)
    assert check_answer(e, "24/19").rule is Rule.HIGHER_DIE


def test_both_dice_exercise() -> None:
    e = _exercise("dice-duties", 1)
    assert check_answer(e, "24/19").rule is Rule.BOTH_DICE
    assert check_answer(e, "24/18").rule is Rule.BLOCKED


# ---------------------------------------------------------------- the diagnosis, table-driven
def pos(mine: dict[Any, int], theirs: dict[Any, int]) -> Position:
    return Position.from_points(mine, theirs)


START = Position.initial()
BAR_52 = pos({"bar": 1, 24: 1, 13: 5, 8: 3, 6: 5}, {2: 2, 6: 4, 8: 3, 13: 5, 24: 1})
HOME_HIGH = pos({4: 3, 3: 4, 2: 4, 1: 2}, {6: 5, 5: 5, 4: 5})
LAST_OUT = pos({8: 1, 6: 3, 5: 3, 4: 3, 3: 3, 2: 2}, {6: 5, 5: 5, 4: 5})
BLOCKED_RUN = pos({24: 2, 13: 5, 8: 3, 6: 5}, {5: 2, 7: 2, 6: 3, 8: 3, 13: 5})


@pytest.mark.parametrize(
    ("position", "dice", "text", "rule", "point"),
    [
        (START, (3, 1), "8/5 6/5", None, None),
        (START, (3, 1), "8/5 6/5 extra", Rule.NOTATION, None),
        (START, (3, 1), "", Rule.MUST_PLAY, None),
        (START, (3, 1), "8/4 6/5", Rule.DICE, None),
        (START, (3, 1), "24/20 24/23", Rule.DICE, None),
        (START, (3, 1), "7/4 6/5", Rule.NO_CHECKER, 7),
        (START, (3, 1), "13/10 13/12", Rule.BLOCKED, 12),
        (START, (6, 6), "24/12(2)", Rule.BLOCKED, 12),
        (START, (3, 1), "8/5* 6/5", Rule.NO_HIT, 5),
        (START, (3, 1), "8/5", Rule.BOTH_DICE, None),
        (START, (6, 5), "6/off 5/off", Rule.BEAR_OFF_OUTSIDE, 6),
        (BLOCKED_RUN, (6, 4), "24/14", Rule.BLOCKED, 18),
        (BAR_52, (5, 2), "13/11 13/8", Rule.BAR_FIRST, 13),
        (BAR_52, (5, 2), "bar/23 13/8", Rule.BLOCKED, 23),
        (BAR_52, (5, 2), "bar/20 13/11", None, None),
        (HOME_HIGH, (6, 5), "3/off 2/off", Rule.BEAR_OFF_HIGHER, 3),
        (HOME_HIGH, (6, 5), "4/off", Rule.BOTH_DICE, None),
        (LAST_OUT, (6, 2), "6/off 2/off", Rule.BEAR_OFF_OUTSIDE, 6),
        (LAST_OUT, (6, 2), "8/6 6/off", None, None),
    ],
)
def test_diagnose(position: Position, dice: tuple[int, int], text: str, rule: Rule | None, point: int | None) -> None:
    found = diagnose(position, *dice, text)
    if rule is None:
        assert found is None
        return
    assert found is not None
    assert found.rule is rule
    if point is not None:
        assert found.point == point
    assert found.message.en and JAPANESE.search(found.message.ja)


def test_diagnose_ambiguous_and_cannot_play() -> None:
    # 13/5 with 5-3 when both routes hit, one on the 10-point, the other on the 8-point
    position = pos({13: 2, 6: 13}, {15: 1, 17: 1, 1: 13})  # their 15 and 17 = my 10 and 8: blots
    found = diagnose(position, 5, 3, "13/5")
    assert found is not None and found.rule is Rule.AMBIGUOUS
    dance = pos({"bar": 1, 24: 1, 13: 5, 8: 3, 6: 5}, {3: 2, 5: 2, 6: 3, 8: 3, 13: 5})
    found = diagnose(dance, 5, 3, "bar/20")
    assert found is not None and found.rule is Rule.CANNOT_PLAY


def test_feedback_text_combines_rule_and_explanation() -> None:
    e = _exercise("bar-entry", 1)
    feedback = check_answer(e, "13/11 13/8")
    assert feedback.verdict is Verdict.ILLEGAL and feedback.rule is Rule.BAR_FIRST
    en, ja = feedback.text("en"), feedback.text("ja")
    assert "bar" in en and e.wrong.en.rstrip(".") in en
    assert "バー" in ja
    with pytest.raises(InvalidInputError):
        feedback.text("fr")


def test_specific_feedback_for_a_known_wrong_play() -> None:
    e = _exercise("hitting", 1)
    feedback = check_answer(e, "13/7*/6")
    assert feedback.verdict is Verdict.WRONG
    assert "7-point" in feedback.explanation.en and feedback.explanation != e.wrong


def test_answer_of_another_position_is_rejected() -> None:
    e = _exercise("starting-setup", 3)
    other = BAR_52.legal_plays(5, 2)[0]
    with pytest.raises(InvalidInputError):
        check_answer(e, other)
    with pytest.raises(InvalidInputError):
        check_answer(e, 3)  # type: ignore[arg-type]


# ---------------------------------------------------------------- the loader rejects bad files
def _good() -> dict[str, Any]:
    return {
        "format": 1,
        "id": "demo",
        "order": 1,
        "title": {"en": "Demo", "ja": "デモ"},
        "intro": {"en": "Intro", "ja": "はじめに"},
        "exercises": [
            {
                "task": "best",
                "position": "4HPwATDgc/ABMA",
                "dice": [3, 1],
                "prompt": {"en": "Play", "ja": "動かしてください"},
                "answers": ["8/5 6/5"],
                "right": {"en": "Right", "ja": "正解"},
                "wrong": {"en": "Wrong", "ja": "不正解"},
            }
        ],
    }


def _set(doc: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    keys = path.split(".")
    target: Any = doc
    for key in keys[:-1]:
        target = target[int(key)] if isinstance(target, list) else target[key]
    last = keys[-1]
    if value is _DELETE:
        del target[last]
    elif isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return doc


_DELETE = object()


def test_good_document_loads() -> None:
    lesson = parse_lesson(_good(), "demo.json")
    assert lesson.id == "demo" and lesson.source == "demo.json"


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        ("format", 2, "format"),
        ("id", "Bad Id", "id"),
        ("title", _DELETE, "(top)"),
        ("title.ja", "Demo", "title.ja"),
        ("title.ja", "", "title.ja"),
        ("exercises.0.answers.0", "8/4 6/5", "exercises[0].answers[0]"),
        ("exercises.0.answers", [], "exercises[0].answers"),
        ("exercises.0.position", "not-an-id", "exercises[0].position"),
        ("exercises.0.dice", [7, 1], "exercises[0].dice"),
        ("exercises.0.task", "guess", "exercises[0].task"),
        ("exercises.0.extra", 1, "exercises[0]"),
        ("exercises", [], "exercises"),
        ("exercises.0.hints", [{"en": "hint"}], "exercises[0].hints[0]"),
    ],
)
def test_bad_documents_name_file_and_field(path: str, value: Any, field: str) -> None:
    doc = _set(_good(), path, value)
    with pytest.raises(InvalidInputError) as exc:
        parse_lesson(doc, "broken.json")
    message = str(exc.value)
    assert "'broken.json'" in message
    assert f"field {field!r}" in message


def test_feedback_must_be_for_a_wrong_play() -> None:
    doc = _good()
    doc["exercises"][0]["feedback"] = [{"play": "8/5 6/5", "en": "x", "ja": "エックス"}]
    with pytest.raises(InvalidInputError, match=r"exercises\[0\]\.feedback\[0\]\.play"):
        parse_lesson(doc, "f.json")


def test_directory_loading_errors(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(json.dumps(_good()), encoding="utf-8")
    assert [lesson.id for lesson in load_lessons(tmp_path)] == ["demo"]
    (tmp_path / "b.json").write_text(json.dumps(_good()), encoding="utf-8")
    with pytest.raises(InvalidInputError, match="already used"):
        load_lessons(tmp_path)
    (tmp_path / "b.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(InvalidInputError, match=r"'b\.json': not valid JSON"):
        load_lessons(tmp_path)
    with pytest.raises(InvalidInputError, match="cannot read"):
        load_lesson_file(tmp_path / "missing.json")


def test_unknown_lesson() -> None:
    with pytest.raises(InvalidInputError, match="unknown lesson"):
        get_lesson("nope")


# ---------------------------------------------------------------- command line
def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_lessons(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["lessons", "--lang", "ja"], capsys)
    assert code == 0 and "クロフォード" in out and "bar-entry" in out
    code, out, _ = run(["lesson", "bar-entry"], capsys)
    assert code == 0 and "Position ID: hufgAyDgc/ABUA" in out
    code, out, _ = run(["lesson-check", "bar-entry", "1", "bar/20 13/11"], capsys)
    assert code == 0 and out.startswith("right")
    code, out, _ = run(["lesson-check", "bar-entry", "1", "13/11 13/8", "--lang", "ja"], capsys)
    assert code == 1 and "バー" in out
    code, out, _ = run(["lesson-check", "cube", "2", "1"], capsys)
    assert code == 0
    for argv in (
        ["lesson-check", "cube", "2", "9"],
        ["lesson-check", "cube", "9", "1"],
        ["lesson-check", "nope", "1", "1"],
        ["lessons", "--lang", "fr"],
    ):
        code, _, err = run(argv, capsys)
        assert code == 2 and err.startswith("error: "), argv


@pytest.mark.parametrize(
    ("position", "dice", "text", "parts"),
    [
        (START, (3, 1), "8/5 6/5", ["makes the 5-point"]),
        (START, (3, 1), "24/20", ["leaves blots on 24, 20"]),
        (HOME_HIGH, (6, 5), "4/off(2)", ["bears off 2 checkers", "leaves blots on 4"]),
        (
            pos({24: 2, 13: 5, 8: 3, 6: 5}, {6: 5, 8: 3, 13: 4, 18: 1, 24: 2}),
            (6, 1),
            "13/7* 8/7",
            ["hits 1 checker", "makes the 7-point"],
        ),
    ],
)
def test_describe_play(position: Position, dice: tuple[int, int], text: str, parts: list[str]) -> None:
    from backgammon.lessons import describe_play
    from backgammon.notation import parse_play

    summary = describe_play(parse_play(position, *dice, text))
    assert summary.en.startswith(f"legal play {text}")
    for part in parts:
        assert part in summary.en
    assert JAPANESE.search(summary.ja)


def test_feedback_summary() -> None:
    e = _exercise("hitting", 1)
    feedback = check_answer(e, "24/18 6/5")
    assert feedback.verdict is Verdict.WRONG
    assert feedback.summary is not None and "leaves blots on 24, 18, 5" in feedback.summary.en
    assert check_answer(e, "13/7 7/3 2/1").summary is None  # illegal: no play
