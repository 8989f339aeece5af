package views

// PuzzlesView is the puzzles' page: the solver's rating and streak, the
// puzzle of the day, the themes to choose from and the latest attempts.
type PuzzlesView struct {
	Total  int
	Themes []ThemeRow
	// DailyURL is the puzzle of the day ("" when there is no puzzle yet).
	DailyURL string
	Solver   SolverView
}

// ThemeRow is one theme to choose, with its puzzles.
type ThemeRow struct {
	Theme, Label, Explain, URL string
	Count                      int
}

// SolverView is a solver's puzzle record: for members a rating, counts
// and the streak; guests and visitors solve without one.
type SolverView struct {
	Member bool
	// Rating is "" before the first puzzle; Provisional while the
	// deviation is large.
	Rating      string
	Provisional bool
	Attempts    int
	Solved      int
	Streak      int
	BestStreak  int
	History     []AttemptRow
}

// AttemptRow is one puzzle tried.
type AttemptRow struct {
	URL, When, Status, Themes string
	Solved, Open              bool
	Change                    string
}

// PuzzleView is one puzzle at a step, as its solver sees it: the deciding
// seat's view of the table and nothing more, then the outcome.
type PuzzleView struct {
	ID          int64
	Step, Steps int // Step counts from 1
	Themes      []string
	Theme       string // the theme chosen, kept for the next puzzle
	Daily       bool
	Round       int
	Rounds      int
	ActiveCard  int
	Pot         int
	DeckLeft    int
	MyTokens    int
	CanPass     bool
	PassBlocked string
	Seats       []SeatView
	Log         []LogLine
	// Replies tell what the table did since the solver's last answer.
	Replies []string
	// Right is set after a right answer with more steps to come.
	Right     bool
	AnswerURL string
	NextURL   string
	Solver    SolverView
	Outcome   *PuzzleOutcome
}

// PuzzleOutcome is an attempt's end: each step's answer with the expected
// card points and score of both choices, the game, the ratings.
type PuzzleOutcome struct {
	Solved  bool
	Steps   []PuzzleStepView
	GameURL string
	Rated   bool
	// Before and After are the solver's rating, Change the difference.
	Before, After, Change string
	PuzzleRating          string
	Attempts, SolvedBy    int
}

// PuzzleStepView is one decision of the line.
type PuzzleStepView struct {
	N                    int
	Card, Pot, Tokens    int
	Best, Played         string
	TakeCP, PassCP       string
	TakeScore, PassScore string
	TakeWin, PassWin     string
	BestIsTake           bool
	Replies              []string
}
