"""The HTTP routes of open data (``docs/web-api.md``, "Open data"; the files:
``docs/exports.md``): the list of monthly exports, and a month's export, streamed as it is
written (never built whole in memory), rate-limited per client address
(``METROGAMES_RATE_EXPORTS``). A month still running is exported up to the time of the request
and says so (its header's ``complete`` is false; the response's ``X-Export-Complete`` too)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Path, Request
from fastapi.responses import StreamingResponse

from metrogames.web.api.common import charge
from metrogames.web.exports.service import Exports

router = APIRouter(prefix="/api")


def exports_of(request: Request) -> Exports:
    """The app's exports (:class:`~metrogames.web.exports.service.Exports`)."""
    found: Exports = request.app.state.exports
    return found


@router.get("/exports")
async def list_exports(request: Request) -> dict[str, object]:
    """``{"months": [{"month", "complete", "url"}]}``, newest first (one indexed query)."""
    now = float(request.app.state.now())
    return {"months": await asyncio.to_thread(exports_of(request).months, now)}


@router.get("/exports/{name}", response_class=StreamingResponse)
async def get_export(
    request: Request, name: Annotated[str, Path(max_length=40)]
) -> StreamingResponse:
    """The export ``YYYY-MM.jsonl.zst`` of a month begun (404 else), zstd JSON lines streamed
    as written; 429 past the rate limit, 503 ``busy`` while another export is written."""
    exports = exports_of(request)
    now = float(request.app.state.now())
    month = exports.month(name, now)
    await charge(request, "exports")
    exports.hold()
    complete = month.finished(now)
    headers = {
        "Content-Disposition": f'attachment; filename="{month.name}.jsonl.zst"',
        "X-Export-Complete": "true" if complete else "false",
        "Cache-Control": "public, max-age=3600" if complete else "no-store",
    }
    return StreamingResponse(
        _body(exports, exports.stream(month, now)), media_type="application/zstd", headers=headers
    )


async def _body(exports: Exports, chunks: AsyncGenerator[bytes, None]) -> AsyncIterator[bytes]:
    """The writer process's chunks; the stream given back however the response ends."""
    try:
        async for chunk in chunks:
            yield chunk
    finally:
        await chunks.aclose()
        exports.release()
