package accounts

import (
	"strings"
	"testing"
)

func TestHashPassword(t *testing.T) {
	hash, err := HashPassword("hunter2 hunter2")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hash, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Errorf("hash %q does not carry argon2id with the OWASP minimum parameters", hash)
	}
	again, _ := HashPassword("hunter2 hunter2")
	if again == hash {
		t.Error("two hashes of one password are equal: no salt")
	}
	tests := []struct {
		name     string
		password string
		want     bool
	}{
		{"Right", "hunter2 hunter2", true},
		{"ErrWrong", "hunter2 hunter3", false},
		{"ErrTrailingSpace", "hunter2 hunter2 ", false},
		{"ErrEmpty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CheckPassword(hash, tt.password)
			if err != nil || got != tt.want {
				t.Errorf("CheckPassword = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestLongPasswordsAreNotTruncated(t *testing.T) {
	long := strings.Repeat("p", 200)
	hash, _ := HashPassword(long)
	if ok, _ := CheckPassword(hash, long[:199]+"q"); ok {
		t.Error("a 200-character password matched with its last character changed")
	}
	if ok, _ := CheckPassword(hash, long); !ok {
		t.Error("the 200-character password did not match itself")
	}
}

func TestCheckPasswordRejectsMalformedHash(t *testing.T) {
	for _, h := range []string{"", "plain", "$argon2i$v=19$m=1,t=1,p=1$c2FsdA$aGFzaA", "$argon2id$v=19$m=x$a$b", "$argon2id$v=19$m=1,t=1,p=1$!!$aGFzaA"} {
		if _, err := CheckPassword(h, "x"); err == nil {
			t.Errorf("CheckPassword accepted hash %q", h)
		}
	}
}

func TestValidateRegister(t *testing.T) {
	good := RegisterInput{Username: "Ada_99", Email: "ada@example.org", Password: "12345678", Confirm: "12345678"}
	if f := good.Validate(); len(f) != 0 {
		t.Fatalf("a good form: %v", f)
	}
	tests := []struct {
		name  string
		edit  func(*RegisterInput)
		field string
	}{
		{"ErrUnicodeLetters", func(in *RegisterInput) { in.Username = "Zoë" }, "username"},
		{"ErrLeadingDash", func(in *RegisterInput) { in.Username = "-ada" }, "username"},
		{"ErrSpaces", func(in *RegisterInput) { in.Username = "a d a" }, "username"},
		{"ErrDisplayNameEmail", func(in *RegisterInput) { in.Email = "Ada <ada@example.org>" }, "email"},
		{"ErrNoDomainDot", func(in *RegisterInput) { in.Email = "ada@localhost" }, "email"},
		{"ErrHugePassword", func(in *RegisterInput) { in.Password = strings.Repeat("x", MaxPassword+1); in.Confirm = in.Password }, "password"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := good
			tt.edit(&in)
			if f := in.Validate(); f[tt.field] == "" {
				t.Errorf("no error on %s: %v", tt.field, f)
			}
		})
	}
}
