package views

// Reliability is an account's reliability as shown beside its name: the
// share of its latest games finished without abandoning ("97%", or "new"
// for an account with too few), its level for the colour, and the whole
// figure in words.
type Reliability struct {
	Label string
	// Level is "new", "good" (90 % and more), "fair" (75 % and more) or
	// "poor".
	Level string
	// Text says the whole figure: the share of how many games, and the
	// timeouts per 100 decisions.
	Text string
}

// LeaveView is the confirmation of leaving a game in play: what it costs.
type LeaveView struct {
	GameID int64
	Ranked bool
	// Tournament: the event the game belongs to (0: none).
	Tournament int64
	// Step is the leave's place in the player's run of rated
	// abandonments; Pause the pause from rated play it brings ("" for
	// none).
	Step  int
	Pause string
}

// ReliabilityView is a player's own reliability page.
type ReliabilityView struct {
	Mark           *Reliability
	Games, Percent int
	TimeoutsPer100 string
	New, Bot       bool
	// PausedUntil is when the pause that holds the player ends ("" for
	// none), and PausedUntilRFC the same for the page's countdown.
	PausedUntil, PausedUntilRFC string
	Abandonments                []AbandonmentView
}

// AbandonmentView is one rated game the player abandoned.
type AbandonmentView struct {
	ID, GameID int64
	// Left: they left it; else their time ran out three times.
	Left bool
	When string
	Step int
	// Pause is the pause it brought ("" for none).
	Pause string
	// Appeal is the player's appeal ("" for none); CanAppeal: they may
	// still send one; Answer ("forgiven", "upheld", "" for none yet) and
	// AnswerNote are the moderator's.
	Appeal             string
	CanAppeal          bool
	Answer, AnswerNote string
	// Form is the appeal form as sent, when it was refused.
	Form Form
}

// AppealView is an open appeal on the moderators' page.
type AppealView struct {
	ID, GameID int64
	Name       string
	Left       bool
	Step       int
	When, Text string
	// Own: the appeal is the moderator's own (another answers it).
	Own bool
}

// PauseView is a pause from rated play that holds the viewer, where it
// bites (the ranked queue, a rated tournament): its end and its reason.
type PauseView struct {
	Until, UntilRFC string
	// Step is how many rated abandonments in a row brought it; GameID the
	// game of the last.
	Step   int
	GameID int64
}
