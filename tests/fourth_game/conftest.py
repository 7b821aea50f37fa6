"""Every test here plays countdown13, registered for the test's duration only."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fourth_game.countdown import registered


@pytest.fixture(autouse=True)
def countdown_registered() -> Iterator[None]:
    with registered():
        yield
