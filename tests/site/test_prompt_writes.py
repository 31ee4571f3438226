"""Twisted's TCP connections send at once when nothing waits (web.prompt_writes), and fall
back to Twisted's buffer, in order, when the kernel does not take everything."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from twisted.internet import tcp
from twisted.internet.protocol import Protocol

from web import prompt_writes


class Reactor:  # Twisted's method names
    """What a connection asks of its reactor here: to be told when it may write."""

    def __init__(self) -> None:
        self.writers: list[Any] = []

    def addWriter(self, writer: Any) -> None:
        if writer not in self.writers:
            self.writers.append(writer)

    def removeWriter(self, writer: Any) -> None:
        if writer in self.writers:
            self.writers.remove(writer)

    def addReader(self, reader: Any) -> None:
        pass

    def removeReader(self, reader: Any) -> None:
        pass


@pytest.fixture
def pair() -> Any:
    prompt_writes.install()
    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    reactor = Reactor()
    connection = tcp.Connection(ours, Protocol(), reactor)  # type: ignore[arg-type]
    connection.connected = True
    yield connection, theirs, reactor
    ours.close()
    theirs.close()


def read_all(peer: socket.socket) -> bytes:
    peer.setblocking(False)
    chunks: list[bytes] = []
    while True:
        try:
            chunk = peer.recv(1 << 20)
        except BlockingIOError:
            return b"".join(chunks)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def test_a_write_with_nothing_waiting_is_sent_without_the_loop(pair: Any) -> None:
    connection, peer, reactor = pair
    connection.write(b"hello")
    assert read_all(peer) == b"hello"
    assert reactor.writers == []  # no turn of the loop asked for
    assert connection._tempDataLen == 0


def test_what_the_kernel_does_not_take_waits_and_keeps_its_order(pair: Any) -> None:
    connection, peer, reactor = pair
    big = bytes(range(256)) * 20_000  # 5 MB: more than the kernel's buffers
    connection.write(big)
    assert reactor.writers == [connection]  # the rest waits for the loop
    connection.write(b"after")  # not sent ahead of the waiting bytes
    received = read_all(peer)
    assert len(received) < len(big)
    while reactor.writers:
        connection.doWrite()
        received += read_all(peer)
    assert received == big + b"after"
