-- The files received kept without DuckDB's compression (issue 53): the table is a few rows in
-- one row group, so every ingest's checkpoint rewrote every file kept before, decompressing
-- and compressing them again — at 100,000 teams' round 7 (seven files, 14.5 MB) 0.13 s of
-- the ingest's 0.2 s of checkpoint CPU, and more with every round. Uncompressed, the rewrite
-- is a copy (about 0.03 s there); the file grows by what ZSTD saved (about 10 MB there). The
-- blobs are never read by a query: kept as received for the organizer (uploads).
create table upload_blobs_kept (
    sha256 varchar primary key,
    data   blob not null using compression uncompressed
);
insert into upload_blobs_kept select sha256, data from upload_blobs;
drop table upload_blobs;
alter table upload_blobs_kept rename to upload_blobs;
