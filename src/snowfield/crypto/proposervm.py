"""ProposerVM blocks checked as avalanchego's `block.Parse(bytes, chainID)` checks them: a
signed block's certificate must be a valid staking certificate and its signature must be the
certificate key's over the block's header for `chainID`; an unsigned block carries no
signature; and, in `verify()` (not in parsing, as avalanchego splits them), a Granite block
(type 2) must name its P-Chain epoch (an all-zero epoch is refused).

formats.proposervm parses; this module holds what needs the staking keys.

Public API: `parse_verified(data, chain_id)`, `verify(block, chain_id)`.
"""

from __future__ import annotations

from snowfield.crypto.staking import certificate_error, signature_failure, verify_signature
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID
from snowfield.formats.proposervm import (
    Epoch,
    ProposerBlock,
    StatelessBlock,
    parse,
    signing_header,
)

ZERO_EPOCH = Epoch(0, 0, 0)


def parse_verified(data: bytes, chain_id: ID) -> ProposerBlock:
    """The block in `data`, verified for the chain `chain_id`; InvalidParams otherwise."""
    block = parse(data)
    verify(block, chain_id)
    return block


def verify(block: ProposerBlock, chain_id: ID) -> None:
    """avalanchego's statelessBlock.verify (options carry nothing to verify)."""
    if not isinstance(block, StatelessBlock):
        return
    # avalanchego parses the certificate while parsing the block, then verifies: same order.
    problem = certificate_error(block.certificate) if block.certificate else None
    if problem is not None:
        raise InvalidParams(f"invalid certificate: {problem}")
    if block.epoch is not None and block.epoch == ZERO_EPOCH:
        raise InvalidParams("epoch must be provided after granite")
    if not block.certificate:
        if block.signature:
            raise InvalidParams("signature provided when none was expected")
        return
    header = signing_header(chain_id, block.parent_id, block.id)
    if not verify_signature(block.certificate, header, block.signature):
        raise InvalidParams(signature_failure(block.certificate))
