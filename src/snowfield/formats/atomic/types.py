"""The atomic codec's type registry: coreth numbers its txs 0-1 and reuses secp256k1fx's ids."""

from __future__ import annotations

from snowfield.formats.platform.secp256k1fx import (
    Credential,
    Input,
    OutputOwners,
    TransferInput,
    TransferOutput,
)
from snowfield.formats.registry import Encodable, TypeRegistry

ATOMIC_TYPES = TypeRegistry("atomic")
# Same ids as in the platformvm codec (coreth registers 2-4, 6 and 8 as skipped slots), so the
# very classes serve both codecs: a UTXO exported by C decodes on P and back.
for _cls in (TransferInput, TransferOutput, Credential, Input, OutputOwners):
    ATOMIC_TYPES.register(_cls.type_id)(_cls)


class UnsignedAtomicTx(Encodable):
    """An ImportTx or ExportTx of the C-Chain."""

    __slots__ = ()
