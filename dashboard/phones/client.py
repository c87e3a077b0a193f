"""A small HTTP/1.1 client for the phones' process's asks of the hall's process (a page, an
event's version) over loopback: a few kept-alive connections, at most CONNECTIONS at once,
the others waiting their turn in order. (httpx's pool, tried first, spent milliseconds of
the process's CPU a request once hundreds of phones waited for pages of a new version.)"""

from __future__ import annotations

import asyncio

CONNECTIONS = 16  # asks of the hall at once: the hall's process serves one at a time anyway
SECONDS = 60.0  # the longest an ask may take (a page made while a round is stored)


class HallError(Exception):
    """The hall's process did not answer (down, restarting, too slow)."""


class HallClient:
    def __init__(self, host: str, port: int, connections: int = CONNECTIONS):
        self.host, self.port = host, port
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        self.turns = asyncio.Semaphore(connections)

    async def get(self, target: bytes, headers: list[tuple[bytes, bytes]]):
        """(status, headers, body as sent) of GET `target` (path and query)."""
        async with self.turns:
            for attempt in (0, 1):  # a kept connection the hall closed meanwhile: once more
                fresh = not self.idle
                stream = self.idle.pop() if self.idle else await self._connect()
                try:
                    answer, again = await asyncio.wait_for(
                        self._ask(stream, target, headers), SECONDS
                    )
                except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as exc:
                    stream[1].close()
                    if fresh or attempt:
                        raise HallError(str(exc)) from exc
                    continue
                except BaseException:  # cancelled: the connection is in an unknown state
                    stream[1].close()
                    raise
                if again:
                    self.idle.append(stream)
                else:
                    stream[1].close()
                return answer
        raise HallError("no answer")

    async def _connect(self):
        try:
            return await asyncio.wait_for(asyncio.open_connection(self.host, self.port), 5)
        except (TimeoutError, OSError) as exc:
            raise HallError(str(exc)) from exc

    async def _ask(self, stream, target: bytes, headers):
        reader, writer = stream
        lines = [b"GET " + target + b" HTTP/1.1", b"host: " + f"{self.host}:{self.port}".encode()]
        lines += [name + b": " + value for name, value in headers]
        writer.write(b"\r\n".join(lines) + b"\r\n\r\n")
        head = await reader.readuntil(b"\r\n\r\n")
        first, *rest = head[:-4].split(b"\r\n")
        status = int(first.split(b" ", 2)[1])
        found = []
        for line in rest:
            name, _, value = line.partition(b":")
            found.append((name.strip().lower(), value.strip()))
        named = dict(found)
        if b"chunked" in named.get(b"transfer-encoding", b""):
            parts = []
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                if size == 0:
                    await reader.readuntil(b"\r\n")  # no trailers are sent here
                    break
                parts.append((await reader.readexactly(size + 2))[:-2])
            body = b"".join(parts)
        else:
            body = await reader.readexactly(int(named.get(b"content-length", b"0")))
        again = named.get(b"connection", b"").lower() != b"close"
        return (status, found, body), again

    def close(self) -> None:
        while self.idle:
            self.idle.pop()[1].close()
