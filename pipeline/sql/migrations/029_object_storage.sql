-- Object storage (issue 54): an event's site may be published to s3://bucket/prefix on an
-- S3-compatible store; its endpoint is kept beside the address (never a credential: those
-- come from the environment or the profile only)
alter table publish_targets add column endpoint_url varchar;

-- one row per event bundle `paisai history sync` imported: each once, by its content
create table synced_bundles (
    bundle_id      varchar primary key,  -- the manifest's sha256
    event_id       varchar not null,
    source         varchar not null,     -- where it was found (folder or s3:// address)
    format_version integer not null,
    paisai_version varchar,
    synced_at      timestamp not null default current_timestamp
);
