// Command i18n writes the English catalogue (internal/i18n/locales/en.toml)
// from the messages in the source, and lists what the other catalogues
// lack or have too many of. Run it from the repository's root after
// changing a message: go run ./cmd/i18n
package main

import (
	"fmt"
	"os"
	"sort"

	"nothanks/internal/i18n"
	"nothanks/internal/i18n/extract"
)

func main() {
	msgs, err := extract.Scan(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "i18n:", err)
		os.Exit(1)
	}
	if err := os.WriteFile("internal/i18n/locales/en.toml", []byte(extract.TOML(msgs)), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "i18n:", err)
		os.Exit(1)
	}
	fmt.Printf("en.toml: %d messages\n", len(msgs))
	for _, l := range i18n.Langs[1:] {
		var missing, extra []string
		have := i18n.Messages(l)
		for id := range msgs {
			if have[id] == nil {
				missing = append(missing, id)
			}
		}
		for id := range have {
			if _, ok := msgs[id]; !ok {
				extra = append(extra, id)
			}
		}
		sort.Strings(missing)
		sort.Strings(extra)
		fmt.Printf("%s.toml: %d to translate, %d no longer used\n", l, len(missing), len(extra))
		for _, id := range missing {
			fmt.Printf("  missing %s\n", extract.Quote(id))
		}
		for _, id := range extra {
			fmt.Printf("  unused  %s\n", extract.Quote(id))
		}
	}
}
