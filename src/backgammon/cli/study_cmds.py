"""Study subcommands: ``verify-dice``, ``dice-stats``, ``lessons``, ``lesson``, ``lesson-check``."""

from __future__ import annotations

import json

import typer

from backgammon.errors import InvalidInputError


def verify_dice(
    seed: str = typer.Option(..., "--seed", help="the revealed seed, 64 hex digits"),
    commitment: str = typer.Option(..., "--commitment", help="the commitment published before the game, 64 hex digits"),
    game_id: str = typer.Option(..., "--game-id", help="the game id the dice were drawn for"),
    rolls: str | None = typer.Option(None, "--rolls", help='the rolls the game recorded, e.g. "31 52 66"'),
    count: int | None = typer.Option(None, "--count", help="how many draws to recompute (default: as many as --rolls)"),
    as_json: bool = typer.Option(False, "--json", help="print JSON"),
) -> int:
    """Recompute a game's dice from its revealed seed and check them (exit 1 on a mismatch)."""
    from backgammon.fairdice import format_rolls, verify

    if rolls is None and count is None:
        raise InvalidInputError("nothing to check: give --rolls, --count or both")
    result = verify(seed, commitment, game_id, rolls or (), count)
    if as_json:
        doc = {
            "ok": result.ok,
            "commitment_ok": result.commitment_ok,
            "rolls": [list(r) for r in result.expected],
            "mismatch": None
            if result.mismatch is None
            else {
                "index": result.mismatch.index,
                "claimed": list(result.mismatch.claimed),
                "expected": list(result.mismatch.expected),
            },
            "message": result.message(),
        }
        print(json.dumps(doc))
    else:
        print(f"rolls: {format_rolls(result.expected)}")
        print(result.message())
    return 0 if result.ok else 1


def dice_stats(
    rolls: str = typer.Argument(..., help='the rolls of one player, e.g. "31 52 66 ..."'),
    as_json: bool = typer.Option(False, "--json", help="print JSON"),
) -> None:
    """Compare one player's rolls with what fair dice give (chi-squared tests)."""
    from backgammon.dicestats import dice_report
    from backgammon.fairdice import parse_rolls

    parsed = parse_rolls(rolls)
    if not parsed:
        raise InvalidInputError("no rolls given: expected one player's rolls, e.g. '31 52 66'")
    report = dice_report(parsed)
    if as_json:
        print(json.dumps(report.as_dict()))
    else:
        print(report.table())


def lessons_list(
    lang: str = typer.Option("en", "--lang", help="en or ja"),
) -> None:
    """List the shipped lessons."""
    from backgammon.lessons import load_lessons

    lang = _check_lang(lang)
    for lesson in load_lessons():
        print(f"{lesson.id:<24} {len(lesson.exercises):>2}  {lesson.title[lang]}")


def lesson_check(
    lesson_id: str = typer.Argument(..., help="lesson id, as listed by 'backgammon lessons'"),
    exercise: int = typer.Argument(..., help="exercise number, from 1"),
    answer: str = typer.Argument(..., help="your play, e.g. '24/18 13/11', or the choice number"),
    lang: str = typer.Option("en", "--lang", help="en or ja"),
) -> int:
    """Check an answer to a lesson exercise (exit 1 when it is wrong)."""
    from backgammon.lessons import ChoiceExercise, check_answer, get_lesson

    lang = _check_lang(lang)
    lesson = get_lesson(lesson_id)
    if not 1 <= exercise <= len(lesson.exercises):
        raise InvalidInputError(
            f"invalid exercise {exercise!r}: lesson {lesson_id!r} has exercises 1..{len(lesson.exercises)}"
        )
    chosen = lesson.exercises[exercise - 1]
    given: str | int = answer
    if isinstance(chosen, ChoiceExercise):
        if not answer.strip().isdigit() or not 1 <= int(answer) <= len(chosen.choices):
            raise InvalidInputError(
                f"invalid answer {answer!r}: expected a choice number from 1 to {len(chosen.choices)}"
            )
        given = int(answer) - 1
    feedback = check_answer(chosen, given)
    print(("right: " if feedback.correct else "wrong: ") + feedback.text(lang))
    if not feedback.correct and feedback.summary is not None:
        print(feedback.summary[lang])
    return 0 if feedback.correct else 1


def lesson_show(
    lesson_id: str = typer.Argument(..., help="lesson id, as listed by 'backgammon lessons'"),
    lang: str = typer.Option("en", "--lang", help="en or ja"),
) -> None:
    """Print a lesson: its introduction and exercises (boards for play exercises)."""
    from backgammon.lessons import ChoiceExercise, get_lesson
    from backgammon.render import ascii_board

    lang = _check_lang(lang)
    lesson = get_lesson(lesson_id)
    print(lesson.title[lang])
    print()
    print(lesson.intro[lang])
    for number, exercise in enumerate(lesson.exercises, 1):
        print()
        print(f"{number}. {exercise.prompt[lang]}")
        if isinstance(exercise, ChoiceExercise):
            if exercise.position is not None:
                print(ascii_board(exercise.position))
            for k, choice in enumerate(exercise.choices, 1):
                print(f"   {k}) {choice[lang]}")
        else:
            print(ascii_board(exercise.position))
            print(f"dice: {exercise.dice[0]}-{exercise.dice[1]}")


def _check_lang(lang: str) -> str:
    if lang not in ("en", "ja"):
        raise InvalidInputError(f"invalid language {lang!r}: expected 'en' or 'ja'")
    return lang


def register(app: typer.Typer) -> None:
    app.command("verify-dice")(verify_dice)
    app.command("dice-stats")(dice_stats)
    app.command("lessons")(lessons_list)
    app.command("lesson")(lesson_show)
    app.command("lesson-check")(lesson_check)
