-- +goose Up
-- A new email address waits here until its owner confirms it from the link
-- mailed to it; until then the confirmed address (users.email) is used for
-- everything, so a typo cannot lock anyone out.
ALTER TABLE users
    ADD COLUMN pending_email         text,
    ADD COLUMN pending_email_sent_at timestamptz;

-- +goose Down
ALTER TABLE users
    DROP COLUMN pending_email,
    DROP COLUMN pending_email_sent_at;
