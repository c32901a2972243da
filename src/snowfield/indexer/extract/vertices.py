"""X-Chain vertex rows from containers of `/ext/index/X/vtx`. Pure: bytes in, rows out."""

from __future__ import annotations

from snowfield.formats.vertex import decode_vertex
from snowfield.store.primary_rows import VertexRow


def vertex_row(index: int, container_id: str, data: bytes, accepted_ns: int) -> VertexRow:
    """The row of one accepted vertex; its time is when the node accepted it (vertices carry
    none of their own)."""
    vertex = decode_vertex(data)
    return VertexRow(
        index,
        container_id,
        vertex.height,
        accepted_ns // 1_000_000_000,
        tuple(str(p) for p in vertex.parent_ids),
        tuple(str(t) for t in vertex.tx_ids),
        len(data),
    )
