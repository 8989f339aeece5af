-- +goose Up
-- A short sound in the browser when a game comes to the player (off unless
-- they turn it on).
ALTER TABLE users ADD COLUMN turn_sound boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE users DROP COLUMN turn_sound;
