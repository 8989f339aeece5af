package push

import "strings"

// DeviceName names a device for Settings from its browser's user agent,
// as "Browser · System" ("Chrome · Android", "Firefox · Windows"); the
// parts not recognised read "Browser" and "Device".
func DeviceName(ua string) string {
	return browserOf(ua) + " · " + systemOf(ua)
}

func browserOf(ua string) string {
	// Order matters: Edge and Opera say Chrome too, Chrome says Safari.
	for _, b := range []struct{ token, name string }{
		{"Edg/", "Edge"}, {"EdgA/", "Edge"}, {"EdgiOS/", "Edge"},
		{"OPR/", "Opera"}, {"SamsungBrowser/", "Samsung Internet"},
		{"Firefox/", "Firefox"}, {"FxiOS/", "Firefox"},
		{"HeadlessChrome/", "Chromium"}, {"Chromium/", "Chromium"}, {"CriOS/", "Chrome"}, {"Chrome/", "Chrome"},
		{"Safari/", "Safari"},
	} {
		if strings.Contains(ua, b.token) {
			return b.name
		}
	}
	return "Browser"
}

func systemOf(ua string) string {
	for _, s := range []struct{ token, name string }{
		{"Android", "Android"}, {"iPhone", "iPhone"}, {"iPad", "iPad"},
		{"CrOS", "ChromeOS"}, {"Windows", "Windows"}, {"Macintosh", "macOS"}, {"Mac OS X", "macOS"},
		{"Linux", "Linux"},
	} {
		if strings.Contains(ua, s.token) {
			return s.name
		}
	}
	return "Device"
}
