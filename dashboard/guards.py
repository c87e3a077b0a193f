"""What the hall's two servers (`dashboard.server`, the phones' `dashboard.phones.server`)
guard their connections with, whichever parser they use (`dashboard.fastguard`)."""

HEADER_SECONDS = 10.0  # a request's headers must arrive whole within this, or it is closed
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"content-security-policy", b"default-src 'none'; frame-ancestors 'none'"),
]


class HeaderDeadline:
    """The header deadline both of the hall's protocols keep (`dashboard.server`'s h11 one,
    `dashboard.fastguard`'s httptools one): armed at a request's first byte, disarmed when
    its headers are whole or the connection goes; each protocol says when, and `_too_slow`."""

    def _arm(self) -> None:
        if self._deadline is None:
            self._deadline = self.loop.call_later(HEADER_SECONDS, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def connection_lost(self, exc) -> None:
        self._disarm()
        super().connection_lost(exc)
