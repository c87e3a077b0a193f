-- The console's logins (issue 37): a random token in an HttpOnly cookie, kept here only as
-- its SHA-256, so that nothing sent to a browser reveals the password, and a logout or an
-- expiry survives a restart of the server.
create table console_sessions (
    token_hash   varchar primary key,   -- sha256 of the cookie's token (never the token)
    account      varchar not null,      -- who logged in ('organizer': the env password)
    password_tag varchar not null,      -- scrypt of the password it was opened with: a new
                                        -- password ends every session opened before it
    created_at   timestamp not null default current_timestamp,
    expires_at   timestamp not null,
    ended_at     timestamp              -- logged out
);
