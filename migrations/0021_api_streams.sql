-- +goose Up
-- How many API streams each personal token holds open on each server
-- instance, written by every instance every few seconds (one statement),
-- so that the limit of streams per token holds across instances.
CREATE TABLE api_stream_counts (
    instance   text        NOT NULL,
    token_hash text        NOT NULL,
    streams    int         NOT NULL,
    seen_at    timestamptz NOT NULL,
    PRIMARY KEY (token_hash, instance)
);

-- +goose Down
DROP TABLE api_stream_counts;
