-- +goose Up
-- How far each player has read a game's chat, so that their list of games
-- can tell them which tables have new messages.
CREATE TABLE chat_reads (
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    game_id bigint NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    -- last_id: the newest message of the game they have seen.
    last_id bigint NOT NULL,
    PRIMARY KEY (user_id, game_id)
);

-- +goose Down
DROP TABLE chat_reads;
