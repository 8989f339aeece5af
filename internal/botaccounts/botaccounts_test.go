package botaccounts

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The bot names are read once per NamesFresh; a failed read keeps the last
// names and waits as long before trying again; forget reads again at once.
func TestNameCache(t *testing.T) {
	var c nameCache
	reads, fail := 0, false
	names := []string{"Ida"}
	load := func(context.Context) ([]string, error) {
		reads++
		if fail {
			return nil, errors.New("down")
		}
		return names, nil
	}
	t0 := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	get := func(at time.Duration) Names { return c.get(context.Background(), t0.Add(at), load) }

	if got := get(0); !got.Has("Ida") || got.Has("Ann") || reads != 1 {
		t.Fatalf("first read: %v after %d reads", got, reads)
	}
	names = []string{"Ida", "Max"}
	if got := get(NamesFresh - time.Second); got.Has("Max") || reads != 1 {
		t.Errorf("within NamesFresh: %v after %d reads, want the names read first", got, reads)
	}
	if got := get(NamesFresh); !got.Has("Max") || reads != 2 {
		t.Errorf("after NamesFresh: %v after %d reads, want Max too", got, reads)
	}
	fail = true
	if got := get(2 * NamesFresh); !got.Has("Max") || reads != 3 {
		t.Errorf("a failed read: %v after %d reads, want the last names", got, reads)
	}
	if get(2*NamesFresh + time.Second); reads != 3 {
		t.Errorf("tried again %d times right after a failure, want to wait", reads-3)
	}
	fail = false
	c.forget()
	if got := get(2*NamesFresh + 2*time.Second); !got.Has("Max") || reads != 4 {
		t.Errorf("after forget: %v after %d reads, want a read at once", got, reads)
	}
}
