"""The validators list's answers kept by their arguments for one store generation
(p_validator_generation, which the writer moves with every block, chain time and observation):
a page asked again before the next change is one small read, not the page's.

Why on top of the stored entries (store/validator_documents.py): with them a page is one index
range joined as text, but the handler still cost more than the framework around it (the chain
time and page queries, the page token signed again): 34-57% of the hello world in
bench/primary_validators.py; with these answers 33-73% (median 53%) in the same sessions (the
machine's noise), the handler at the framework's floor in-process. A cold answer after a change
costs one stored-entry page.

Each process keeps its own, per database object and P-Chain. Only answers computed from a
generation still current when they are done are kept (a PostgreSQL read may interleave with a
writer's commit); an answer read after the generation moved is newer, never older, than it."""

from __future__ import annotations

import weakref
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from snowfield.api.operation import Context, Json
from snowfield.api.primary.primary_network import indexed_network
from snowfield.store import validator_documents
from snowfield.store.database import Database
from snowfield.store.primary import PrimaryNetwork

BUDGET = 16 * 2**20  # bytes of answers kept per P-Chain at most (arguments are unbounded)
Answer = Callable[[Context, PrimaryNetwork], Awaitable[Json]]


class _Kept:
    """The answers of one generation, as their fields' JSON (bytes, counted against BUDGET)."""

    def __init__(self) -> None:
        self.generation = -1
        self.answers: dict[Any, Json] = {}
        self.size = 0

    def keep(self, key: Any, answer: Json) -> None:
        parts = {name: orjson.dumps(value) for name, value in answer.items()}
        size = sum(len(part) for part in parts.values())
        if self.size + size > BUDGET:
            self.answers, self.size = {}, 0
        self.answers[key] = {name: orjson.Fragment(part) for name, part in parts.items()}
        self.size += size


_KEPT: weakref.WeakKeyDictionary[Database, dict[str, _Kept]] = weakref.WeakKeyDictionary()


async def kept(ctx: Context, operation: str, answer: Answer) -> Json:
    """`answer`'s answer to this request, computed once per store generation. A page token
    that failed to decode raised before an answer was kept: a kept one was valid (its MAC
    binds the same arguments)."""
    net = await indexed_network(ctx)
    generation = await ctx.run(validator_documents.generation, ctx.db, net.pchain)
    mine = _KEPT.setdefault(ctx.db, {}).setdefault(net.pchain, _Kept())
    if generation != mine.generation:
        mine.generation, mine.answers, mine.size = generation, {}, 0
    key = (operation, tuple(sorted((name, repr(value)) for name, value in ctx.args.items())))
    found = mine.answers.get(key)
    if found is not None:
        return dict(found)  # the caller's own
    computed = await answer(ctx, net)
    if generation == mine.generation:  # still current: no change committed in between
        mine.keep(key, computed)
    return computed
