"""The one way the service says no: a :class:`Refusal` with an HTTP status and one line."""

from __future__ import annotations

__all__ = ["Refusal"]


class Refusal(Exception):
    """A request refused; ``status`` is the HTTP status, ``str()`` the one-line reason."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
