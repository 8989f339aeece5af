package views

// ImportView is the import page: the form, and the games the member
// imported before.
type ImportView struct {
	Form   Form
	Recent []ImportedRow
}

// ImportedRow is one imported game in the list.
type ImportedRow struct {
	ID    int64
	Names string
	When  string
}

// DatabaseView is the open database's page: a line a month.
type DatabaseView struct {
	Months []MonthRow
	// Waiting counts months over whose file is still being made.
	Waiting int
}

// MonthRow is one month's file.
type MonthRow struct {
	Label, File, URL string
	Games, Rated     int
	Size, SHA256     string
	Made             string
	// Remaking: the file is being made again (an account was deleted);
	// the one served until then is the old one.
	Remaking bool
}
