"""The one exception type for bad input."""


class FciError(ValueError):
    """A user-facing error: bad input, with a one-line message naming the problem."""
