package push

import (
	"io/fs"
	"reflect"
	"strings"
	"testing"

	"nothanks/docs"
)

// docs/push.md names the payload's fields as the service worker reads
// them: each JSON name of Payload is written there as `name`, and the
// names the document once gave instead are gone.
func TestDocsNameThePayloadFields(t *testing.T) {
	b, err := fs.ReadFile(docs.FS, "push.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, "The payload is JSON")
	if i < 0 {
		t.Fatal("docs/push.md no longer describes the payload")
	}
	para := text[i:]
	if j := strings.Index(para, "\n\n"); j > 0 {
		para = para[:j]
	}
	typ := reflect.TypeFor[Payload]()
	for k := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(k).Tag.Get("json"), ",")
		if !strings.Contains(para, "`"+name+"`") {
			t.Errorf("the payload paragraph does not name `%s`: %q", name, para)
		}
	}
	for _, old := range []string{"`text`", "`path`", "`language`", "text, path", "language)"} {
		if strings.Contains(para, old) {
			t.Errorf("the payload paragraph still says %s", old)
		}
	}
}
