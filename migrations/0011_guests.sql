-- +goose Up
-- Guests: an account made on the spot for "Play a bot game now", with a
-- made-up name, no address and no password. It becomes an ordinary account
-- when its player registers (the games stay theirs); otherwise it and its
-- games are deleted a week later.
ALTER TABLE users ADD COLUMN guest boolean NOT NULL DEFAULT false;
CREATE INDEX users_guests ON users (created_at) WHERE guest;

-- +goose Down
DROP INDEX users_guests;
ALTER TABLE users DROP COLUMN guest;
