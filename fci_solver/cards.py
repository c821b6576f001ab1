"""The card table: what each land card is called and what its ability does.

Cards are data so that a ruling can change without touching an engine.  The
table shipped with the package is ``fci_solver/data/cards.json``; a user table
in the same format is loaded with :func:`load_cards`.  Ability kinds:

``none``
    no ability.
``move``
    move ``count`` stacks (default 1), one after the other, each to an open
    cell at Manhattan distance ``min..max`` (``max: null`` means anywhere).
    ``who`` is ``any`` (any stack, the predator's included) or ``self`` (the
    predator's stack only).  With ``count`` > 1 the stacks must differ.
``discard``
    discard one unstacked animal from the map.
``swap``
    swap the cells of two different stacks.
``pending``
    set a pending ``effect`` that changes the next turn's eat (one of
    :data:`EFFECTS`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from .errors import FciError, read_user_text

#: Pending effects, in the fixed order that engines use as small integers
#: (0 means no pending effect).
EFFECTS = ("fox", "lynx", "tiger", "caiman", "lion", "raccoon", "bear")
ABILITIES = ("none", "move", "discard", "swap", "pending")
#: What each pending effect does to the next turn, for people.
EFFECT_TEXT = {
    "fox": "the eat must be diagonal",
    "lynx": "the eat jumps: two cells away in a straight line, over a stack",
    "tiger": "the eat reaches exactly 2 cells away, by any path",
    "caiman": "the prey's stack goes under the predator, which stays where it is",
    "lion": "the predator must be exactly 1 above its prey",
    "raccoon": "an eat by exactly 1 also discards an unstacked animal",
    "bear": "the Polar Bear (15) may not eat",
}
N_CARDS = 16


@dataclass(frozen=True)
class Card:
    """One land card: its value (0..15), name and ability."""

    value: int
    name: str
    ability: str = "none"
    who: str = "any"
    min: int = 1
    max: int | None = 1
    count: int = 1
    effect: str | None = None

    def describe(self) -> str:
        """The ability in a few words, for listings and rule docs."""
        if self.ability == "move":
            whom = "its own stack" if self.who == "self" else "a stack"
            if self.count > 1:
                whom = f"{self.count} different stacks"
            if self.max is None:
                how = "to any open cell"
            elif self.min == self.max:
                how = f"exactly {self.min} cell{'s' if self.min > 1 else ''}"
            else:
                how = f"{self.min}-{self.max} cells"
            return f"move {whom} {how}"
        if self.ability == "discard":
            return "discard an unstacked animal"
        if self.ability == "swap":
            return "swap two stacks"
        if self.ability == "pending":
            return f"next turn, {EFFECT_TEXT.get(self.effect, self.effect)}"
        return "no ability"


@dataclass(frozen=True)
class CardTable:
    """All 16 cards, indexed by value."""

    name: str
    cards: tuple[Card, ...]

    def __getitem__(self, value: int) -> Card:
        return self.cards[value]

    def __iter__(self):
        return iter(self.cards)

    def __len__(self) -> int:
        return len(self.cards)

    def plain(self) -> "CardTable":
        """The same cards with every ability off (the *plain* variant)."""
        return CardTable("plain", tuple(Card(c.value, c.name) for c in self.cards))

    def effect_of(self, value: int) -> str | None:
        card = self.cards[value]
        return card.effect if card.ability == "pending" else None


def _card_from_dict(d: dict, where: str) -> Card:
    if not isinstance(d, dict):
        raise FciError(f"{where}: each card must be a JSON object")
    unknown = set(d) - {"value", "name", "ability", "who", "min", "max", "count", "effect"}
    if unknown:
        raise FciError(f"{where}: unknown card field {sorted(unknown)[0]!r}")
    value = d.get("value")
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < N_CARDS:
        raise FciError(f"{where}: card value must be an integer 0..15, got {value!r}")
    name = d.get("name", f"Card {value}")
    if not isinstance(name, str) or not name:
        raise FciError(f"{where}: card {value} needs a non-empty name")
    ability = d.get("ability", "none")
    if ability not in ABILITIES:
        raise FciError(f"{where}: card {value} has unknown ability {ability!r} (one of {', '.join(ABILITIES)})")
    who = d.get("who", "any")
    if who not in ("any", "self"):
        raise FciError(f"{where}: card {value}: 'who' must be 'any' or 'self'")
    lo = d.get("min", 1)
    hi = d.get("max", lo)
    count = d.get("count", 1)
    for label, x in (("min", lo), ("count", count)):
        if not isinstance(x, int) or isinstance(x, bool) or x < 1:
            raise FciError(f"{where}: card {value}: {label!r} must be a positive integer")
    if hi is not None and (not isinstance(hi, int) or isinstance(hi, bool) or hi < lo):
        raise FciError(f"{where}: card {value}: 'max' must be null or an integer >= min")
    if ability == "move" and who == "self" and count != 1:
        raise FciError(f"{where}: card {value}: a 'self' move has count 1")
    effect = d.get("effect")
    if ability == "pending" and effect not in EFFECTS:
        raise FciError(f"{where}: card {value} has unknown effect {effect!r} (one of {', '.join(EFFECTS)})")
    if ability != "pending":
        effect = None
    if ability != "move":
        who, lo, hi, count = "any", 1, 1, 1
    return Card(value, name, ability, who, lo, hi, count, effect)


def parse_cards(text: str, where: str = "card table") -> CardTable:
    """Parse a card table from JSON text (an object with ``cards``, or a bare list)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise FciError(f"{where}: not valid JSON ({e.msg} at line {e.lineno})") from None
    name = "custom"
    if isinstance(data, dict):
        name = str(data.get("name", name))
        data = data.get("cards")
    if not isinstance(data, list):
        raise FciError(f"{where}: expected a list of cards")
    cards = [_card_from_dict(d, where) for d in data]
    values = sorted(c.value for c in cards)
    if values != list(range(N_CARDS)):
        missing = sorted(set(range(N_CARDS)) - set(values))
        if missing:
            raise FciError(f"{where}: card {missing[0]} is missing (need each of 0..15 once)")
        raise FciError(f"{where}: a card value appears twice (need each of 0..15 once)")
    return CardTable(name, tuple(sorted(cards, key=lambda c: c.value)))


def standard_cards() -> CardTable:
    """The card table shipped with the package."""
    text = resources.files("fci_solver.data").joinpath("cards.json").read_text(encoding="utf-8")
    return parse_cards(text, "built-in card table")


def load_cards(path: str | Path) -> CardTable:
    """Load a user card table from a JSON file."""
    text = read_user_text(path, "card file")
    return parse_cards(text, f"card file {str(path)!r}")


def resolve_cards(path: str | Path | None = None, plain: bool = False) -> CardTable:
    """The card table for a run: a user file or the built-in table, optionally plain."""
    table = load_cards(path) if path else standard_cards()
    return table.plain() if plain else table
