package views

// TableView is a game's board as one viewer sees it: the lobby before the
// start, the table of play after. Handlers build it from the projection the
// viewer may see; nothing hidden from that viewer is in it.
type TableView struct {
	GameID  int64
	Version int
	// CanLeave: the viewer holds a seat of the game in play and may leave
	// it (the link to the confirmation).
	CanLeave bool
	Status   string // open, playing, finished, cancelled
	Summary  string // options in words
	Pace     string
	Public   bool
	Ranked   bool
	// Watchers is shown by the page beside the board, not in it: the board
	// is the same for every spectator, the count changes on its own.
	Watchers int
	// Invitation is the viewer's own invitation to this table, shown by
	// the page above the board (the board is the same for every member).
	Invitation *Invitation
	// TournamentID is the event the game is played in (0: none).
	TournamentID int64
	// Notice is a message to show above the table (a refused move).
	Notice string
	// Query is appended to the stream and poll URLs (a private game's
	// invite code for a visitor who holds it).
	Query string
	// Digest is BoardDigest of the board as the page shows it.
	Digest string

	Lobby *LobbyView
	// BotAccounts are the seats' names that are bot accounts', marked on
	// the board (docs/bots.md) even where no request tells (a stream).
	BotAccounts BotAccountNames

	Round, Rounds int
	ActiveCard    int
	Pot           int
	DeckLeft      int
	TurnName      string
	MyTurn        bool
	// Deadline is when the player to move runs out of time (RFC 3339).
	Deadline string
	Seats    []SeatView
	// MyTokens is the viewer's own token count; -1 for a spectator.
	MyTokens    int
	CanTake     bool
	CanPass     bool
	CanTiger    bool
	PassBlocked string
	// Log is the round in play's moves, newest first, at most LogLines.
	Log        []LogLine
	LogOmitted int
	Scores     *ScoreTable
	Standings  []Standing
	// ReplayURL is set once the game is over.
	ReplayURL string
	// Imported: the game came in as text (docs/notation.md).
	Imported bool
	// RoundEnd sums up the last scored round, shown until the next round's
	// first decision (and on the finished table).
	RoundEnd *RoundEndView
	// Announce says the last move and what is now to do, in words, for the
	// page's live region (screen readers).
	Announce string
	// RatingChanges are the ranked game's rating changes by seat, once
	// it is over ("" where none).
	RatingChanges []string
	// Rematch is "Play again" on a finished table (nil: nothing to show).
	Rematch *RematchView
	// Seated: the viewer sits at this table (and so reads the players'
	// chat); Code is the invite code of a private table the viewer watches
	// without a seat ("" otherwise), which Query and the chat's links carry.
	Seated bool
	Code   string
}

// RematchView is a finished table's "Play again" as one viewer sees it.
type RematchView struct {
	// CanOffer: the viewer played and no offer stands.
	CanOffer bool
	// Open: an offer stands; Offerer made it.
	Open    bool
	Offerer string
	Answers []RematchAnswer
	// MyState is the viewer's answer: accepted, declined, waiting ("" for
	// someone who did not play).
	MyState string
	// CanStartNow: the viewer offered, and those who accepted (with the
	// bots) make at least 3 players.
	CanStartNow bool
	Players     int
	// NewGameURL is the game the rematch became.
	NewGameURL string
}

// RematchAnswer is one person's answer to an offer.
type RematchAnswer struct {
	Name  string
	State string
}

// RoundEndView is a scored round: every player's cards, tokens and score,
// and the removed cards revealed.
type RoundEndView struct {
	Round   int
	Rows    []RoundEndRow
	Removed []int
}

// RoundEndRow is one player's part of a scored round.
type RoundEndRow struct {
	Name       string
	Runs       [][]int
	RunsText   string
	Tokens     int
	CardPoints int
	Score      int
	Total      int
	Me         bool
}

// SeatView is one seat at the table.
type SeatView struct {
	Seat        int
	Name        string
	ProfileURL  string
	Bot         bool
	Me          bool
	Turn        bool
	Abandoned   bool
	Runs        [][]int
	CardPoints  int
	Tokens      string // the count, or "?" when hidden
	Total       int
	TigerHeld   bool
	TigerPlayed bool
	// Vacation says until when the player is away, "" when not.
	Vacation string
	// Score is the round's running score (card points less tokens) where
	// the viewer may know it, "?" where the seat's tokens are hidden.
	Score string
	// RunsText reads the cards as runs ("4, 6 to 8, 13 to 15").
	RunsText string
	// Last describes the seat's move when it made the latest one
	// ("took 31", "No thanks! to 18"), "" otherwise.
	Last string
	// RatingChange is the ranked game's change of the seat's rating once
	// it is over ("+12", "−8"), "" otherwise.
	RatingChange string
	// Reliability is the player's (nil for the server's bots); Left: the
	// player left the game (rather than let their time run out).
	Reliability *Reliability
	Left        bool
}

// LogLine is one entry of the move log.
type LogLine struct {
	Round   int
	Text    string
	Timeout bool
	// Decision numbers the line's decision among the round's (from 0), -1
	// for a line that is no decision; Mark is its mark by the post-game
	// analysis, in the replay.
	Decision int
	Mark     string
}

// ScoreTable is the round-by-round scores.
type ScoreTable struct {
	Rounds []int
	Rows   []ScoreRow
}

// ScoreRow is one player's scores.
type ScoreRow struct {
	Name     string
	PerRound []int
	Total    int
}

// Standing is one line of the final standings.
type Standing struct {
	Seat  int
	Place int
	Name  string
	Total int
	Me    bool
	// RatingChange is the ranked game's change ("+12"), "" otherwise.
	RatingChange string
	// Accuracy is the player's accuracy by the post-game analysis, ""
	// until it is made (or for bots).
	Accuracy string
	// ReportURL is where the viewer, a player of the game, reports this
	// player ("" for none).
	ReportURL string
}

// LobbyView is an open game waiting for players.
type LobbyView struct {
	Seats     []LobbySeat
	Capacity  int
	Creator   string
	IsCreator bool
	IsSeated  bool
	CanJoin   bool
	CanStart  bool
	CanAddBot bool
	LoggedIn  bool
	InviteURL string
	// InviteCode is sent with a join through an invite link.
	InviteCode string
	BotLevels  []Choice
	// Invited are the players invited by name, and their answers.
	Invited []RematchAnswer
	// MinShare is the share of games finished (percent) the table asks of
	// those who join (0: none).
	MinShare int
}

// Invitation is an invitation by name waiting for the viewer's answer.
type Invitation struct {
	ID, GameID   int64
	From, Pace   string
	Taken, Seats int
	// URL is the table's address (with its code for a private table).
	URL string
}

// LobbySeat is a taken seat in the lobby.
type LobbySeat struct {
	ID   int64
	Name string
	Bot  bool
	// CanRemove: the viewer (the creator) may take this bot off.
	CanRemove bool
	// Reliability is the player's (nil for the server's bots).
	Reliability *Reliability
}

// Choice is an option of a select.
type Choice struct {
	Value string
	Label string
}

// GameRow is a game in a list.
type GameRow struct {
	ID       int64
	URL      string
	Summary  string
	Pace     string
	Players  []string
	Taken    int
	Seats    int
	Status   string
	TurnName string
	MyTurn   bool
	Placing  int
	Watchers int
	Deadline string
	Ranked   bool
	// UnreadChat counts the players' chat messages the viewer has not read.
	UnreadChat int
	// Reliabilities are the players' (in the order of Players; nil for
	// a bot), where the list shows them; MinShare is an open table's
	// minimum share of games finished (0: none).
	Reliabilities []*Reliability
	MinShare      int
}

// NewGameView is the create-game form with its choices.
type NewGameView struct {
	Form        Form
	Seats       []Choice
	Rounds      []Choice
	Variants    []Choice
	LiveTimers  []Choice
	CorrTimers  []Choice
	Pace        string
	TurnSeconds string
	// MinShares are the choices of a minimum share of games finished.
	MinShares []Choice
}

// ReplayView is one step of a finished game's replay.
type ReplayView struct {
	GameID int64
	Step   int
	Steps  int
	Table  TableView
	// Last describes the move just made.
	Last string
	// RoundStarts are the steps at which each round begins.
	RoundStarts []int
	// Analysis is the game's post-game analysis (nil: none to show).
	Analysis *AnalysisView
	CSRF     string
	// Chat is the game's chat, both channels (nil: not on this answer).
	Chat *ReplayChatView
}
