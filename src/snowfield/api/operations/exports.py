"""Transaction exports: POST /v1/operations/transactions:export starts a job (201), GET
/v1/operations/{operationId} tells its status, and the file is served at the job's
`metadata.downloadUrl` (GET /v1/operations/{operationId}/download?token=…, not an operation of
the real service: its files are presigned links to a bucket; ours are in the store).

A job is visible to the API key that created it (anonymous jobs to anyone holding the id, a
random UUID); the download URL carries its own random token, so it works without a key, as
the real service's links do."""

from __future__ import annotations

import hmac
import re
import secrets
import uuid
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import parse_qsl

from starlette.types import Scope, Send

from snowfield.api.errors import send_error
from snowfield.api.operation import Context, Json, Operation, call_store
from snowfield.api.operations.export_primary import PRIMARY, create_primary
from snowfield.api.operations.export_request import dates, strings
from snowfield.api.params import Param
from snowfield.api.responses import Endpoint, Headers
from snowfield.errors import Forbidden, InvalidParams, NotFound
from snowfield.store import chain_queries, export_jobs
from snowfield.store.database import Database
from snowfield.store.export_jobs import ExportJob
from snowfield.store.keys import ApiKey

EVM = "TRANSACTION_EXPORT_EVM"
MAX_ADDRESSES = 100
MAX_CHAINS = 10
DOWNLOAD_PATH = "/v1/operations/{operationId}/download"
_ADDRESS = re.compile(r"0[xX][0-9a-fA-F]{40}")

OPERATION_ID = Param(
    "operationId",
    "path",
    "The operationId the export's creation answered (a UUID).",
    required=True,
)


def evm_request(body: Mapping[str, Any]) -> dict[str, Any]:
    """The EVM export request, checked and normalised (deprecated date names → new ones)."""
    span, options = dates(body, "{addresses, includeChains}")
    extra = sorted(set(options) - {"addresses", "includeChains"})
    if extra:
        raise InvalidParams(f"unknown field options.{extra[0]}")
    addresses = strings(options, "addresses", MAX_ADDRESSES)
    bad = next((a for a in addresses if not _ADDRESS.fullmatch(a)), None)
    if bad is not None:
        raise InvalidParams("options.addresses must be EVM addresses (0x and 40 hex digits)")
    chains = strings(options, "includeChains", MAX_CHAINS)
    addresses = list(dict.fromkeys(a.lower() for a in addresses))
    return {"type": EVM, **span, "options": {"addresses": addresses, "includeChains": chains}}


def _check_chains(db: Database, refs: list[str], key: ApiKey | None) -> None:
    for ref in refs:
        found = chain_queries.find_chain(db, ref)
        if found is None:
            raise NotFound(f"chain {ref} is not supported")
        if key is not None and not key.allows(found.chain_id):
            raise Forbidden(f"this API key may not query chain {ref}")


def status_body(job: ExportJob, public_url: str) -> Json:
    """The OperationStatusResponse of a job."""
    out: Json = {
        "operationId": job.id,
        "operationType": job.kind,
        "operationStatus": job.status,
    }
    if job.status == "RUNNING":
        total = "?" if job.rows_total is None else job.rows_total
        out["message"] = job.message or f"{job.rows_done} of {total} transactions exported"
    elif job.message:
        out["message"] = job.message
    metadata: Json = {}
    if job.code is not None:
        metadata["code"] = job.code
    if job.status in ("COMPLETED", "COMPLETED_WITH_WARNING"):
        path = DOWNLOAD_PATH.replace("{operationId}", job.id)
        metadata["downloadUrl"] = f"{public_url}{path}?token={job.token}"
    if job.next_date is not None:
        metadata["nextDate"] = job.next_date
    if metadata:
        out["metadata"] = metadata
    out["createdAtTimestamp"] = job.created
    out["updatedAtTimestamp"] = job.updated
    return out


def _create(db: Database, request: dict[str, Any], key: ApiKey | None) -> ExportJob:
    _check_chains(db, request["options"]["includeChains"], key)
    job_id = str(uuid.uuid4())
    token = secrets.token_urlsafe(24)
    return export_jobs.create_job(db, job_id, EVM, key.id if key else None, request, token)


async def create_export(ctx: Context) -> Json:
    body = ctx.args["body"]
    kind = body.get("type")
    if kind in PRIMARY:
        job = await ctx.run(create_primary, ctx.db, kind, body, ctx.key)
        return status_body(job, ctx.public_url)
    if kind != EVM:
        raise InvalidParams(f"type must be one of {EVM}, {', '.join(PRIMARY)}")
    job = await ctx.run(_create, ctx.db, evm_request(body), ctx.key)
    return status_body(job, ctx.public_url)


def _visible(job: ExportJob | None, key: ApiKey | None, ref: str) -> ExportJob:
    if job is None or (job.key_id is not None and (key is None or key.id != job.key_id)):
        raise NotFound(f"operation {ref} not found")
    return job


async def get_operation(ctx: Context) -> Json:
    ref = ctx.args["operationId"]
    job = await ctx.run(export_jobs.get_job, ctx.db, ref)
    return status_body(_visible(job, ctx.key, ref), ctx.public_url)


def _next_chunk(chunks: Iterator[str]) -> str | None:
    return next(chunks, None)


def download_endpoint(db: Database) -> Endpoint:
    """The endpoint at DOWNLOAD_PATH that serves finished files (CSV, streamed chunk by chunk
    from the store)."""

    async def download(
        scope: Scope, send: Send, path: Mapping[str, str], key: ApiKey | None, headers: Headers
    ) -> int:
        ref = path["operationId"]
        token = dict(parse_qsl(scope["query_string"].decode("latin-1"))).get("token", "")
        try:
            job = await call_store(db, export_jobs.get_job, db, ref)
            if job is None or not hmac.compare_digest(job.token.encode(), token.encode()):
                raise NotFound(f"no export file at this address: operation {ref}, token {token!r}")
            if job.status not in ("COMPLETED", "COMPLETED_WITH_WARNING"):
                raise NotFound(f"operation {ref} has no file yet: it is {job.status}")
        except Exception as exc:
            return await send_error(scope, send, exc, headers)
        start = [
            (b"content-type", b"text/csv; charset=utf-8"),
            (b"content-disposition", b'attachment; filename="%s.csv"' % job.id.encode()),
            *headers,
        ]
        await send({"type": "http.response.start", "status": 200, "headers": start})
        if scope["method"] != "HEAD":
            chunks = iter(export_jobs.chunks_of(db, job.id))
            while (chunk := await call_store(db, _next_chunk, chunks)) is not None:
                await send(
                    {"type": "http.response.body", "body": chunk.encode(), "more_body": True}
                )
        await send({"type": "http.response.body", "body": b""})
        return 200

    return download


OPERATIONS = (
    Operation(
        "postTransactionExportJob",
        "/v1/operations/transactions:export",
        "Start an export of addresses' EVM or primary-network (P-, X-Chain) transactions (CSV)"
        " on the chains named, in a date range; GET /v1/operations/{operationId} tells its"
        " progress and, when done, its file.",
        "Operations",
        (),
        "OperationStatusResponse",
        20,
        create_export,
        method="POST",
        request_body="CreateTransactionExportRequest",
        status=201,
    ),
    Operation(
        "getOperationResult",
        "/v1/operations/{operationId}",
        "The status of an export: RUNNING with its progress, then COMPLETED (or"
        " COMPLETED_WITH_WARNING when capped) with metadata.downloadUrl, or FAILED.",
        "Operations",
        (OPERATION_ID,),
        "OperationStatusResponse",
        10,
        get_operation,
    ),
)
