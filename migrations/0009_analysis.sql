-- +goose Up
-- Post-game analysis: one job per finished game with a person at the
-- table, claimed by any instance (a lease, so a dead worker's job is taken
-- over), its report kept as JSON once done.
CREATE TABLE analyses (
    game_id       bigint      PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    status        text        NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
    leased_until  timestamptz,
    attempts      int         NOT NULL DEFAULT 0,
    report        jsonb,
    error         text,
    created_at    timestamptz NOT NULL,
    finished_at   timestamptz
);
CREATE INDEX analyses_todo ON analyses (created_at) WHERE status IN ('queued', 'running');

-- Each person's accuracy in each analysed game, for their profile.
CREATE TABLE analysis_accuracy (
    game_id   bigint NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    user_id   bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    accuracy  real   NOT NULL,
    decisions int    NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (game_id, user_id)
);
CREATE INDEX analysis_accuracy_user ON analysis_accuracy (user_id, created_at DESC);

-- Deeper looks at single decisions, asked for from the replay (cached).
CREATE TABLE analysis_deep (
    game_id    bigint      NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    move       int         NOT NULL,
    report     jsonb       NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (game_id, move)
);

-- +goose Down
DROP TABLE analysis_deep;
DROP TABLE analysis_accuracy;
DROP TABLE analyses;
