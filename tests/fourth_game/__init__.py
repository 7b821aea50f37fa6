"""A fourth game, registered by the tests only: proof that a game is one package."""
