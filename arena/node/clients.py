"""Client addresses as the node's limits per address see them, and counts of what each holds.

An IPv4 address is one client. An IPv6 host usually gets a whole /64 from its network, so one
client is one /64 (else every host could present 2^64 addresses). An IPv4-mapped IPv6 address
(a dual-stack listener's view of an IPv4 client) is its IPv4 address.
"""

from __future__ import annotations

import collections
import ipaddress


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
