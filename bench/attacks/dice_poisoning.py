"""bench/hostile.py's dice-set poisoning probe (issue 48, hole 1): a host who relabels dice
on purpose must not change how another room reads its photos.

Room A ("Mallory") turns learning on and confirms two photos of a labelled board with 8
dice relabelled each; room B ("Bea"), which never touched dice sets, then sends the same
photo. Held when B reads no die wrong (it reads as the reader alone does: this photo reads
whole without any memory), and when A's own photo, read with the set its host poisoned,
has no die wrong and confident (a die the set's memory changed is doubtful). Everything
goes over loopback, as a room's players would send it (the photo upload, ``set_board``).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass
from typing import Any

from bench.attacks.client import ws_url
from bench.attacks.probe_client import Answer, Socket, call, create
from bench.attacks.probes import Bench

# A labelled 4x4 photo the shipped models read whole, and its board (tests/photos/helpers.py).
PHOTO_NAME = "004d2c027e43dd194554d6527b4ba67a.jpg"
TRUE_BOARD = "ygkh auox mrlz isio"
RELABELLED = 8  # dice relabelled per confirmed photo, as in the attack measured
CONFIRMED_PHOTOS = 2
# The first photo waits for the reader to load (some seconds, longer on a busy machine).
READ_TIMEOUT = 180.0


@dataclass
class Player:
    base: str
    code: str
    token: str
    socket: Socket


@dataclass
class Reading:
    letters: list[str]
    confidence: list[float]
    doubtful: list[bool]

    def wrong(self, truth: list[str]) -> list[tuple[str, str, float, bool]]:
        """(read, true face, confidence, doubtful) of each die read wrong."""
        return [
            (face, right, value, doubt)
            for face, right, value, doubt in zip(
                self.letters, truth, self.confidence, self.doubtful, strict=True
            )
            if face != right
        ]


def photo_bytes() -> bytes:
    from vision import dataset

    path = dataset.data_dir() / PHOTO_NAME
    if not path.is_file():
        raise RuntimeError(f"the labelled photo {path} is missing (../shared/data/boggle-boards)")
    return path.read_bytes()


def multipart(data: bytes) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="photo"; filename="board.jpg"\r\n'
            "Content-Type: image/jpeg\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return body, f"multipart/form-data; boundary={boundary}"


async def join(base: str, nickname: str, settings: dict[str, Any] | None = None) -> Player:
    created = await create(base, nickname, settings)
    code, token = created.body["room"]["code"], created.body["player"]["token"]
    return Player(base, code, token, await Socket.open(ws_url(base, code), token))


async def send_photo(player: Player, data: bytes) -> Reading:
    """Upload the photo as the room's player and wait for the room's ``board.read``."""
    body, content_type = multipart(data)
    answer: Answer = await asyncio.to_thread(
        call,
        f"{player.base}/api/rooms/{player.code}/photos",
        "POST",
        None,
        {"Authorization": f"Bearer {player.token}", "Content-Type": content_type},
        body,
        60.0,
    )
    if answer.status != 202:
        raise RuntimeError(f"photo upload: {answer.status} {answer.text}")
    photo_id = answer.body["photo"]["id"]
    event = await player.socket.wait(
        lambda m: (
            m.get("photo_id") == photo_id and m.get("type") in ("board.read", "board.unreadable")
        ),
        READ_TIMEOUT,
    )
    if event is None or event["type"] != "board.read":
        raise RuntimeError(f"photo {photo_id} not read: {event}")
    return Reading(
        [face for row in event["letters"] for face in row],
        [value for row in event["confidence"] for value in row],
        [flag for row in event["doubtful"] for flag in row],
    )


def relabelled(letters: list[str]) -> list[str]:
    """The board with its first RELABELLED dice given the next letter face."""
    from vision.faces import FACES

    lies = list(letters)
    for index in range(RELABELLED):
        position = FACES.index(lies[index])
        lies[index] = next(
            FACES[(position + step) % len(FACES)]
            for step in range(1, len(FACES))
            if FACES[(position + step) % len(FACES)].isalpha()
        )
    return lies


async def confirm(player: Player, faces: list[str]) -> int:
    """``set_board`` with ``faces``; returns the room's set's dice count once it learnt."""
    from solver.board import from_faces

    side = round(len(faces) ** 0.5)
    before = len(player.socket.messages)
    board = from_faces([faces[row * side : (row + 1) * side] for row in range(side)]).to_text()
    reply = await player.socket.ask({"type": "set_board", "board": board}) or {}
    if reply.get("type") != "ok":
        raise RuntimeError(f"set_board: {reply}")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # the dice are kept off the request's thread
        learnt = [
            m for m in player.socket.messages[before:] if m.get("type") == "photo_set.changed"
        ]
        if learnt:
            return int(learnt[-1]["photo_set"]["exemplars"])
        await asyncio.sleep(0.2)
    return -1


def describe(wrong: list[tuple[str, str, float, bool]]) -> str:
    confident = [item for item in wrong if not item[3]]
    top = max((item[2] for item in confident), default=0.0)
    return f"{len(wrong)} wrong, {len(confident)} of them confident (highest {top:.3f})"


async def probe_dice_poisoning(bench: Bench) -> None:
    """Hole 1: one room's relabelled dice against another room's reading."""
    from solver.board import parse_board

    base = bench.bases[0]
    data = await asyncio.to_thread(photo_bytes)
    truth = [face for row in parse_board(TRUE_BOARD).grid() for face in row]
    mallory = await join(base, "Mallory", {"learn_photo_set": True})
    bea: Player | None = None
    try:
        for number in range(1, CONFIRMED_PHOTOS + 1):
            read = await send_photo(mallory, data)
            lies = relabelled(truth)  # the same lies each time, as one host repeating them
            kept = await confirm(mallory, lies)
            print(
                f"  room A: photo {number} read {describe(read.wrong(truth))};"
                f" confirmed with {RELABELLED} dice relabelled; its set now has {kept} dice"
            )
        bea = await join(base, "Bea")
        victim = await send_photo(bea, data)
        victim_wrong = victim.wrong(truth)
        own = await send_photo(mallory, data)
        own_confident = [item for item in own.wrong(truth) if not item[3]]
        print(f"  room B (never touched dice sets): {describe(victim_wrong)}: {victim_wrong}")
        print(f"  room A's own next photo: {describe(own.wrong(truth))}")
    finally:
        await mallory.socket.close()
        if bea is not None:
            await bea.socket.close()
    held = not victim_wrong and not own_confident
    print(f"  dice-set poisoning: {'held' if held else 'broken'}")
    bench.row(
        "dice-set poisoning: room B's dice read wrong",
        describe(victim_wrong),
        "0 wrong",
        not victim_wrong,
    )
    bench.row(
        "dice-set poisoning: room A's wrong dice read confident",
        str(len(own_confident)),
        "0",
        not own_confident,
    )
