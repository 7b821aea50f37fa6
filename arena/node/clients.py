"""Client addresses as the node's limits per address see them, counts of what each holds, and the
wrong tokens each presented (the gRPC edge and the web UI's sign-in slow them alike).

An IPv4 address is one client. An IPv6 host usually gets a whole /64 from its network, so one
client is one /64 (else every host could present 2^64 addresses). An IPv4-mapped IPv6 address
(a dual-stack listener's view of an IPv4 client) is its IPv4 address.
"""

from __future__ import annotations

import collections
import ipaddress
import math
from dataclasses import dataclass

from arena.node.sessions import TokenBucket


def client_address(host: str) -> str:
    """The client that `host` (an IP address as a socket reports it) stands for."""
    try:
        address = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network(f"{address}/64", strict=False))
    return str(address)


class AddressCounts:
    """How many of something (connections, streams) each client address holds, capped per address and in total."""

    def __init__(self, per_address: int, total: int) -> None:
        self.per_address = per_address
        self.total = total
        self._held: collections.Counter[str] = collections.Counter()
        self._sum = 0

    def held(self, address: str | None = None) -> int:
        """What `address` holds, or (None) everyone."""
        return self._sum if address is None else self._held[address]

    def take(self, address: str) -> str:
        """Count one more for `address`; returns "" when it fits, else the cap it would pass ("address" or "total")."""
        if self._held[address] >= self.per_address:
            return "address"
        if self._sum >= self.total:
            return "total"
        self._held[address] += 1
        self._sum += 1
        return ""

    def give_back(self, address: str) -> None:
        self._held[address] -= 1
        self._sum -= 1
        if self._held[address] <= 0:
            del self._held[address]


@dataclass(frozen=True)
class PeerLimits:
    """What one client address may do on the gRPC edge."""

    wrong_tokens: int = 10
    """Wrong tokens an address may present at once before it must wait ..."""
    wrong_token_seconds: float = 6.0
    """... and how many seconds it then waits for each further try (10 a minute)."""
    addresses: int = 10_000
    """Addresses whose wrong tokens are remembered, least recently wrong forgotten first."""
    watches_per_address: int = 16
    """Live WatchMatch and WatchTournament streams of one address at once."""
    watches: int = 1024
    """Live watch streams of the node at once."""


class WrongTokens:
    """Wrong tokens per address, as token buckets in a bounded table (least recently wrong dropped first)."""

    def __init__(self, limits: PeerLimits) -> None:
        self.limits = limits
        self._buckets: collections.OrderedDict[str, TokenBucket] = collections.OrderedDict()

    def __len__(self) -> int:
        return len(self._buckets)

    def wait(self, address: str) -> float:
        """Seconds `address` must wait before its next token is looked at (0: now)."""
        bucket = self._buckets.get(address)
        if bucket is None:
            return 0.0
        if bucket.full():  # forgiven: nothing wrong for a whole refill
            del self._buckets[address]
            return 0.0
        return bucket.wait()

    def failed(self, address: str) -> None:
        bucket = self._buckets.get(address)
        if bucket is None:
            bucket = TokenBucket(1.0 / self.limits.wrong_token_seconds, float(self.limits.wrong_tokens))
            self._buckets[address] = bucket
            while len(self._buckets) > self.limits.addresses:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(address)
        bucket.take()

    def refusal(self, wait: float) -> str:
        return (
            f"too many wrong tokens from this address; wait {math.ceil(wait)} s "
            f"(then one try each {self.limits.wrong_token_seconds:.0f} s until it stops failing)"
        )
