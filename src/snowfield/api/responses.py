"""JSON responses via orjson; big integers leave as strings before they get here."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import Response


class JsonResponse(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)
