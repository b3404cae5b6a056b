"""Errors of the application layer that front ends show as they are."""


class NoProjectError(RuntimeError):
    """An action needs an open project and none is open."""
