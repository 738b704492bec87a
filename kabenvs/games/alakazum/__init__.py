"""Alakazum! (env id ``alakazum_v0``): rules in rules.py, card data in cards.csv, docs in
docs/games/alakazum.md."""

from kabenvs.games.alakazum.cards import CardSet, load_cards
from kabenvs.games.alakazum.rules import AlakazumConfig, AlakazumGame, AlakazumState

GAME = AlakazumGame

__all__ = ["GAME", "AlakazumConfig", "AlakazumGame", "AlakazumState", "CardSet", "load_cards"]
