"""Errors a player's action can meet in a room, below ``web.errors.ClientError`` (which
also holds ``InvalidInput`` and ``RateLimited``). Each has a stable ``code`` for clients, a
message for people and its HTTP ``status``; consumers and views send code and message and
keep the connection open.

ClientError (web.errors)
 ├── RoomNotFound        404 no room with that code (or it was cleaned up)
 ├── RoundNotFound       404 no round with that number in the room
 ├── NotAPlayer          403 the token or session does not belong to a player of the room
 │    └── Kicked          403 ... because the host kicked that player and has not let them back
 ├── NotHost             403 a host-only action by someone else
 ├── TokenInUrl          400 a room socket opened with ``?token=``: secrets go in a header
 ├── NicknameTaken       409 another player in the room has that nickname
 ├── JoinRefused         403 the host of a locked room said no to this device
 ├── WaitingListFull     409 too many newcomers already wait at a locked room
 ├── NoJoinRequest       404 this device is not waiting to join the room
 ├── WrongRoundState     409 e.g. starting a round while one is running
 ├── TeamsIncomplete     409 a teams round without players in two teams
 ├── NotEnoughPlayers    409 a chess-clock round with fewer than two players
 ├── HintsNotOffered     400 a hint asked for outside a solo practice room (games.hints)
 └── NoHintLeft          400 every word of the board is found or shown as far as hints go
"""

from __future__ import annotations

from web.errors import ClientError


class RoomNotFound(ClientError):
    code = "room_not_found"
    status = 404


class RoundNotFound(ClientError):
    code = "round_not_found"
    status = 404


class NotAPlayer(ClientError):
    code = "not_a_player"
    status = 403


class Kicked(NotAPlayer):
    code = "kicked"


class NotHost(ClientError):
    code = "not_host"
    status = 403


class TokenInUrl(ClientError):
    code = "token_in_url"
    status = 400


class NicknameTaken(ClientError):
    code = "nickname_taken"
    status = 409


class JoinRefused(ClientError):
    code = "join_refused"
    status = 403


class WaitingListFull(ClientError):
    code = "waiting_list_full"
    status = 409


class NoJoinRequest(ClientError):
    code = "join_request_not_found"
    status = 404


class WrongRoundState(ClientError):
    code = "wrong_round_state"
    status = 409


class TeamsIncomplete(ClientError):
    """A teams round cannot start: fewer than two teams have players (games.teams)."""

    code = "teams_incomplete"
    status = 409


class NotEnoughPlayers(ClientError):
    """A chess-clock round cannot start: fewer than two players (games.chess_turns)."""

    code = "not_enough_players"
    status = 409


class HintsNotOffered(ClientError):
    code = "hints_not_offered"


class NoHintLeft(ClientError):
    code = "no_hint_left"
