package i18n

import (
	"context"
	"strconv"
	"strings"
	"time"
)

var (
	weekdays = map[Lang][7]string{
		English: {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"},
		Spanish: {"dom", "lun", "mar", "mié", "jue", "vie", "sáb"},
		Italian: {"dom", "lun", "mar", "mer", "gio", "ven", "sab"},
	}
	months = map[Lang][12]string{
		English: {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"},
		Spanish: {"ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sept", "oct", "nov", "dic"},
		Italian: {"gen", "feb", "mar", "apr", "mag", "giu", "lug", "ago", "set", "ott", "nov", "dic"},
	}
	// units are the short forms of days, hours, minutes and seconds.
	units = map[Lang][4]string{
		English: {"d", "h", "m", "s"},
		Spanish: {"d", "h", "min", "s"},
		Italian: {"g", "h", "min", "s"},
	}
)

func lang(l Lang) Lang {
	if _, ok := months[l]; ok {
		return l
	}
	return English
}

// DateTime writes a moment as people of the language write it, with its
// zone: "Mon 2 Jan 15:04 CET", "lun 2 ene 15:04 CET", "lun 2 gen 15:04 CET".
func DateTime(l Lang, t time.Time) string {
	l = lang(l)
	return weekdays[l][t.Weekday()] + " " + strconv.Itoa(t.Day()) + " " + months[l][t.Month()-1] + " " + t.Format("15:04 MST")
}

// Date writes a day: "2 Jan 2026", "2 ene 2026", "2 gen 2026".
func Date(l Lang, t time.Time) string {
	l = lang(l)
	return strconv.Itoa(t.Day()) + " " + months[l][t.Month()-1] + " " + strconv.Itoa(t.Year())
}

// Month writes a month: "Nov 2026", "nov 2026".
func Month(l Lang, t time.Time) string {
	l = lang(l)
	return months[l][t.Month()-1] + " " + strconv.Itoa(t.Year())
}

// Duration writes a time left or waited in at most two units: "2d 23h",
// "5m 10s", "45s" in English; "2 d 23 h", "5 min 10 s" in Spanish; "2 g
// 23 h" in Italian.
func Duration(l Lang, d time.Duration) string {
	l = lang(l)
	if d < 0 {
		d = 0
	}
	u := units[l]
	sep := " "
	if l == English {
		sep = ""
	}
	part := func(n int64, unit string) string { return strconv.FormatInt(n, 10) + sep + unit }
	secs := int64(d / time.Second)
	days, hours, mins := secs/86400, secs%86400/3600, secs%3600/60
	switch {
	case days > 0:
		return part(days, u[0]) + " " + part(hours, u[1])
	case hours > 0:
		return part(hours, u[1]) + " " + part(mins, u[2])
	case mins > 0:
		return part(mins, u[2]) + " " + part(secs%60, u[3])
	}
	return part(secs, u[3])
}

// Units are the language's short forms of days, hours, minutes and
// seconds, and whether a space goes between number and unit, for the page
// script's countdowns.
func Units(l Lang) (d, h, m, s string, spaced bool) {
	l = lang(l)
	u := units[l]
	return u[0], u[1], u[2], u[3], l != English
}

// Decimal writes a number to one decimal place as the reader's language
// does: 1.5 in English, 1,5 in Spanish and Italian.
func Decimal(ctx context.Context, f float64) string {
	s := strconv.FormatFloat(f, 'f', 1, 64)
	if l := From(ctx); l == Spanish || l == Italian {
		s = strings.Replace(s, ".", ",", 1)
	}
	return s
}
