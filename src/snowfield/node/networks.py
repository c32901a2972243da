"""Well-known ids of the networks the devnet can pose as."""

from __future__ import annotations

from dataclasses import dataclass

PRIMARY_NETWORK = "11111111111111111111111111111111LpoYY"


@dataclass(frozen=True, slots=True)
class NetworkIds:
    network_id: int
    c_chain: str
    x_chain: str
    avax_asset: str
    primary_subnet: str = PRIMARY_NETWORK


_KNOWN = {
    1: NetworkIds(
        1,
        "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5",
        "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM",
        "FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z",
    ),
    5: NetworkIds(
        5,
        "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp",
        "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm",
        "U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK",
    ),
}
_LOCAL = NetworkIds(
    12345,
    "2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC",
    "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed",
    "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe",
)


POSED = frozenset(_KNOWN)  # the network ids the devnet poses as, with their well-known ids


def network_ids(network_id: int) -> NetworkIds:
    known = _KNOWN.get(network_id)
    if known is not None:
        return known
    return NetworkIds(network_id, _LOCAL.c_chain, _LOCAL.x_chain, _LOCAL.avax_asset)
