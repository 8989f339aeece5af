package views

// ThemeColor is the colour browsers give the site's bar and its installed
// window (the manifest says it too).
const ThemeColor = "#b8322b"

// DevicesView is the Settings section of the devices notified by Web Push.
type DevicesView struct {
	// PublicKey is the site's VAPID key, the browsers' applicationServerKey.
	PublicKey string
	Devices   []DeviceView
	// Kinds holds the kinds of notification the devices get ("true"/"false").
	Kinds Form
}

// DeviceView is one notified device.
type DeviceView struct {
	ID   int64
	Name string
	// Endpoint lets the page's script mark the row of the browser it runs
	// in; it is shown only to the device's owner.
	Endpoint     string
	Added        string
	LastDelivery string // "" for never
	Error        string // why the last push failed, if it did
	// Rename is the rename form as sent, when the name was refused.
	Rename Form
}
