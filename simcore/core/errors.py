"""Errors meant for users: the CLI and the dashboard show their message, never a traceback."""


class UserError(ValueError):
    """Bad input or settings, with a message that says what, where and why."""
