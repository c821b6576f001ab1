"""Small pieces of English for messages."""


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 cell``, ``2 cells``: the count with the word in the right number."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"
