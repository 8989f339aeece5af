-- +goose Up
ALTER TABLE users
    ADD COLUMN time_zone          text        NOT NULL DEFAULT 'UTC',
    ADD COLUMN mail_your_turn     boolean     NOT NULL DEFAULT true,
    ADD COLUMN mail_reminder      boolean     NOT NULL DEFAULT true,
    ADD COLUMN mail_game_over     boolean     NOT NULL DEFAULT true,
    ADD COLUMN mail_timed_out     boolean     NOT NULL DEFAULT true,
    -- Collect "your turn" mails into one a day at digest_hour (local time).
    ADD COLUMN turn_digest        boolean     NOT NULL DEFAULT false,
    ADD COLUMN digest_hour        int         NOT NULL DEFAULT 8 CHECK (digest_hour BETWEEN 0 AND 23),
    ADD COLUMN vacation_until     timestamptz,
    ADD COLUMN vacation_year      int         NOT NULL DEFAULT 0,
    ADD COLUMN vacation_days_used int         NOT NULL DEFAULT 0;

-- The outbox: a mail to send, written in the transaction of whatever caused
-- it. A worker claims due rows (status 'sending' with a lease), composes
-- them from current data, sends, and marks them sent; a crashed worker's
-- lease runs out and another takes the row over.
CREATE TABLE mail_outbox (
    id            bigserial   PRIMARY KEY,
    user_id       bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind          text        NOT NULL,
    game_id       bigint      REFERENCES games (id) ON DELETE CASCADE,
    game_version  int,
    -- A password reset's row, for the reset link.
    reset_id      bigint,
    send_after    timestamptz NOT NULL,
    status        text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'sent', 'skipped', 'failed')),
    attempts      int         NOT NULL DEFAULT 0,
    claimed_until timestamptz,
    last_error    text,
    -- Why a row was not sent, or the id of the mail (a digest) that carried it.
    note          text,
    created_at    timestamptz NOT NULL,
    sent_at       timestamptz
);
CREATE INDEX mail_outbox_due ON mail_outbox (send_after) WHERE status IN ('pending', 'sending');
CREATE INDEX mail_outbox_user ON mail_outbox (user_id, kind, status);

CREATE TABLE password_resets (
    id         bigserial   PRIMARY KEY,
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz,
    created_at timestamptz NOT NULL
);

-- +goose Down
DROP TABLE password_resets;
DROP TABLE mail_outbox;
ALTER TABLE users DROP COLUMN vacation_days_used, DROP COLUMN vacation_year, DROP COLUMN vacation_until,
    DROP COLUMN digest_hour, DROP COLUMN turn_digest, DROP COLUMN mail_timed_out, DROP COLUMN mail_game_over,
    DROP COLUMN mail_reminder, DROP COLUMN mail_your_turn, DROP COLUMN time_zone;
