-- the organizer console's stored actions, each with the event's results as they were just
-- before it, so that the last one can be undone (while no later round is paired)
create sequence action_seq;
create table console_actions (
    action_id bigint primary key default nextval('action_seq'),
    event_id  varchar not null references events (event_id),
    done_at   timestamp not null default current_timestamp,
    label     varchar not null,
    before    varchar not null,  -- the results rows as JSON
    undone    boolean not null default false
);
