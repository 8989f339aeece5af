-- +goose Up
-- Invitations to a correspondence table are mailed unless turned off, like
-- the other notifications.
ALTER TABLE users ADD COLUMN mail_invite boolean NOT NULL DEFAULT true;

-- +goose Down
ALTER TABLE users DROP COLUMN mail_invite;
