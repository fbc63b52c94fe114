"""Lessons you play: a few sentences, then a position on the real table where you must act.

Each :class:`Lesson` is data (see :mod:`.catalogue`): its words, a position (a
:class:`~.positions.Setup`, made into a game record the engine replays), the actions that are
right, and one sentence for each kind of answer.  The engine judges every try: an action it
refuses is explained (that is how a tap on a dimmed card says why), a legal action is played
on a copy of the position and the table shows what followed — the rest of the trick, or the
rest of the hand when the lesson is about the score.  The browser never decides a rule.

A lesson also states what the engine must agree with — which cards may be played, who wins the
trick after each answer, what the hand scores — and ``tests/test_lessons.py`` checks each of
those claims against the engine, so a lesson cannot teach a rule the engine does not play.

>>> first = LESSONS[0]
>>> answer = attempt(first, "AH")
>>> answer.right, answer.text
(True, 'Right: you followed with a heart, and your A♥ is the highest heart, so the trick is yours.')
>>> attempt(first, "KS").legal
False
"""

from __future__ import annotations

from .catalogue import LESSONS
from .positions import Setup, SetupError, build
from .teach import NAMES, Attempt, Lesson, LessonError, attempt, start

__all__ = [
    "LESSONS", "Lesson", "Attempt", "LessonError", "Setup", "SetupError", "NAMES", "attempt",
    "build", "lesson_by_id", "start",
]


def lesson_by_id(lesson_id: str) -> Lesson:
    """The lesson with this id (:class:`KeyError` if there is none)."""
    for lesson in LESSONS:
        if lesson.id == lesson_id:
            return lesson
    raise KeyError(lesson_id)
