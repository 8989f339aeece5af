-- +goose Up
-- Fair play at a multiplayer table (docs/fair-play.md): signals of
-- collusion for every pair of accounts that met in rated games, accounts
-- linked by a shared device or network, players' reports, moderators'
-- cases with their decisions (dismiss, warn, mark, close), refunds of
-- rating points to a marked account's victims, and appeals.

-- Every time rated tables are formed from people waiting (the ranked
-- queue's matcher), who was waiting and the average chance that two of
-- them share a table, Σ k(k−1) over the tables formed / n(n−1): kept to
-- read, the signals use pair_expected.
CREATE TABLE seating_pools (
    id      bigserial        PRIMARY KEY,
    members bigint[]         NOT NULL,
    chance  double precision NOT NULL CHECK (chance >= 0 AND chance <= 1),
    at      timestamptz      NOT NULL
);
CREATE INDEX seating_pools_at ON seating_pools (at);

-- Each pair's expected meetings: the sum, over the times tables were
-- formed with both waiting, of the matcher's own chance of seating them
-- together (matching.PairChances: the waiting matched again 64 times with
-- their sizes and join times shuffled among them).
CREATE TABLE pair_expected (
    user_a   bigint           NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    user_b   bigint           NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    expected double precision NOT NULL,
    PRIMARY KEY (user_a, user_b),
    CHECK (user_a < user_b)
);

-- The signals read a game's rating changes by game.
CREATE INDEX rating_changes_game ON rating_changes (game_id);

-- A finished rated game's signals wait here until its analysis is done
-- (or failed); any instance's worker claims it (SKIP LOCKED, a lease).
CREATE TABLE fairplay_jobs (
    game_id      bigint      PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL,
    leased_until timestamptz,
    attempts     int         NOT NULL DEFAULT 0,
    done_at      timestamptz,
    error        text
);
CREATE INDEX fairplay_jobs_waiting ON fairplay_jobs (created_at) WHERE done_at IS NULL;

-- One pair's figures from one rated game (user_a < user_b), written once
-- per game; a pair's figures are their sum.
CREATE TABLE pair_games (
    user_a        bigint           NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    user_b        bigint           NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    game_id       bigint           NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    from_rest     double precision NOT NULL,
    from_rest_var double precision NOT NULL,
    b_from_a      double precision NOT NULL,
    a_from_b      double precision NOT NULL,
    feed_ab       double precision NOT NULL,
    feed_ab_sq    double precision NOT NULL,
    feeds_ab      int              NOT NULL,
    judged_a      int              NOT NULL,
    feed_ba       double precision NOT NULL,
    feed_ba_sq    double precision NOT NULL,
    feeds_ba      int              NOT NULL,
    judged_b      int              NOT NULL,
    created_at    timestamptz      NOT NULL,
    PRIMARY KEY (user_a, user_b, game_id),
    CHECK (user_a < user_b)
);
CREATE INDEX pair_games_b ON pair_games (user_b);

-- Each pair's figures and score, kept up to date by the worker.
CREATE TABLE pair_signals (
    user_a        bigint           NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    user_b        bigint           NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    games         int              NOT NULL,
    expected      double precision NOT NULL,
    from_rest     double precision NOT NULL,
    from_rest_var double precision NOT NULL,
    b_from_a      double precision NOT NULL,
    a_from_b      double precision NOT NULL,
    feed_ab       double precision NOT NULL,
    feed_ab_sq    double precision NOT NULL,
    feeds_ab      int              NOT NULL,
    judged_a      int              NOT NULL,
    feed_ba       double precision NOT NULL,
    feed_ba_sq    double precision NOT NULL,
    feeds_ba      int              NOT NULL,
    judged_b      int              NOT NULL,
    device        boolean          NOT NULL DEFAULT false,
    network       boolean          NOT NULL DEFAULT false,
    score         double precision NOT NULL,
    updated_at    timestamptz      NOT NULL,
    PRIMARY KEY (user_a, user_b),
    CHECK (user_a < user_b)
);
CREATE INDEX pair_signals_score ON pair_signals (score DESC);
CREATE INDEX pair_signals_b ON pair_signals (user_b);

-- Where an account was seen at log-in: a device (a long-lived random
-- cookie) or a network (a keyed hash of the address's /24 or /48, never
-- the address). Rows unseen for 90 days are deleted.
CREATE TABLE account_links (
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind       text        NOT NULL CHECK (kind IN ('device', 'network')),
    hash       bytea       NOT NULL,
    first_seen timestamptz NOT NULL,
    last_seen  timestamptz NOT NULL,
    PRIMARY KEY (user_id, kind, hash)
);
CREATE INDEX account_links_hash ON account_links (kind, hash);
CREATE INDEX account_links_seen ON account_links (last_seen);

-- A moderators' case about an account (and, for a pair's signal, the
-- other account of the pair). One open case per account and partner.
CREATE TABLE fairplay_cases (
    id         bigserial        PRIMARY KEY,
    user_id    bigint           NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    partner_id bigint           REFERENCES users (id) ON DELETE CASCADE,
    source     text             NOT NULL CHECK (source IN ('signal', 'report')),
    score      double precision NOT NULL DEFAULT 0,
    status     text             NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
    opened_at  timestamptz      NOT NULL,
    updated_at timestamptz      NOT NULL,
    closed_at  timestamptz,
    closed_by  bigint           REFERENCES users (id) ON DELETE SET NULL
);
CREATE UNIQUE INDEX fairplay_cases_one_open ON fairplay_cases (user_id, coalesce(partner_id, 0)) WHERE status = 'open';
CREATE INDEX fairplay_cases_queue ON fairplay_cases (score DESC, opened_at) WHERE status = 'open';
CREATE INDEX fairplay_cases_partner ON fairplay_cases (partner_id);

-- A member's report of a player, with the game it is about.
CREATE TABLE player_reports (
    id          bigserial   PRIMARY KEY,
    reporter_id bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    target_id   bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    game_id     bigint      REFERENCES games (id) ON DELETE SET NULL,
    reason      text        NOT NULL CHECK (reason IN ('feeding', 'second_account', 'leaving', 'abuse')),
    note        text        NOT NULL DEFAULT '' CHECK (length(note) <= 2000),
    case_id     bigint      NOT NULL REFERENCES fairplay_cases (id) ON DELETE CASCADE,
    created_at  timestamptz NOT NULL,
    -- handled_at: the case was decided; outcome says how, for the reporter.
    handled_at  timestamptz,
    outcome     text,
    CHECK (reporter_id <> target_id)
);
CREATE UNIQUE INDEX player_reports_one_open ON player_reports (reporter_id, target_id) WHERE handled_at IS NULL;
CREATE INDEX player_reports_case ON player_reports (case_id);
CREATE INDEX player_reports_reporter ON player_reports (reporter_id, created_at DESC);

-- What a moderator decided about an account in a case. Undone: it no
-- longer holds (undone_at). The account may appeal a warning, a mark or a
-- closing once; another moderator upholds or overturns it.
CREATE TABLE fairplay_decisions (
    id            bigserial   PRIMARY KEY,
    case_id       bigint      NOT NULL REFERENCES fairplay_cases (id) ON DELETE CASCADE,
    user_id       bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    action        text        NOT NULL CHECK (action IN ('dismiss', 'warn', 'mark', 'close', 'refund')),
    reason        text        NOT NULL CHECK (length(reason) BETWEEN 1 AND 2000),
    decided_by    bigint      REFERENCES users (id) ON DELETE SET NULL,
    decided_at    timestamptz NOT NULL,
    undone_at     timestamptz,
    undone_by     bigint      REFERENCES users (id) ON DELETE SET NULL,
    undo_reason   text,
    appeal        text        CHECK (length(appeal) <= 2000),
    appealed_at   timestamptz,
    answer        text        CHECK (answer IN ('upheld', 'overturned')),
    answer_note   text,
    answered_by   bigint      REFERENCES users (id) ON DELETE SET NULL,
    answered_at   timestamptz,
    CHECK ((appeal IS NULL) = (appealed_at IS NULL)),
    CHECK ((answer IS NULL) = (answered_at IS NULL))
);
CREATE INDEX fairplay_decisions_user ON fairplay_decisions (user_id, decided_at DESC);
CREATE INDEX fairplay_decisions_case ON fairplay_decisions (case_id);
CREATE INDEX fairplay_decisions_appeals ON fairplay_decisions (appealed_at) WHERE appealed_at IS NOT NULL AND answered_at IS NULL;

-- marked_at: an account marked for unfair play (off the ladder, no rated
-- play), by the decision that marked it.
ALTER TABLE users ADD COLUMN marked_at timestamptz,
    ADD COLUMN marked_by_decision bigint REFERENCES fairplay_decisions (id) ON DELETE SET NULL;

-- Rating points given back to a marked account's victim, for one game.
CREATE TABLE rating_refunds (
    id          bigserial        PRIMARY KEY,
    decision_id bigint           NOT NULL REFERENCES fairplay_decisions (id) ON DELETE CASCADE,
    user_id     bigint           NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    marked_id   bigint           NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    game_id     bigint           NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    points      double precision NOT NULL CHECK (points > 0),
    created_at  timestamptz      NOT NULL,
    undone_at   timestamptz
);
CREATE UNIQUE INDEX rating_refunds_once ON rating_refunds (user_id, marked_id, game_id) WHERE undone_at IS NULL;
CREATE INDEX rating_refunds_user ON rating_refunds (user_id, created_at);
CREATE INDEX rating_refunds_decision ON rating_refunds (decision_id);

-- The mails and pushes of fair play name the decision or report.
ALTER TABLE mail_outbox ADD COLUMN fairplay_id bigint;
ALTER TABLE moderation_log ADD COLUMN case_id bigint REFERENCES fairplay_cases (id) ON DELETE SET NULL;

-- +goose Down
ALTER TABLE moderation_log DROP COLUMN case_id;
ALTER TABLE mail_outbox DROP COLUMN fairplay_id;
DROP TABLE rating_refunds;
ALTER TABLE users DROP COLUMN marked_by_decision, DROP COLUMN marked_at;
DROP TABLE fairplay_decisions;
DROP TABLE player_reports;
DROP TABLE fairplay_cases;
DROP TABLE account_links;
DROP TABLE pair_signals;
DROP TABLE pair_games;
DROP TABLE fairplay_jobs;
DROP TABLE pair_expected;
DROP TABLE seating_pools;
DROP INDEX rating_changes_game;
