// Package reliability holds the rules about players who leave their
// games (docs/fair-play.md): the reliability figure every account shows,
// what a table's minimum asks, the pauses from rated play that follow
// repeated abandonments, and how much the ranked queue weighs a
// difference in reliability. It is pure: figures and times in, answers
// out. It imports the standard library only.
package reliability

import (
	"math"
	"time"
)

// Window is how many of an account's latest finished games its figure
// counts.
const Window = 100

// MinGames is how many finished games a figure needs to be shown as a
// share; below it the account is "new".
const MinGames = 5

// Figure is an account's record over its latest finished games (at most
// Window).
type Figure struct {
	// Games counted, and of them those finished without abandoning.
	Games, Kept int
	// Timeouts: decisions made for the player because their time ran
	// out; Decisions: every decision that came to them while they held
	// their seat.
	Timeouts, Decisions int
}

// New reports whether the account has too few finished games for a share.
func (f Figure) New() bool { return f.Games < MinGames }

// Percent is the share of the games finished without abandoning, in whole
// percent rounded down (so 99.5 % is shown as 99 %, never as 100 %); 100
// for a new account.
func (f Figure) Percent() int {
	if f.Games == 0 {
		return 100
	}
	return f.Kept * 100 / f.Games
}

// TimeoutsPer100 is the timeouts per 100 decisions, to one decimal
// (rounded half up); 0 without decisions.
func (f Figure) TimeoutsPer100() float64 {
	if f.Decisions == 0 {
		return 0
	}
	return math.Floor(float64(f.Timeouts)*1000/float64(f.Decisions)+0.5) / 10
}

// Minimum share a table's creator may ask for, in percent.
const (
	MinShareLowest  = 50
	MinShareHighest = 100
)

// Meets reports whether an account may join a table that asks for a
// share of at least min percent (0: no minimum). A new account may: it
// has no record to hold against it.
func Meets(f Figure, min int) bool {
	return min <= 0 || f.New() || f.Percent() >= min
}

// Run is how long without a rated abandonment forgives the ones before:
// the next one starts a new run at step 1.
const Run = 30 * 24 * time.Hour

// Pauses are the pauses from rated play by step in a run: the first
// abandonment brings none, the second an hour, the third a day, the fourth
// three days, and every one after a week.
var Pauses = []time.Duration{0, time.Hour, 24 * time.Hour, 72 * time.Hour, 7 * 24 * time.Hour}

// Step is an abandonment's place in its run, given the latest earlier one
// that counts (nil: none) and its step.
func Step(prevAt *time.Time, prevStep int, at time.Time) int {
	if prevAt == nil || at.Sub(*prevAt) >= Run {
		return 1
	}
	return prevStep + 1
}

// PauseFor is the pause an abandonment of a given step brings.
func PauseFor(step int) time.Duration {
	if step < 1 {
		return 0
	}
	return Pauses[min(step, len(Pauses))-1]
}

// The ranked queue prefers tables whose players are alike in reliability:
// a table is formed only when its spread of shares (highest percent less
// lowest) is within every member's reliability gap, which starts at
// QueueGap points and widens by QueueGapPerMinute each minute they wait,
// so that after a few minutes anyone meets anyone the ratings allow. A new
// account counts as 100 %.
const (
	QueueGap          = 15.0
	QueueGapPerMinute = 10.0
)

// QueueShare is the share the queue compares, in percent.
func QueueShare(f Figure) float64 { return float64(f.Percent()) }

// QueueGapAt is a member's reliability gap after waiting waited.
func QueueGapAt(waited time.Duration) float64 {
	return QueueGap + max(waited.Minutes(), 0)*QueueGapPerMinute
}
