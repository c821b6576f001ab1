"""The one exception type for bad input."""


class FciError(ValueError):
    """A user-facing error: bad input, with a one-line message naming the problem."""


def read_user_text(path, what: str) -> str:
    """The text of a user's file (``-`` is stdin), or an :class:`FciError` naming the file and the problem."""
    import sys
    from pathlib import Path

    if str(path) == "-":
        if sys.stdin is None:
            raise FciError(f"standard input is closed: there is no {what} to read from it")
        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise FciError(f"cannot read {what} {str(path)!r}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise FciError(f"{what} {str(path)!r} is not text") from None
