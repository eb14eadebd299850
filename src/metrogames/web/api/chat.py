"""The table chat's routes (``docs/web-api.md``, "Table chat"); the work is done by
:class:`~metrogames.web.chat.service.Chat`."""

from __future__ import annotations

from collections.abc import Mapping

from fastapi import APIRouter, Request

from metrogames.i18n import N_
from metrogames.web.api.bodies import ChatBody
from metrogames.web.api.common import bearer, read_body
from metrogames.web.chat.service import Chat

router = APIRouter(prefix="/api")


def chat(request: Request) -> Chat:
    """The app's table chat."""
    found: Chat = request.app.state.chat
    return found


@router.post("/rooms/{room}/chat", status_code=201)
async def post_chat(room: str, request: Request) -> Mapping[str, object]:
    """Say ``{"text"}`` at the table (seat token of an online room): ``{"message"}``."""
    body = await read_body(request, ChatBody, N_("a chat message"))
    return {"message": await chat(request).post(room, bearer(request), body.text)}


@router.get("/rooms/{room}/chat")
async def get_chat(room: str, request: Request) -> Mapping[str, object]:
    """The online room's latest 100 messages, oldest first: ``{"messages"}``."""
    return {"messages": await chat(request).recent(room, bearer(request))}
