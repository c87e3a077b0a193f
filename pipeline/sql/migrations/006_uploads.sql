-- every file received, kept as received, by content (SHA-256)
create table upload_blobs (
    sha256 varchar primary key,
    data   blob not null
);
