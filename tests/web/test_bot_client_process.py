"""Proof of the bot API (issue 24 item 4): the reference client ``metrogames bot run``, as a
separate process talking HTTP only, accepts a host's challenge and plays a whole London game
against a human seat played over HTTP by this test, against a server process."""

from __future__ import annotations

import http.cookiejar
import json
import secrets
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from test_web_jobs_server import Server, until

from support.web import Player, recorded_actions


class Http:
    """A client of the server process with its own cookies."""

    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"
        jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))

    def call(self, method: str, path: str, body: object = None, token: str | None = None) -> Any:
        headers = {"Content-Type": "application/json"} if method != "GET" else {}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data, headers, method=method)
        with self.opener.open(request, timeout=30) as answer:
            text = answer.read()
        return json.loads(text) if text else None


def test_the_reference_client_plays_a_full_game_over_http(tmp_path: Path) -> None:
    server = Server(tmp_path)
    bot: subprocess.Popen[bytes] | None = None
    try:
        owner = Http(server.port)
        name = "Bot" + secrets.token_hex(3)
        account = owner.call(
            "POST", "/api/accounts", {"name": name, "password": "correct horse battery"}
        )
        owner.call("PUT", "/api/accounts/me/bot", {"games": ["london"]})
        token = owner.call(
            "POST", "/api/accounts/me/bot/tokens", {"name": "ci", "scopes": ["read", "play"]}
        )
        token_file = tmp_path / "token"
        token_file.write_text(token["token"])
        command = [str(Path(sys.executable).with_name("metrogames")), "bot", "run"]
        command += ["--server", owner.base, "--token-file", str(token_file), "--level", "easy"]
        bot = subprocess.Popen([*command, "--games", "1"], stderr=subprocess.PIPE)
        human = Http(server.port)
        room = human.call(
            "POST",
            "/api/rooms",
            {"game": "london", "mode": "online", "seats": [{"name": "Ada"}, {}]},
        )
        code, host = room["room"]["room"], room["host_token"]
        human.call(
            "POST",
            f"/api/rooms/{code}/invitations",
            {"seat": 1, "account": account["account"]},
            host,
        )
        until(lambda: human.call("GET", f"/api/rooms/{code}")["seats"][1]["claimed"], 30)
        human.call("POST", f"/api/rooms/{code}/start", {}, host)
        player = Player(code, {"0": room["tokens"]["0"]}, seed=3)
        deadline = time.monotonic() + 240
        while True:
            seen = human.call("GET", f"/api/rooms/{code}/view", token=room["tokens"]["0"])
            if seen["status"] == "finished":
                break
            assert time.monotonic() < deadline, "the game did not end"
            if 0 in seen["to_move"]:
                action = player.choose(seen["legal"])
                player.sent[0].append(action)
                human.call(
                    "POST",
                    f"/api/rooms/{code}/actions",
                    {"action": action, "step": seen["step"]},
                    room["tokens"]["0"],
                )
            else:
                time.sleep(0.05)
        _, errors = bot.communicate(timeout=60)
        assert bot.returncode == 0, errors.decode()
        record = human.call("GET", f"/api/rooms/{code}/record")
        seats = recorded_actions(record, None)  # London: every seat acts at every turn
        assert len(seats[1]) == len(seats[0]) == len(player.sent[0]) > 10
        assert token["token"] not in errors.decode()
    finally:
        if bot is not None and bot.poll() is None:
            bot.kill()
        server.process.kill()
        server.process.wait(10)
