package postgres

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"regexp"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/ports"
)

var _ ports.Authenticator = (*Store)(nil)

// Principals and tokens (docs/design/team.md#people-and-tokens). A token is
// "kg_" and 43 characters of base64url: 32 random bytes. The database keeps
// only its SHA-256; its id, the first 12 hex digits of that hash, names it
// in listings and to revoke it.

// tokenTTL is how long a server trusts what it last read of a token: a
// token revoked on one server stops working on every server within it,
// well under the 5 s docs/design/team.md#people-and-tokens allows.
const tokenTTL = 2 * time.Second

var principalName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$`)

// ValidPrincipal checks a principal's name.
func ValidPrincipal(name string) error {
	if !principalName.MatchString(name) {
		return domain.Invalidf("name", "%q is not a principal name: 1 to 64 letters, digits, '.', '_', '@' or '-', starting with a letter or digit", name)
	}
	return nil
}

// ValidScope checks a token's scope.
func ValidScope(scope string) error {
	switch scope {
	case ports.ScopeRead, ports.ScopeWrite, ports.ScopeAdmin:
		return nil
	}
	return domain.Invalidf("scope", "%q is not one of read, write, admin", scope)
}

// Token is one row of kg token list.
type Token struct {
	ID        string
	Principal string
	Scope     string
	Created   time.Time
	Revoked   *time.Time
}

func hashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// CreateToken makes a token for principal (created if new) with scope, and
// returns it — the only time it is ever shown — and its id.
func (s *Store) CreateToken(ctx context.Context, principal, scope string) (token, id string, err error) {
	if err := ValidPrincipal(principal); err != nil {
		return "", "", err
	}
	if err := ValidScope(scope); err != nil {
		return "", "", err
	}
	var b [32]byte
	_, _ = rand.Read(b[:])
	token = "kg_" + base64.RawURLEncoding.EncodeToString(b[:])
	h := hashToken(token)
	id = hex.EncodeToString(h)[:12]
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO principals (name) VALUES ($1) ON CONFLICT DO NOTHING", principal); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO tokens (id, principal, scope, hash) VALUES ($1, $2, $3, $4)", id, principal, scope, h)
		return err
	})
	if err != nil {
		return "", "", unavailable(err, "create a token for %s", principal)
	}
	return token, id, nil
}

// ListTokens returns every token, newest first.
func (s *Store) ListTokens(ctx context.Context) ([]Token, error) {
	rows, err := s.pool.Query(ctx, "SELECT id, principal, scope, created_at, revoked_at FROM tokens ORDER BY created_at DESC, id")
	if err != nil {
		return nil, unavailable(err, "list the tokens")
	}
	var out []Token
	var t Token
	_, err = pgx.ForEachRow(rows, []any{&t.ID, &t.Principal, &t.Scope, &t.Created, &t.Revoked}, func() error {
		out = append(out, t)
		return nil
	})
	if err != nil {
		return nil, unavailable(err, "list the tokens")
	}
	return out, nil
}

// RevokeToken revokes the token id, or every token of the principal
// named so; it returns how many it revoked (0: none matched).
func (s *Store) RevokeToken(ctx context.Context, idOrPrincipal string) (int, error) {
	tag, err := s.pool.Exec(ctx, "UPDATE tokens SET revoked_at = now() WHERE (id = $1 OR principal = $1) AND revoked_at IS NULL", idOrPrincipal)
	if err != nil {
		return 0, unavailable(err, "revoke %s", idOrPrincipal)
	}
	return int(tag.RowsAffected()), nil
}

// ErrBadToken is what Authenticate returns for a token that is unknown or
// revoked.
var ErrBadToken = errors.New("unknown or revoked token")

// authCache remembers what the database said of a token, for tokenTTL.
type authCache struct {
	mu sync.Mutex
	m  map[[32]byte]authEntry
}

type authEntry struct {
	p  ports.Principal
	ok bool
	at time.Time
}

// Authenticate returns the principal a token belongs to
// (ports.Authenticator): ErrBadToken (wrapped, kind invalid) for an unknown
// or revoked token; an unavailable error when the database cannot say.
//
// While the database cannot be reached, a token this server verified within
// Options.TokenGrace stays good, so that reads are served from memory
// (docs/design/team.md#when-the-database-is-away); a revocation made
// meanwhile applies at the first check once the database is back.
func (s *Store) Authenticate(ctx context.Context, token string) (ports.Principal, error) {
	key := sha256.Sum256([]byte(token))
	now := time.Now()
	s.auth.mu.Lock()
	e, ok := s.auth.m[key]
	s.auth.mu.Unlock()
	if !ok || now.Sub(e.at) > tokenTTL {
		var p ports.Principal
		err := s.pool.QueryRow(ctx, "SELECT principal, scope FROM tokens WHERE hash = $1 AND revoked_at IS NULL", key[:]).Scan(&p.Name, &p.Scope)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			e = authEntry{at: now}
		case err != nil:
			if ok && e.ok && now.Sub(e.at) <= s.opt.TokenGrace {
				return e.p, nil // verified recently: kept, not refreshed
			}
			return ports.Principal{}, unavailable(err, "check the token")
		default:
			e = authEntry{p: p, ok: true, at: now}
		}
		s.auth.mu.Lock()
		if len(s.auth.m) > 10_000 {
			clear(s.auth.m) // bounded: guessed tokens must not grow it for ever
		}
		s.auth.m[key] = e
		s.auth.mu.Unlock()
	}
	if !e.ok {
		return ports.Principal{}, &domain.Error{Kind: domain.KindInvalid, Field: "Authorization", Msg: "unknown or revoked token", Err: ErrBadToken}
	}
	return e.p, nil
}
