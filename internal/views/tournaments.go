package views

import (
	"fmt"
	"net/url"
)

// TournamentRow is an event in the Tournaments page's lists and on a
// profile.
type TournamentRow struct {
	ID   int64
	URL  string
	Name string
	// Kind and Summary are the event's kind and rules in words.
	Kind    string
	Summary string
	// StartsAt is its start (RFC 3339), Starts the same in words (UTC); the
	// page's script writes it in the reader's own time.
	StartsAt string
	Starts   string
	Players  int
	Rated    bool
	Private  bool
	// Place is the profile's player's final rank ("" when not shown).
	Place string
}

// TournamentsView is the Tournaments page.
type TournamentsView struct {
	Upcoming, Running, Finished []TournamentRow
	// CanCreate: a member who may create one (else Why says what to do).
	CanCreate bool
	Why       string
}

// TournamentFormView is the form that creates (or edits) an event.
type TournamentFormView struct {
	// ID is the event edited, 0 for a new one.
	ID       int64
	Form     Form
	Kinds    []Choice
	Sizes    []Choice
	Minutes  []Choice
	Rounds   []Choice
	GameRnds []Choice
	Variants []Choice
	Live     []Choice
	Corr     []Choice
	// Pace and TurnSeconds are the form's choice.
	Pace        string
	TurnSeconds string
	// Moderator may create rated events.
	Moderator bool
	// TimeZone is the zone the start is read in when the page's script
	// does not say the browser's.
	TimeZone string
	// Schedule: the form makes a recurring event (moderators), with its
	// period choices.
	Schedule bool
	Every    []Choice
}

// TournamentView is an event's page.
type TournamentView struct {
	// Pause: a rated event the viewer may not join until it ends.
	Pause       *PauseView
	ID          int64
	Name        string
	Description string
	// Hidden: a moderator hid the description (only moderators still get
	// it in Description).
	Hidden    bool
	Kind      string // "arena" or "swiss"
	KindLabel string
	// Rules are the event's rules in lines.
	Rules  []string
	Status string
	// StatusText says where it stands; Deadline, when set, is counted down
	// beside it (RFC 3339).
	StatusText string
	Deadline   string
	StartsAt   string
	Starts     string
	Players    int
	Version    int
	// Code is the private event's code, which the links carry; InviteURL
	// is the link a player shares.
	Code      string
	InviteURL string
	// Me is the viewer's part (nil: a visitor or not in it).
	Me *TournamentMe
	// Join: the viewer may join (JoinWhy, when set, says why not).
	Join    bool
	JoinWhy string
	// LoginURL takes a visitor to log in and back.
	LoginURL string
	// CanEdit, CanCancel: the creator or a moderator, before the start.
	CanEdit   bool
	CanCancel bool
	Moderator bool
	Board     TournamentBoard
	// Featured is the running table of the top players.
	Featured *FeaturedTable
}

// TournamentMe is the viewer's part in an event.
type TournamentMe struct {
	Status string
	// StatusText says it in words.
	StatusText string
	GameURL    string
	CanPause   bool
	CanResume  bool
	Withdraw   bool
}

// TournamentBoard is the part of an event's page its stream redraws:
// where it stands, the standings and the tables.
type TournamentBoard struct {
	ID         int64
	Kind       string
	Status     string
	StatusText string
	Deadline   string
	Version    int
	Code       string
	Standings  []TournamentStanding
	// Rounds are a Swiss event's standings after each round, latest last;
	// ShownRound is the one shown (0: the latest).
	Rounds     []int
	ShownRound int
	Tables     []TournamentTable
	// TablesTitle names the tables shown (the round, or the games in play);
	// MoreTables counts the games in play not listed.
	TablesTitle string
	MoreTables  int
	// Players counts the lines of the standings, More those not shown (the
	// full standings are a link away); Page and Pages number a page of the
	// full standings (0 on the live board).
	Players, More int
	Page, Pages   int
	// Pairing says how players are seated and scored, in words.
	Pairing []string
}

// TournamentStanding is a line of the standings.
type TournamentStanding struct {
	Rank       int
	Name       string
	ProfileURL string
	Points     string
	Games      int
	Wins       int
	Byes       int
	OnFire     bool
	Buchholz   string
	Status     string
	// StatusText is "paused", "withdrawn" in words ("" when playing).
	StatusText string
	Me         bool
	Results    []TournamentResult
	// Earlier counts the player's games before those shown.
	Earlier int
	// GameURL is the table the player sits at now ("" for none).
	GameURL string
	// Reliability is the player's.
	Reliability *Reliability
}

// TournamentResult is one game (or bye) of a player in the standings.
type TournamentResult struct {
	URL     string
	Place   string
	Points  string
	Doubled bool
	Bye     bool
	Won     bool
	Title   string
}

// TournamentTable is a table of a round, or an arena game.
type TournamentTable struct {
	URL     string
	GameID  int64
	Names   []string
	Playing bool
	Result  string
}

// FeaturedTable is the running game of the top players, watched live on
// the page.
type FeaturedTable struct {
	GameID int64
	URL    string
	// Stream is the game's event stream (its board comes first).
	Stream string
	Names  []string
	// Board is the board drawn into the page (nil: the stream brings it).
	Board *TableView
}

// TVView is the site's featured game.
type TVView struct {
	Featured *FeaturedTable
}

// SchedulesView lists the recurring events (moderators).
type SchedulesView struct {
	Rows []ScheduleRow
	Form TournamentFormView
}

// ScheduleRow is a recurring event.
type ScheduleRow struct {
	ID      int64
	Name    string
	Summary string
	Every   string
	NextAt  string
	Next    string
	Active  bool
}

// tournamentFormAction is where the tournament form posts.
func tournamentFormAction(v TournamentFormView) string {
	switch {
	case v.Schedule:
		return "/admin/schedules"
	case v.ID != 0:
		return fmt.Sprintf("/tournaments/%d/edit", v.ID)
	}
	return "/tournaments"
}

// tvNext is where /tv asks for the next game (not the one it shows).
func tvNext(v TVView) string {
	if v.Featured == nil {
		return "/tv/frame"
	}
	return fmt.Sprintf("/tv/frame?after=%d", v.Featured.GameID)
}

// codeAmp is "&code=…" for a private event's code, "" for none.
func codeAmp(code string) string {
	if code == "" {
		return ""
	}
	return "&code=" + url.QueryEscape(code)
}
