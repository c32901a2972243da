"""`snowfield relayer`: ICM messages carried between a node's EVM chains."""

from __future__ import annotations

from pathlib import Path

from snowfield.cli.options import settings_command
from snowfield.cli.service import console, fail, run_service, stop_event
from snowfield.config import RelayerSettings


@settings_command(RelayerSettings)
def relayer(settings: RelayerSettings) -> None:
    """Relay ICM messages between a node's EVM chains (the C-Chain and its L1s).

    It follows SendCrossChainMessage, has the validators sign over the peer-to-peer network
    and delivers with receiveCrossChainMessage: each message once, across restarts."""
    if not settings.key:
        fail("--key (or SNOWFIELD_RELAYER_KEY) is required", 2)
    run_service(settings, _run_relayer)


async def _run_relayer(settings: RelayerSettings) -> None:
    from snowfield.crypto.keys import key_from_bytes
    from snowfield.workload.icm_relayer import Relayer, chains_alias, discover_chains

    assert settings.key is not None  # the command refuses to start without one
    secret = bytes.fromhex(settings.key.removeprefix("0x"))
    reward = settings.reward_address or key_from_bytes(secret).checksum_address
    chains = await discover_chains(settings.node_url)
    if settings.chain:
        named = {chains_alias(c, chains) for c in settings.chain}
        unknown = sorted(named - set(chains))
        if unknown:
            fail(f"no EVM chain {', '.join(unknown)} on the node", 2)
        chains = {c: url for c, url in chains.items() if c in named}
    state = Path(settings.state_file)
    state.parent.mkdir(parents=True, exist_ok=True)
    relay = Relayer(
        chains,
        settings.node_url,
        secret,
        reward,
        state,
        discover=None if settings.chain else lambda: discover_chains(settings.node_url),
    )
    stop = stop_event()
    console.print(f"Relayer: {len(chains)} chains of {settings.node_url}, rewards to {reward}")
    try:
        await relay.run(settings.interval, stop)
    finally:
        await relay.close()
