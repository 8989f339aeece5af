package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"nothanks/internal/apptest"
)

// loggedIn is a browser-like client logged in as an API user.
func loggedIn(t *testing.T, s *apptest.Server, p *apptest.API) *apptest.Client {
	t.Helper()
	c := s.Client()
	if res := c.Login(p.Name, apptest.Password); res.Status != http.StatusSeeOther {
		t.Fatalf("log in %s: %d", p.Name, res.Status)
	}
	return c
}

// startedGame makes a public live game of three people and starts it.
func startedGame(t testing.TB, ps ...*apptest.API) int64 {
	t.Helper()
	_, g := ps[0].Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": len(ps), "rounds": 1, "pace": "live", "turn_seconds": 300})
	id := int64(g["id"].(float64))
	for _, p := range ps[1:] {
		if st, body := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", id), nil); st != http.StatusOK {
			t.Fatalf("join: %d %v", st, body)
		}
	}
	return id
}

// nextChatWith reads a stream's chat events until one contains want,
// failing if one contains any of never first.
func nextChatWith(t *testing.T, st *apptest.Stream, want string, never ...string) string {
	t.Helper()
	for {
		data := st.Next(t, "chat")
		for _, n := range never {
			if strings.Contains(data, n) {
				t.Fatalf("a chat event carries %q: %s", n, data)
			}
		}
		if strings.Contains(data, want) {
			return data
		}
	}
}

// Table chat: two players talk live over the game's stream while a
// spectator's chat stays apart; markup shows as text; length, emptiness and
// rate are limited with clear answers that keep the message; guests and
// visitors cannot write; a player mutes the chat; a message is reported,
// and a moderator hides it (live), silences its author and disables an
// account, each action logged.
func TestTableChatAndModeration(t *testing.T) {
	s := apptest.New(t)
	hal, ida, jon := s.APIFor("Hal"), s.APIFor("Ida"), s.APIFor("Jon")
	kim := s.APIFor("Kim")
	id := startedGame(t, hal, ida, jon)
	chatPath := fmt.Sprintf("/api/v1/games/%d/chat", id)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	ic, kc := loggedIn(t, s, ida), loggedIn(t, s, kim)
	idaStream := ic.Stream(ctx, fmt.Sprintf("/games/%d/events", id))
	kimStream := kc.Stream(ctx, fmt.Sprintf("/games/%d/events", id))
	if first := idaStream.Next(t, "chat"); !strings.Contains(first, "No messages yet.") {
		t.Errorf("Ida's first chat event: %s", first)
	}

	// Hal writes from the page (htmx): the answer is an empty form and the
	// messages; Ida's stream brings his words as text, never as markup.
	hc := loggedIn(t, s, hal)
	res := hc.Do(htmxPostForm(t, hc, s.URL, fmt.Sprintf("/games/%d/chat", id), url.Values{"text": {"gg <b>bold</b>\n<script>alert(1)</script>"}}))
	if res.Status != http.StatusOK || !strings.Contains(res.Body, "data-sent") || strings.Contains(res.Body, "<b>bold</b>") {
		t.Fatalf("post from the page: %d %s", res.Status, res.Body)
	}
	live := nextChatWith(t, idaStream, "gg &lt;b&gt;bold&lt;/b&gt; &lt;script&gt;alert(1)&lt;/script&gt;")
	if strings.Contains(live, "<script>") || strings.Contains(live, "<b>") {
		t.Errorf("markup reached the stream: %s", live)
	}
	page := ic.Get(fmt.Sprintf("/games/%d", id))
	if !page.Has("chat-players") || page.TestID("chat-body") != "gg <b>bold</b> <script>alert(1)</script>" {
		t.Errorf("Ida's page: players' chat %v, message %q", page.Has("chat-players"), page.TestID("chat-body"))
	}
	if page.Doc().Find(`[data-testid="chat-log"] b, [data-testid="chat-log"] script`).Length() != 0 {
		t.Error("the message became elements on the page")
	}

	// Kim watches: the spectators' chat, without the players' words; his
	// own message reaches his stream and not the players'.
	kp := kc.Get(fmt.Sprintf("/games/%d", id))
	if !kp.Has("chat-spectators") || strings.Contains(kp.Body, "bold") {
		t.Errorf("Kim's page shows the players' chat")
	}
	if st, body := kim.Do(http.MethodPost, chatPath, map[string]any{"text": "  nice   pass!  "}); st != http.StatusCreated || body["text"] != "nice pass!" {
		t.Fatalf("Kim writes: %d %v", st, body)
	}
	nextChatWith(t, kimStream, "nice pass!", "bold")
	if _, body := hal.Do(http.MethodGet, chatPath, nil); body["channel"] != "players" || strings.Contains(fmt.Sprint(body), "nice pass") || !strings.Contains(fmt.Sprint(body), "gg <b>bold</b>") {
		t.Errorf("Hal's chat through the API: %v", body)
	}
	if _, body := kim.Do(http.MethodGet, chatPath, nil); body["channel"] != "spectators" || strings.Contains(fmt.Sprint(body), "bold") {
		t.Errorf("Kim's chat through the API: %v", body)
	}
	visitor := s.Client().Get(fmt.Sprintf("/games/%d", id))
	if !strings.Contains(visitor.TestID("chat-why"), "Log in to write") || !strings.Contains(visitor.TestID("chat-spectators"), "nice pass!") {
		t.Errorf("a visitor's chat: %q", visitor.TestID("chat-why"))
	}

	// A private table: a spectator who came by its invite link writes in
	// its spectators' chat (the form carries the code); without the code
	// the table does not exist for him.
	_, pg := hal.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 60, "private": true})
	private := int64(pg["id"].(float64))
	invite := hc.Get(fmt.Sprintf("/games/%d", private)).TestID("invite-url")
	code := invite[strings.LastIndex(invite, "/")+1:]
	form := kc.Get("/join/" + code).Doc().Find(`[data-testid="chat-form"] input[name="code"]`)
	if v, _ := form.Attr("value"); v != code {
		t.Fatalf("the private table's chat form carries code %q", v)
	}
	if res := kc.PostForm(fmt.Sprintf("/games/%d/chat", private), url.Values{"text": {"hello from the rail"}}); res.Status != http.StatusNotFound {
		t.Errorf("writing at a private table without its code: %d", res.Status)
	}
	res = kc.PostForm(fmt.Sprintf("/games/%d/chat", private), url.Values{"text": {"hello from the rail"}, "code": {code}})
	if got := kc.Follow(res); !strings.Contains(got.TestID("chat-spectators"), "hello from the rail") {
		t.Errorf("the private table's spectators' chat after writing: %d %q", res.Status, got.TestID("chat-spectators"))
	}

	// Limits: the answer says what is wrong and keeps the words.
	long := strings.Repeat("é", 301)
	res = hc.Do(htmxPostForm(t, hc, s.URL, fmt.Sprintf("/games/%d/chat", id), url.Values{"text": {long}}))
	if !strings.Contains(res.TestID("chat-error"), "at most 300 characters; this one has 301") {
		t.Errorf("a long message: %q", res.TestID("chat-error"))
	}
	if v, _ := res.Doc().Find(`[data-testid="chat-input"]`).Attr("value"); v != long {
		t.Error("the refused message is not kept in the box")
	}
	// Through the API the refusal names the field, text.
	for text, want := range map[string]string{" \n\t ": "Write a message first.", long: "A message has at most 300 characters; this one has 301."} {
		st, body := jon.Do(http.MethodPost, chatPath, map[string]any{"text": text})
		e, _ := body["error"].(map[string]any)
		fields, _ := e["fields"].(map[string]any)
		if st != http.StatusUnprocessableEntity || e["message"] != want || fields["text"] != want {
			t.Errorf("the message %.20q: %d %v, want 422 with text: %q", text, st, body, want)
		}
	}
	if st, _ := jon.Do(http.MethodPost, chatPath, map[string]any{"text": strings.Repeat("a", 300)}); st != http.StatusCreated {
		t.Errorf("a message of exactly 300 characters: %d", st)
	}
	for i := 2; i <= 5; i++ {
		if st, body := jon.Do(http.MethodPost, chatPath, map[string]any{"text": fmt.Sprintf("message %d", i)}); st != http.StatusCreated {
			t.Fatalf("message %d: %d %v", i, st, body)
		}
	}
	// The test's clock stands still: the window opened with the first
	// message, so the sixth waits the whole 10 s, in the message and in
	// Retry-After.
	if st, h, body := apiHeaders(t, s, jon, http.MethodPost, chatPath, map[string]any{"text": "one too many"}); st != http.StatusTooManyRequests ||
		!strings.Contains(fmt.Sprint(body), "too fast: at most 5 messages in 10 seconds. Wait 10 s.") || h.Get("Retry-After") != "10" {
		t.Errorf("the sixth message in 10 s: %d (Retry-After %q) %v", st, h.Get("Retry-After"), body)
	}
	s.Clock.Advance(11 * time.Second)
	if st, _ := jon.Do(http.MethodPost, chatPath, map[string]any{"text": "back again"}); st != http.StatusCreated {
		t.Errorf("after the window: %d", st)
	}

	// A guest cannot write.
	gc := s.Client()
	gc.PostForm("/play", url.Values{})
	if got := gc.Get(fmt.Sprintf("/games/%d", id)).TestID("chat-why"); !strings.Contains(got, "Guests cannot chat") {
		t.Errorf("a guest's chat: %q", got)
	}
	if res := gc.PostForm(fmt.Sprintf("/games/%d/chat", id), url.Values{"text": {"hi"}}); !strings.Contains(gc.Follow(res).Body, "Guests cannot chat") {
		t.Errorf("a guest posts: %d", res.Status)
	}

	// Ida mutes the chat for herself, and brings it back.
	ic.PostForm(fmt.Sprintf("/games/%d/chat/mute", id), url.Values{"muted": {"true"}})
	if p := ic.Get(fmt.Sprintf("/games/%d", id)); !p.Has("chat-muted") || p.Has("chat-log") || strings.Contains(p.Body, "bold") {
		t.Error("the muted chat still shows")
	}
	if p := hc.Get(fmt.Sprintf("/games/%d", id)); !p.Has("chat-log") {
		t.Error("Ida's mute muted Hal's chat too")
	}
	ic.PostForm(fmt.Sprintf("/games/%d/chat/mute", id), url.Values{"muted": {"false"}})
	if p := ic.Get(fmt.Sprintf("/games/%d", id)); p.Has("chat-muted") || !p.Has("chat-log") {
		t.Error("the unmuted chat does not show")
	}

	// Reports: Kim cannot reach the players' message; Ida reports it once.
	halMsg, _ := ic.Get(fmt.Sprintf("/games/%d", id)).Doc().Find(`[data-testid="chat-message"]`).First().Attr("data-id")
	if res := kc.Get("/chat/" + halMsg + "/report"); res.Status != http.StatusNotFound {
		t.Errorf("a spectator opens a players' message: %d", res.Status)
	}
	if res := hc.PostForm("/chat/"+halMsg+"/report", url.Values{}); res.Status != http.StatusSeeOther || !strings.Contains(hc.Follow(res).Body, "That is your own message") {
		t.Errorf("Hal reports himself: %d", res.Status)
	}
	reportPage := ic.Get("/chat/" + halMsg + "/report")
	if reportPage.TestID("reported-message") != "Hal: gg <b>bold</b> <script>alert(1)</script>" {
		t.Errorf("the report page quotes %q", reportPage.TestID("reported-message"))
	}
	if reportPage.Has("report-moderator") {
		t.Error("a player's report page offers the moderators' actions")
	}
	if res := ic.PostForm("/chat/"+halMsg+"/report", url.Values{"reason": {strings.Repeat("x", 201)}}); res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.TestID("error-reason"), "at most 200") {
		t.Errorf("a long reason: %d %q", res.Status, res.TestID("error-reason"))
	}
	res = ic.PostForm("/chat/"+halMsg+"/report", url.Values{"reason": {"shouting"}})
	if body := ic.Follow(res).Body; !strings.Contains(body, "the moderators will look at this message") {
		t.Errorf("no thanks for the report: %d %s", res.Status, body)
	}
	if res := ic.PostForm("/chat/"+halMsg+"/report", url.Values{}); !strings.Contains(ic.Follow(res).Body, "reported this message already") {
		t.Error("a second report is not answered")
	}

	// Moderation: only admins; the role comes from the command line.
	if res := kc.Get("/admin"); res.Status != http.StatusForbidden {
		t.Errorf("a player opens /admin: %d", res.Status)
	}
	mod := s.APIFor("Moe")
	if err := s.App.Moderation.Grant(ctx, "Moe", true); err != nil {
		t.Fatal(err)
	}
	mc := loggedIn(t, s, mod)
	admin := mc.Get("/admin")
	if admin.Status != http.StatusOK || !strings.Contains(admin.TestID("report-row"), "shouting") || admin.TestID("report-body") != "gg <b>bold</b> <script>alert(1)</script>" {
		t.Fatalf("the reports page: %d %q", admin.Status, admin.TestID("report-row"))
	}
	// The conversation around the reported message, by hand: it was the
	// first in the players' chat; Jon's next three follow; the spectators'
	// words are not part of it.
	var context []string
	admin.Doc().Find(`[data-testid="report-context"] [data-testid="context-line"]`).Each(func(i int, l *goquery.Selection) {
		line := strings.Join(strings.Fields(l.Text()), " ")
		if l.HasClass("reported") {
			line = "> " + line
		}
		context = append(context, line)
	})
	wantContext := []string{"> Hal: gg <b>bold</b> <script>alert(1)</script>", "Jon: " + strings.Repeat("a", 300), "Jon: message 2", "Jon: message 3"}
	if fmt.Sprint(context) != fmt.Sprint(wantContext) {
		t.Errorf("the conversation around the report:\n%q\nwant\n%q", context, wantContext)
	}
	res = mc.PostForm("/admin/messages/"+halMsg+"/hide", url.Values{})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("hide: %d", res.Status)
	}
	nextChatWith(t, idaStream, "Message removed by a moderator.")
	if p := ic.Get(fmt.Sprintf("/games/%d", id)); strings.Contains(p.Body, "bold") || !p.Has("chat-hidden") {
		t.Error("the hidden message still shows at the table")
	}
	if mc.Get("/admin").Has("report-row") {
		t.Error("the report stays open after the message was hidden")
	}

	// A moderator watching the table acts on a message nobody reported,
	// from its report page, and comes back to the table.
	kimMsg, _ := mc.Get(fmt.Sprintf("/games/%d", id)).Doc().Find(`[data-testid="chat-spectators"] [data-testid="chat-message"]`).First().Attr("data-id")
	modReport := mc.Get("/chat/" + kimMsg + "/report")
	if !modReport.Has("report-moderator") || !strings.Contains(modReport.TestID("reported-message"), "nice pass!") {
		t.Fatalf("the moderator's report page: %d %q", modReport.Status, modReport.TestID("report-moderator"))
	}
	back, _ := modReport.Doc().Find(`[data-testid="report-moderator"] input[name="back"]`).First().Attr("value")
	res = mc.PostForm("/admin/messages/"+kimMsg+"/hide", url.Values{"back": {back}})
	if loc := res.Header.Get("Location"); loc != fmt.Sprintf("/games/%d#chat", id) {
		t.Errorf("after hiding from the table the moderator goes to %q", loc)
	}
	nextChatWith(t, kimStream, "Message removed by a moderator.")
	if res := mc.PostForm("/admin/messages/"+kimMsg+"/hide", url.Values{"back": {"https://evil.example/"}}); res.Header.Get("Location") != "/" {
		t.Errorf("a back to another site leads to %q", res.Header.Get("Location"))
	}

	// Silence Hal for a day; disable Jon (his session and token end).
	mc.PostForm("/admin/users/Hal/silence", url.Values{"hours": {"24"}})
	if st, body := hal.Do(http.MethodPost, chatPath, map[string]any{"text": "hello?"}); st != http.StatusForbidden || !strings.Contains(fmt.Sprint(body), "silenced you in chat") {
		t.Errorf("a silenced player writes: %d %v", st, body)
	}
	jc := loggedIn(t, s, jon)
	mc.PostForm("/admin/users", url.Values{"name": {"Jon"}, "action": {"disable"}, "note": {"spam"}})
	if st, _ := jon.Do(http.MethodGet, "/api/v1/me", nil); st != http.StatusUnauthorized {
		t.Errorf("a disabled account's token: %d", st)
	}
	if res := jc.Get("/settings"); res.Status != http.StatusSeeOther {
		t.Errorf("a disabled account's session: %d", res.Status)
	}
	if res := s.Client().Login("Jon", apptest.Password); res.Status == http.StatusSeeOther || !strings.Contains(res.Body, "disabled by a moderator") {
		t.Errorf("a disabled account logs in: %d", res.Status)
	}
	if res := mc.PostForm("/admin/users", url.Values{"name": {"Nobody"}, "action": {"disable"}}); res.Status != http.StatusNotFound || !strings.Contains(res.Body, "no player called Nobody") {
		t.Errorf("acting on nobody: %d", res.Status)
	}
	mc.PostForm("/admin/users", url.Values{"name": {"Jon"}, "action": {"enable"}})
	if res := s.Client().Login("Jon", apptest.Password); res.Status != http.StatusSeeOther {
		t.Errorf("Jon enabled again cannot log in: %d", res.Status)
	}
	logPage := mc.Get("/admin/log")
	var actions []string
	logPage.Doc().Find(`[data-testid="mod-log-row"]`).Each(func(_ int, r *goquery.Selection) {
		var cells []string
		r.Find("td").Each(func(_ int, td *goquery.Selection) {
			cells = append(cells, strings.Join(strings.Fields(td.Text()), " "))
		})
		actions = append(actions, strings.Join(cells, " "))
	})
	want := []string{"Moe enabled the account Jon", "Moe disabled the account Jon spam", "Moe silenced Hal", "Moe hid a message message #" + kimMsg + "nice pass!hidden Show it again Kim", "Moe hid a message message #" + halMsg + "gg <b>bold</b> <script>alert(1)</script>hidden Show it again Hal", "command line made a moderator Moe"}
	if len(actions) != len(want) {
		t.Fatalf("the moderation log: %q", actions)
	}
	for i := range want {
		if !strings.Contains(actions[i], want[i]) {
			t.Errorf("log row %d: %q, want %q", i, actions[i], want[i])
		}
	}
}

// TestModeratorReadsAHiddenMessageAndShowsItAgain: after a hide, the
// moderators (and nobody else) still read the message, marked as hidden:
// in the moderation log, at the table, over the stream, through the API
// and on its report page; a moderator shows it again, which is logged, and
// everybody reads it again.
func TestModeratorReadsAHiddenMessageAndShowsItAgain(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ann, bob, cat := s.APIFor("Ann"), s.APIFor("Bob"), s.APIFor("Cat")
	id := startedGame(t, ann, bob, cat)
	sam, pip, moe := s.APIFor("Sam"), s.APIFor("Pip"), s.APIFor("Moe")
	if err := s.App.Moderation.Grant(ctx, "Moe", true); err != nil {
		t.Fatal(err)
	}
	const rude = "you all play badly"
	chatPath := fmt.Sprintf("/api/v1/games/%d/chat", id)
	_, m := sam.Do(http.MethodPost, chatPath, map[string]any{"text": rude})
	msg := fmt.Sprint(int64(m["id"].(float64)))
	pc, mc := loggedIn(t, s, pip), loggedIn(t, s, moe)
	pipStream := pc.Stream(ctx, fmt.Sprintf("/games/%d/events", id))
	moeStream := mc.Stream(ctx, fmt.Sprintf("/games/%d/events", id))
	nextChatWith(t, pipStream, rude)
	nextChatWith(t, moeStream, rude)

	if res := mc.PostForm("/admin/messages/"+msg+"/hide", url.Values{}); res.Status != http.StatusSeeOther {
		t.Fatalf("hide: %d", res.Status)
	}
	if frame := nextChatWith(t, pipStream, "Message removed by a moderator."); strings.Contains(frame, rude) {
		t.Errorf("a spectator's stream carries the hidden message's text: %s", frame)
	}
	if frame := nextChatWith(t, moeStream, "chat-hidden-body"); !strings.Contains(frame, rude) || !strings.Contains(frame, "/admin/messages/"+msg+"/unhide") {
		t.Errorf("the moderator's stream shows the hidden message without its text or the way back: %s", frame)
	}
	// The others: not at the table, not in the API, not on a report page.
	if page := pc.Get(fmt.Sprintf("/games/%d", id)); strings.Contains(page.Body, rude) || !page.Has("chat-hidden") {
		t.Error("a spectator's table shows the hidden message")
	}
	_, raw := pip.Raw(http.MethodGet, chatPath, nil)
	if strings.Contains(string(raw), rude) || !strings.Contains(string(raw), `"hidden":true`) || strings.Contains(string(raw), `"body":""`) {
		t.Errorf("a spectator's API chat: %s", raw)
	}
	_, pl := pip.Do(http.MethodGet, chatPath, nil)
	if got := pl["messages"].([]any)[0].(map[string]any); got["body"] != nil {
		t.Errorf("a hidden message in the API has a body: %v", got)
	}
	if res := pc.Get("/chat/" + msg + "/report"); res.Status != http.StatusNotFound {
		t.Errorf("a spectator opens the hidden message's report page: %d", res.Status)
	}
	// The moderator: the log, the table, the API, the report page.
	logRow := mc.Get("/admin/log").Doc().Find(`[data-testid="mod-log-row"]`).First()
	if !strings.Contains(logRow.Text(), "hid a message") || strings.TrimSpace(logRow.Find(`[data-testid="mod-log-message"]`).Text()) != rude || logRow.Find(`[data-testid="mod-log-hidden"]`).Length() != 1 {
		t.Errorf("the log's entry: %q", strings.Join(strings.Fields(logRow.Text()), " "))
	}
	table := mc.Get(fmt.Sprintf("/games/%d", id))
	if table.TestID("chat-hidden-body") != rude || !table.Has("admin-unhide") {
		t.Errorf("the moderator's table: hidden text %q, show-again button %v", table.TestID("chat-hidden-body"), table.Has("admin-unhide"))
	}
	_, ml := moe.Do(http.MethodGet, chatPath, nil)
	if got := ml["messages"].([]any)[0].(map[string]any); got["body"] != rude || got["hidden"] != true {
		t.Errorf("the moderator's API chat: %v", got)
	}
	report := mc.Get("/chat/" + msg + "/report")
	if report.Status != http.StatusOK || !report.Has("reported-hidden") || !report.Has("admin-unhide") || report.Has("admin-hide") || report.Has("report-form") {
		t.Fatalf("the moderator's report page of a hidden message: %d", report.Status)
	}

	// Show it again: logged once, everybody reads it.
	back := report.Doc().Find(`[data-testid="report-moderator"] input[name="back"]`).First().AttrOr("value", "")
	res := mc.PostForm("/admin/messages/"+msg+"/unhide", url.Values{"back": {back}})
	if loc := res.Header.Get("Location"); res.Status != http.StatusSeeOther || loc != fmt.Sprintf("/games/%d#chat", id) {
		t.Fatalf("show again: %d to %q", res.Status, loc)
	}
	nextChatWith(t, pipStream, rude)
	if page := pc.Get(fmt.Sprintf("/games/%d", id)); !strings.Contains(page.TestID("chat-spectators"), rude) || page.Has("chat-hidden") {
		t.Error("the message shown again is not at the spectator's table")
	}
	mc.PostForm("/admin/messages/"+msg+"/unhide", url.Values{}) // already shown: nothing to log
	rows := mc.Get("/admin/log").Doc().Find(`[data-testid="mod-log-row"]`)
	if rows.Length() != 3 || !strings.Contains(rows.First().Text(), "showed a message again") || strings.TrimSpace(rows.First().Find(`[data-testid="mod-log-message"]`).Text()) != rude || rows.First().Find(`[data-testid="mod-log-hidden"]`).Length() != 0 {
		t.Errorf("the log after showing again: %d rows, newest %q", rows.Length(), strings.Join(strings.Fields(rows.First().Text()), " "))
	}
	if res := pc.PostForm("/admin/messages/"+msg+"/unhide", url.Values{}); res.Status != http.StatusForbidden {
		t.Errorf("a spectator shows a message again: %d", res.Status)
	}
}

// A hundred spectators watch while one of them writes: every spectator's
// stream gets each message, the players' never do, and each message is
// drawn once per chat (the spectators', the players'), not once per stream.
func TestManyWatchersShareOneChatDrawing(t *testing.T) {
	const watchers = 100
	s := apptest.New(t, apptest.WithoutWorkers())
	hal, ida, jon, kim := s.APIFor("Hal"), s.APIFor("Ida"), s.APIFor("Jon"), s.APIFor("Kim")
	id := startedGame(t, hal, ida, jon)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	streams := make([]*apptest.Stream, watchers)
	for i := range streams {
		c := s.Client()
		c.HTTP.Timeout = 0
		streams[i] = c.Stream(ctx, fmt.Sprintf("/games/%d/events", id))
		streams[i].Next(t, "chat") // the chat as it stands, first
	}
	player := loggedIn(t, s, hal)
	player.HTTP.Timeout = 0
	ps := player.Stream(ctx, fmt.Sprintf("/games/%d/events", id))
	ps.Next(t, "chat")
	before := s.App.Watch.Stats()
	const messages = 4
	for n := range messages {
		text := fmt.Sprintf("spectator message %d", n)
		if st, body := kim.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/chat", id), map[string]any{"text": text}); st != http.StatusCreated {
			t.Fatalf("post: %d %v", st, body)
		}
		for _, st := range streams {
			nextChatWith(t, st, text)
		}
		if data := ps.Next(t, "chat"); strings.Contains(data, "spectator message") {
			t.Fatalf("the players' stream carries the spectators' chat: %s", data)
		}
	}
	if renders := s.App.Watch.Stats().Renders - before.Renders; renders != 2*messages {
		t.Errorf("%d drawings for %d messages to %d streams, want %d (one per chat per message)", renders, messages, watchers+1, 2*messages)
	}
}

// A chat change whose notification never came (a message written, a
// message hidden) reaches the streams at the next presence pass, as a
// lost move does: the pass compares the chat's mark with the room's.
func TestLostChatNotificationIsMended(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	hal, ida, jon, kim := s.APIFor("Hal"), s.APIFor("Ida"), s.APIFor("Jon"), s.APIFor("Kim")
	id := startedGame(t, hal, ida, jon)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	watcher := s.Client().Stream(ctx, fmt.Sprintf("/games/%d/events", id))
	watcher.Next(t, "chat")
	if st, body := kim.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/chat", id), map[string]any{"text": "first words"}); st != http.StatusCreated {
		t.Fatalf("post: %d %v", st, body)
	}
	nextChatWith(t, watcher, "first words")

	// Written straight into the table, as if the NOTIFY had been lost.
	u, err := s.Store.UserByName(ctx, "Kim")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.DB.Exec(`INSERT INTO chat_messages (game_id, user_id, channel, body, created_at) VALUES ($1, $2, 'spectators', 'unannounced words', now())`, id, u.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.App.Watch.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	nextChatWith(t, watcher, "unannounced words")

	if _, err := s.Store.DB.Exec(`UPDATE chat_messages SET hidden_at = now() WHERE game_id = $1 AND body = 'first words'`, id); err != nil {
		t.Fatal(err)
	}
	if err := s.App.Watch.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if data := nextChatWith(t, watcher, "Message removed by a moderator."); strings.Contains(data, "first words") {
		t.Errorf("the hidden message still shows: %s", data)
	}
}

// A player away from the table learns that its chat has new messages: My
// games and the start page count the players' messages by others they have
// not read, and so does the API's list; looking at the table (or reading
// its chat through the API, or the page telling that a message came while
// in view) reads them. Hidden messages and muted chats do not count.
func TestUnreadChatAtYourTables(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	hal, ida, jon := s.APIFor("Hal"), s.APIFor("Ida"), s.APIFor("Jon")
	id := startedGame(t, hal, ida, jon)
	chatPath := fmt.Sprintf("/api/v1/games/%d/chat", id)
	say := func(p *apptest.API, text string) int64 {
		t.Helper()
		st, body := p.Do(http.MethodPost, chatPath, map[string]any{"text": text})
		if st != http.StatusCreated {
			t.Fatalf("post: %d %v", st, body)
		}
		return int64(body["id"].(float64))
	}
	ic := loggedIn(t, s, ida)
	unread := func(c *apptest.Client, p *apptest.API) (page, home string, api float64) {
		t.Helper()
		for _, r := range goqueryRows(c.Get("/my/games"), `[data-testid="my-game"]`) {
			if strings.Contains(r.Find("a").First().Text(), fmt.Sprintf("#%d", id)) {
				page = strings.TrimSpace(r.Find(`[data-testid="unread-chat"]`).Text())
			}
		}
		home = strings.TrimSpace(c.Get("/").Doc().Find(`[data-testid="unread-chat"]`).Text())
		_, mine := p.Do(http.MethodGet, "/api/v1/games/mine", nil)
		for _, g := range mine["games"].([]any) {
			if gm := g.(map[string]any); int64(gm["id"].(float64)) == id {
				api = gm["unread_chat"].(float64)
			}
		}
		return page, home, api
	}
	if page, home, api := unread(ic, ida); page != "" || home != "" || api != 0 {
		t.Fatalf("before any message: %q %q %v", page, home, api)
	}

	say(hal, "good luck")
	say(hal, "have fun")
	say(ida, "you too")
	if page, home, api := unread(ic, ida); page != "2 new messages" || home != "2 new messages" || api != 2 {
		t.Errorf("two of Hal's messages unread by Ida: page %q, start page %q, API %v", page, home, api)
	}
	if link, _ := ic.Get("/my/games").Doc().Find(`[data-testid="unread-chat"]`).Attr("href"); link != fmt.Sprintf("/games/%d#chat", id) {
		t.Errorf("the badge links to %q", link)
	}
	hc := loggedIn(t, s, hal)
	if page, _, api := unread(hc, hal); page != "1 new message" || api != 1 {
		t.Errorf("Hal has Ida's one message unread: %q %v", page, api)
	}

	// Ida looks at the table: read.
	ic.Get(fmt.Sprintf("/games/%d", id))
	if page, home, api := unread(ic, ida); page != "" || home != "" || api != 0 {
		t.Errorf("after the table was seen: %q %q %v", page, home, api)
	}

	// A message comes while her page is open: the page tells the server.
	third := say(hal, "nice pass")
	if page, _, _ := unread(ic, ida); page != "1 new message" {
		t.Errorf("a new message: %q", page)
	}
	if res := ic.PostForm(fmt.Sprintf("/games/%d/chat/read", id), url.Values{"last": {fmt.Sprint(third)}}); res.Status != http.StatusNoContent {
		t.Fatalf("read: %d %s", res.Status, res.Body)
	}
	if page, _, _ := unread(ic, ida); page != "" {
		t.Errorf("after the page told the server: %q", page)
	}
	// Telling more than there is reads no future message; nonsense is refused.
	if res := ic.PostForm(fmt.Sprintf("/games/%d/chat/read", id), url.Values{"last": {"999999999"}}); res.Status != http.StatusNoContent {
		t.Fatalf("read past the end: %d", res.Status)
	}
	for _, bad := range []string{"", "x", "-3"} {
		if res := ic.PostForm(fmt.Sprintf("/games/%d/chat/read", id), url.Values{"last": {bad}}); res.Status != http.StatusUnprocessableEntity {
			t.Errorf("read %q: %d", bad, res.Status)
		}
	}
	if res := ic.PostForm("/games/999999/chat/read", url.Values{"last": {"1"}}); res.Status != http.StatusNotFound {
		t.Errorf("read at no game: %d", res.Status)
	}
	// A private table is not there for someone not invited.
	_, pg := hal.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 60, "private": true})
	if res := ic.PostForm(fmt.Sprintf("/games/%d/chat/read", int64(pg["id"].(float64))), url.Values{"last": {"1"}}); res.Status != http.StatusNotFound {
		t.Errorf("read at someone else's private table: %d", res.Status)
	}
	fourth := say(hal, "your turn")
	if page, _, _ := unread(ic, ida); page != "1 new message" {
		t.Errorf("a message after reading past the end: %q", page)
	}

	// Reading through the API reads too; a hidden message stops counting.
	jc := loggedIn(t, s, jon)
	if page, _, _ := unread(jc, jon); page != "5 new messages" {
		t.Errorf("Jon, who never looked: %q", page)
	}
	if _, err := s.Store.DB.Exec(`UPDATE chat_messages SET hidden_at = now() WHERE id = $1`, fourth); err != nil {
		t.Fatal(err)
	}
	if page, _, _ := unread(jc, jon); page != "4 new messages" {
		t.Errorf("a hidden message still counts: %q", page)
	}
	jon.Do(http.MethodGet, chatPath, nil)
	if page, _, api := unread(jc, jon); page != "" || api != 0 {
		t.Errorf("after reading through the API: %q %v", page, api)
	}
	// A muted chat never counts.
	say(hal, "anyone?")
	ic.PostForm(fmt.Sprintf("/games/%d/chat/mute", id), url.Values{"muted": {"true"}})
	if page, home, api := unread(ic, ida); page != "" || home != "" || api != 0 {
		t.Errorf("a muted chat counts: %q %q %v", page, home, api)
	}
}

// goqueryRows are the elements of a page matching a selector.
func goqueryRows(res *apptest.Response, sel string) []*goquery.Selection {
	var out []*goquery.Selection
	res.Doc().Find(sel).Each(func(_ int, r *goquery.Selection) { out = append(out, r) })
	return out
}

// BenchmarkChatPost measures one chat message written through the JSON
// API (each op: the checks, the rate count, the insert and its NOTIFY).
func BenchmarkChatPost(b *testing.B) {
	s := apptest.New(b, apptest.WithoutWorkers())
	hal, ida, jon := s.APIFor("Hal"), s.APIFor("Ida"), s.APIFor("Jon")
	id := startedGame(b, hal, ida, jon)
	path := fmt.Sprintf("/api/v1/games/%d/chat", id)
	b.ResetTimer()
	for i := range b.N {
		if i%5 == 4 {
			s.Clock.Advance(11 * time.Second) // stay under the rate limit
		}
		if st, _ := hal.Raw(http.MethodPost, path, map[string]any{"text": "hello there"}); st != http.StatusCreated {
			b.Fatalf("post: %d", st)
		}
	}
}
