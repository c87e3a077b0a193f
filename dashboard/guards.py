"""What the hall's two servers (`dashboard.server`, the phones' `dashboard.phones.server`)
guard their connections with, whichever parser they use (`dashboard.fastguard`)."""

HEADER_SECONDS = 10.0  # a request's headers must arrive whole within this, or it is closed
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"content-security-policy", b"default-src 'none'; frame-ancestors 'none'"),
]
