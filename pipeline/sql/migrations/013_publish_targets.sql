-- where an event's static site is published (paisai publish remembers it): watch, the
-- console's upload and its pairing button re-publish there
create table publish_targets (
    event_id varchar primary key references events (event_id),
    out_dir  varchar not null,
    base_url varchar
);
