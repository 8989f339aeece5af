-- +goose Up
-- Web Push: the devices a person asked to be notified on, what they want
-- pushed, and the pushes themselves, which are rows of the outbox like the
-- mail (channel 'push', one row per device and event).
CREATE TABLE push_subscriptions (
    id               bigserial   PRIMARY KEY,
    user_id          bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- The push service's URL for this device, and the keys the browser
    -- gave with it (base64url): the message is encrypted to them.
    endpoint         text        NOT NULL UNIQUE,
    p256dh           text        NOT NULL,
    auth             text        NOT NULL,
    -- A name for Settings, from the browser's user agent.
    name             text        NOT NULL,
    created_at       timestamptz NOT NULL,
    last_delivery_at timestamptz,
    last_error       text
);
CREATE INDEX push_subscriptions_user ON push_subscriptions (user_id);

ALTER TABLE users
    ADD COLUMN push_your_turn   boolean NOT NULL DEFAULT true,
    ADD COLUMN push_reminder    boolean NOT NULL DEFAULT true,
    ADD COLUMN push_timed_out   boolean NOT NULL DEFAULT true,
    ADD COLUMN push_game_over   boolean NOT NULL DEFAULT true,
    ADD COLUMN push_invite      boolean NOT NULL DEFAULT true,
    ADD COLUMN push_rematch     boolean NOT NULL DEFAULT true,
    ADD COLUMN push_chat        boolean NOT NULL DEFAULT true,
    ADD COLUMN push_tournament  boolean NOT NULL DEFAULT true;

ALTER TABLE mail_outbox
    ADD COLUMN channel text NOT NULL DEFAULT 'mail' CHECK (channel IN ('mail', 'push')),
    ADD COLUMN subscription_id bigint REFERENCES push_subscriptions (id) ON DELETE CASCADE,
    ADD CONSTRAINT mail_outbox_push_device CHECK ((channel = 'push') = (subscription_id IS NOT NULL));
DROP INDEX mail_outbox_due;
CREATE INDEX mail_outbox_due ON mail_outbox (channel, send_after) WHERE status IN ('pending', 'sending');
CREATE INDEX mail_outbox_device ON mail_outbox (subscription_id, game_id) WHERE subscription_id IS NOT NULL;

-- +goose Down
DROP INDEX mail_outbox_device;
DROP INDEX mail_outbox_due;
DELETE FROM mail_outbox WHERE channel = 'push';
ALTER TABLE mail_outbox DROP CONSTRAINT mail_outbox_push_device, DROP COLUMN subscription_id, DROP COLUMN channel;
CREATE INDEX mail_outbox_due ON mail_outbox (send_after) WHERE status IN ('pending', 'sending');
ALTER TABLE users DROP COLUMN push_your_turn, DROP COLUMN push_reminder, DROP COLUMN push_timed_out, DROP COLUMN push_game_over,
    DROP COLUMN push_invite, DROP COLUMN push_rematch, DROP COLUMN push_chat, DROP COLUMN push_tournament;
DROP TABLE push_subscriptions;
