package reliability

import (
	"testing"
	"time"
)

func TestFigure(t *testing.T) {
	tests := []struct {
		name    string
		f       Figure
		newAcc  bool
		percent int
		per100  float64
	}{
		{"NoGames", Figure{}, true, 100, 0},
		{"FourGamesIsNew", Figure{Games: 4, Kept: 3, Timeouts: 1, Decisions: 80}, true, 75, 1.3},
		{"FiveGames", Figure{Games: 5, Kept: 5, Decisions: 120}, false, 100, 0},
		// 199 of 200 would be 99.5 %: shown as 99, never as 100.
		{"RoundedDown", Figure{Games: 100, Kept: 99, Timeouts: 3, Decisions: 2000}, false, 99, 0.2},
		{"TwoThirds", Figure{Games: 9, Kept: 6, Timeouts: 7, Decisions: 40}, false, 66, 17.5},
		{"HalfUpToOneDecimal", Figure{Games: 10, Kept: 10, Timeouts: 1, Decisions: 16}, false, 100, 6.3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f.New(); got != tt.newAcc {
				t.Errorf("New() = %v, want %v", got, tt.newAcc)
			}
			if got := tt.f.Percent(); got != tt.percent {
				t.Errorf("Percent() = %d, want %d", got, tt.percent)
			}
			if got := tt.f.TimeoutsPer100(); got != tt.per100 {
				t.Errorf("TimeoutsPer100() = %v, want %v", got, tt.per100)
			}
		})
	}
}

func TestMeets(t *testing.T) {
	tests := []struct {
		name string
		f    Figure
		min  int
		want bool
	}{
		{"NoMinimum", Figure{Games: 10, Kept: 1}, 0, true},
		{"NewAccountPasses", Figure{Games: 3, Kept: 0}, 90, true},
		{"AtTheMinimum", Figure{Games: 10, Kept: 8}, 80, true},
		{"BelowIt", Figure{Games: 10, Kept: 7}, 80, false},
		{"RoundedDownBelow", Figure{Games: 200, Kept: 159}, 80, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Meets(tt.f, tt.min); got != tt.want {
				t.Errorf("Meets(%+v, %d) = %v, want %v", tt.f, tt.min, got, tt.want)
			}
		})
	}
}

// The steps of a run and their pauses, as docs/fair-play.md gives them.
func TestStepsAndPauses(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { x := t0.Add(d); return &x }
	tests := []struct {
		name      string
		prevAt    *time.Time
		prevStep  int
		at        time.Time
		wantStep  int
		wantPause time.Duration
	}{
		{"First", nil, 0, t0, 1, 0},
		{"SecondTheSameDay", at(0), 1, t0.Add(3 * time.Hour), 2, time.Hour},
		{"SecondAfter29Days", at(0), 1, t0.Add(29 * 24 * time.Hour), 2, time.Hour},
		{"ForgivenAfter30Days", at(0), 4, t0.Add(30 * 24 * time.Hour), 1, 0},
		{"Third", at(0), 2, t0.Add(time.Hour), 3, 24 * time.Hour},
		{"Fourth", at(0), 3, t0.Add(time.Hour), 4, 72 * time.Hour},
		{"Fifth", at(0), 4, t0.Add(time.Hour), 5, 7 * 24 * time.Hour},
		{"Ninth", at(0), 8, t0.Add(time.Hour), 9, 7 * 24 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			step := Step(tt.prevAt, tt.prevStep, tt.at)
			if step != tt.wantStep {
				t.Errorf("Step = %d, want %d", step, tt.wantStep)
			}
			if got := PauseFor(step); got != tt.wantPause {
				t.Errorf("PauseFor(%d) = %v, want %v", step, got, tt.wantPause)
			}
		})
	}
}

func TestQueueGap(t *testing.T) {
	if got := QueueGapAt(0); got != 15 {
		t.Errorf("gap at once = %v, want 15", got)
	}
	if got := QueueGapAt(3 * time.Minute); got != 45 {
		t.Errorf("gap after 3 minutes = %v, want 45", got)
	}
}
