"""Errors a player's action can meet. Each has a stable ``code`` for clients and a message
for people; consumers and views send both and keep the connection open.

GameError
 ├── RoomNotFound        no room with that code (or it was cleaned up)
 ├── RoundNotFound       no round with that number in the room
 ├── NotAPlayer          the token or session does not belong to a player of the room
 │    └── Kicked          ... because the host kicked that player and has not let them back
 ├── NotHost             a host-only action by someone else
 ├── InvalidInput        malformed settings, nickname, board or message
 ├── NicknameTaken       another player in the room has that nickname
 ├── JoinRefused         the host of a locked room said no to this device
 ├── WaitingListFull     too many newcomers already wait at a locked room
 ├── NoJoinRequest       this device is not waiting to join the room
 ├── WrongRoundState     e.g. starting a round while one is running
 ├── HintsNotOffered     a hint asked for outside a solo practice room (games.hints)
 ├── NoHintLeft          every word of the board is found or shown as far as hints go
 └── RateLimited         too many messages too fast
"""

from __future__ import annotations


class GameError(Exception):
    code = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_dict(self) -> dict:
        return {"code": self.code, "message": self.message}


class RoomNotFound(GameError):
    code = "room_not_found"


class RoundNotFound(GameError):
    code = "round_not_found"


class NotAPlayer(GameError):
    code = "not_a_player"


class Kicked(NotAPlayer):
    code = "kicked"


class NotHost(GameError):
    code = "not_host"


class InvalidInput(GameError):
    code = "invalid"


class NicknameTaken(GameError):
    code = "nickname_taken"


class JoinRefused(GameError):
    code = "join_refused"


class WaitingListFull(GameError):
    code = "waiting_list_full"


class NoJoinRequest(GameError):
    code = "join_request_not_found"


class WrongRoundState(GameError):
    code = "wrong_round_state"


class HintsNotOffered(GameError):
    code = "hints_not_offered"


class NoHintLeft(GameError):
    code = "no_hint_left"


class RateLimited(GameError):
    code = "rate_limited"
