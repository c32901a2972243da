"""Where deliveries may go: a webhook URL's host is resolved at each send and every address it
resolves to is checked, so no tenant can make the service call internal addresses (cloud
metadata at 169.254.169.254, private ranges, loopback) by name or by DNS tricks at create time.

Default: public unicast addresses only. The operator's allow list (CIDRs) opens ranges again (the
devnet's `snowfield up` allows loopback for local receivers); the deny list closes more."""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class Refused(Exception):
    """Raised when a URL's host is, or resolves to, an address the policy refuses."""


def networks(cidrs: Sequence[str]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(c.strip(), strict=False) for c in cidrs if c.strip())


def _internal(address: Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return _internal(address.ipv4_mapped)
    return (
        address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
        or not address.is_global
    )


@dataclass(frozen=True, slots=True)
class UrlPolicy:
    allow: tuple[Network, ...] = ()
    deny: tuple[Network, ...] = ()

    def permits(self, address: Address) -> bool:
        if any(address in n for n in self.deny):
            return False
        if any(address in n for n in self.allow):
            return True
        return not _internal(address)

    async def check(self, url: str) -> None:
        """Raises Refused unless every address the URL's host resolves to is permitted."""
        parts = urlsplit(url)
        host = parts.hostname
        if parts.scheme not in ("http", "https") or not host:
            raise Refused("not an http(s) URL")
        literal = _literal(host)
        if literal is not None:  # nothing to resolve: the same answer every time
            if not _permitted(self, literal):
                raise Refused(f"{host} resolves to {literal}, which the URL policy refuses")
            return
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(
                host, parts.port or 443, type=socket.SOCK_STREAM
            )
        except OSError as exc:
            raise Refused(f"cannot resolve {host}: {exc}") from None
        found = {ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos}
        refused = sorted(str(a) for a in found if not _permitted(self, a))
        if refused:
            raise Refused(f"{host} resolves to {', '.join(refused)}, which the URL policy refuses")


# A fan-out sends many messages to few addresses, and ipaddress's range tests are slow (each
# walks lists of networks): the decisions are cached per address, never per host name (a name
# is resolved again at each send).
@functools.lru_cache(maxsize=4096)
def _literal(host: str) -> Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


@functools.lru_cache(maxsize=4096)
def _permitted(policy: UrlPolicy, address: Address) -> bool:
    return policy.permits(address)
