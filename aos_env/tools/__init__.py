"""Tools on top of the engine: ``positions`` (set up a position by hand), ``determinise`` (deal the
hidden cards anew, for search) and ``docs`` (writes docs/cards.md from the card data)."""
