package fairplay

import "nothanks/internal/rating"

// RefundWindow is how far back a mark gives points back: the rated games
// of the last 90 days.
const RefundWindowDays = 90

// Refund is what a victim gets back of a rated game with a marked
// account: the points they lost to it, that is minus their pairwise
// rating change against it (rating.Pairwise), when it was a loss; 0 when
// they gained against it. n is how many seats the game had.
func Refund(victim, marked rating.Player, n int) float64 {
	return max(0, -rating.Pairwise(victim, marked, n))
}
